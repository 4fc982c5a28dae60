// decoders.h: tokenizer.json's "decoder", which turns token strings back into text: ByteLevel, Replace, ByteFallback,
// Fuse, Strip, Metaspace and Sequence. Others (WordPiece, BPEDecoder, CTC) are refused by name when loading.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "arcscope/core/json.h"

namespace arcscope::hf {

class Decoder {
public:
    virtual ~Decoder() = default;
    // Rewrites the token strings in place, as Hugging Face's decode_chain does. `whole_text` false: the tokens are
    // shown one by one (a label), so steps that only make sense at the start of a text (Strip, Metaspace's removal of
    // the first token's prefix) are left out, and ByteLevel keeps a part of a character as its bytes.
    virtual void apply(std::vector<std::string>& tokens, bool whole_text) const = 0;

    static std::unique_ptr<Decoder> from_json(const Json& json, const std::string& where, int depth = 0);
};

}  // namespace arcscope::hf
