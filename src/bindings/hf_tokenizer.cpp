// hf_tokenizer.cpp: the bindings of the tokenizer read from Hugging Face's tokenizer.json (hf_tokenizer.h);
// web/lib/engine/tokenizer.js's createHfTokenizer wraps them. Every call goes through guarded() (js_values.h).
#include "js_values.h"
#include "token_spans_value.h"

#include "arcscope/tokenizer/hf_tokenizer.h"
#include "arcscope/tokenizer/tokenizer.h"  // only_token

using emscripten::val;
using namespace arcscope::bindings;

namespace hf_tokenizer_bindings {
using arcscope::HfTokenizer;

// A file's text: a string, or its bytes (Uint8Array / ArrayBuffer); undefined or null: none.
std::string file_text(const val& v, const char* what) {
    if (v.isUndefined() || v.isNull()) return {};
    return v.isString() ? js_string(v, what) : js_bytes(v, what);
}

// json: tokenizer.json's text or bytes; config: tokenizer_config.json's, or null.
HfTokenizer* from_json(const val& json, const val& config) {
    return guarded("loading tokenizer.json", [&] {
        const std::string text = file_text(json, "tokenizer.json");
        return new HfTokenizer(HfTokenizer::from_json(text, file_text(config, "tokenizer_config.json")));
    });
}

// text (a string, or its UTF-8 bytes), addSpecialTokens (a boolean) -> Int32Array of ids
val encode(const HfTokenizer& tok, const val& text, const val& add_special_tokens) {
    return guarded("tokenizing", [&] {
        if (!add_special_tokens.isTrue() && !add_special_tokens.isFalse())
            throw arcscope::Error("addSpecialTokens must be true or false, got " + js_description(add_special_tokens));
        std::vector<int> ids =
            tok.encode(text.isString() ? js_string(text) : js_bytes(text, "the text"), add_special_tokens.isTrue());
        return int32_array(ids.data(), ids.size());
    });
}

val decode(const HfTokenizer& tok, const val& ids) {
    return guarded("decoding tokens", [&] { return text_val(tok.decode(token_ids(ids, tok.vocab_size()))); });
}

val token_text(const HfTokenizer& tok, const val& id) {
    return guarded("reading a token's text",
                   [&] { return text_val(tok.token_text(int_arg(id, "token id", 0, tok.vocab_size() - 1))); });
}

// ids -> [{first, count, text}]: runs of tokens whose bytes make whole characters, as GPT-2's tokenSpans.
val token_spans(const HfTokenizer& tok, const val& ids) {
    return guarded("grouping tokens into characters",
                   [&] { return spans_value(tok.token_spans(token_ids(ids, tok.vocab_size()))); });
}

// The one token text is (' Mary'), else an Error naming `what`, as GPT-2's singleToken.
int single_token(const HfTokenizer& tok, const val& text, const val& what) {
    return guarded("tokenizing", [&] {
        const std::string t = js_string(text, "the text");
        return arcscope::only_token(tok.encode(t), t, js_string(what, "what the token is for"));
    });
}

}  // namespace hf_tokenizer_bindings

EMSCRIPTEN_BINDINGS(hf_tokenizer) {
    using namespace emscripten;
    using arcscope::HfTokenizer;
    class_<HfTokenizer>("HfTokenizer")
        .class_function("fromJson", &hf_tokenizer_bindings::from_json, allow_raw_pointers())
        .function("encode", &hf_tokenizer_bindings::encode)
        .function("decode", &hf_tokenizer_bindings::decode)
        .function("tokenText", &hf_tokenizer_bindings::token_text)
        .function("singleToken", &hf_tokenizer_bindings::single_token)
        .function("tokenSpans", &hf_tokenizer_bindings::token_spans)
        .property("vocabSize", &HfTokenizer::vocab_size)
        .property("bosId", &HfTokenizer::bos_id)
        .property("eosId", &HfTokenizer::eos_id);
}
