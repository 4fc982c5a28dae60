// pre_tokenizers.h: tokenizer.json's "pre_tokenizer", which cuts normalized text into the words BPE sees: Split
// (a string or a regex, with Hugging Face's five behaviours and invert), ByteLevel, Digits, Metaspace and Sequence.
// Others (Whitespace, BertPreTokenizer, Punctuation, ...) are refused by name when loading.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "arcscope/core/json.h"

namespace arcscope::hf {

class PreTokenizer {
public:
    virtual ~PreTokenizer() = default;
    // Cuts each piece further (pieces stay in order; empty ones are dropped). `first_section`: the pieces start the
    // whole text (Metaspace's prepend_scheme "first").
    virtual void split(std::vector<std::string>& pieces, bool first_section) const = 0;
    virtual bool byte_level() const { return false; }  // a ByteLevel step: the model's tokens are written in bytes

    static std::unique_ptr<PreTokenizer> from_json(const Json& json, const std::string& where, int depth = 0);
};

}  // namespace arcscope::hf
