// hf_tokenizer.h: a tokenizer read from Hugging Face's tokenizer.json (and tokenizer_config.json), the files that
// ship with Llama, Qwen, SmolLM2, TinyLlama and most other models; ids equal Hugging Face's tokenizers' (Rust).
//
//   HfTokenizer tok = HfTokenizer::load("models/qwen3");         // a folder, or the tokenizer.json itself
//   std::vector<int> ids = tok.encode("Hello world");            // {9707, 1879}: add_special_tokens=False
//   std::vector<int> with = tok.encode("Hello world", true);     // the post-processor's BOS/EOS added
//   tok.decode(ids) == "Hello world";
//
// The pipeline: added tokens found in the text, the normalizer, the pre-tokenizer, BPE, the post-processor (on
// request); decoding runs the decoder. What it reads: model BPE (byte-level, or SentencePiece-style with
// byte_fallback); normalizers NFC NFD NFKC NFKD Prepend Replace Strip Sequence; pre-tokenizers Split (see
// hf_regex.h for its patterns) ByteLevel Digits Metaspace Sequence; post-processors TemplateProcessing ByteLevel
// Sequence; decoders ByteLevel Replace ByteFallback Fuse Strip Metaspace Sequence. Anything else is refused by name
// when loading ("tokenizer.json: model type Unigram is not supported (supported: BPE)"), before any work.
// Text is UTF-8; ill-formed bytes are read as U+FFFD, as JavaScript's TextDecoder does (and so the wasm binding).
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arcscope/tokenizer/token_spans.h"

namespace arcscope {

class HfTokenizer {
public:
    // tokenizer.json's text, and tokenizer_config.json's (or empty). Throws Error naming what is wrong or refused.
    static HfTokenizer from_json(std::string_view tokenizer_json, std::string_view config_json = {});
    // A tokenizer.json file, or a folder holding one (and tokenizer_config.json, read if there).
    static HfTokenizer load(const std::string& file_or_folder);

    // text -> ids. add_special_tokens: as Hugging Face's, the post-processor's tokens (Llama 2's <s>). Special
    // tokens written in the text are always matched. Caches words: not safe to call from two threads at once.
    std::vector<int> encode(std::string_view text, bool add_special_tokens = false) const;
    // ids -> text, through the file's decoder. Throws Error naming the first id the vocabulary does not have.
    std::string decode(const std::vector<int>& ids) const;
    // One token as a label: its text with the decoder's per-token steps (" world", "\n"), U+FFFD for partial bytes.
    std::string token_text(int id) const;
    // One token's bytes as they stand in a text (a byte-fallback token's one byte): maybe part of a character.
    std::string token_bytes(int id) const;
    // ids grouped into runs whose bytes make whole characters, for labels (token_spans.h).
    std::vector<TokenSpan> token_spans(const std::vector<int>& ids) const;

    int vocab_size() const;  // one more than the largest id (vocabulary and added tokens)
    int bos_id() const;      // tokenizer_config.json's bos_token, or -1
    int eos_id() const;      // tokenizer_config.json's eos_token, or -1

    HfTokenizer(HfTokenizer&&) noexcept;
    HfTokenizer& operator=(HfTokenizer&&) noexcept;
    ~HfTokenizer();

private:
    struct Impl;
    explicit HfTokenizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace arcscope
