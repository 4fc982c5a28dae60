// tokenizer.cpp: the bindings of GPT-2's tokenizer (tokenizer.h); web/lib/engine/tokenizer.js wraps them.
// Every call goes through guarded() (js_values.h), so a C++ Error reaches JavaScript as an Error with its message.
#include "js_values.h"
#include "token_spans_value.h"

#include "arcscope/tokenizer/tokenizer.h"

using emscripten::val;
using namespace arcscope::bindings;

namespace tokenizer_bindings {
using arcscope::Tokenizer;

// bytes: the tokenizer file as a Uint8Array.
Tokenizer* from_bytes(const val& bytes) {
    return guarded("loading the tokenizer", [&] {
        const std::string data = js_bytes(bytes, "the tokenizer file");
        return new Tokenizer(Tokenizer::from_bytes(reinterpret_cast<const uint8_t*>(data.data()), data.size()));
    });
}

// text: a string, or its UTF-8 bytes as a Uint8Array (web/lib/engine/tokenizer.js passes TextEncoder's output) ->
// Int32Array of ids
val encode(const Tokenizer& tok, const val& text) {
    return guarded("tokenizing", [&] {
        std::vector<int> ids = tok.encode(text.isString() ? js_string(text) : js_bytes(text, "the text"));
        return int32_array(ids.data(), ids.size());
    });
}

// ids -> Uint8Array of the bytes they stand for (JavaScript decodes them with TextDecoder)
val decode(const Tokenizer& tok, const val& ids) {
    return guarded("decoding tokens", [&] {
        std::string bytes = tok.decode(token_ids(ids, tok.vocab_size()));
        auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
        return val(emscripten::typed_memory_view(bytes.size(), data)).call<val>("slice");
    });
}

val token_text(const Tokenizer& tok, const val& id) {
    return guarded("reading a token's text",
                   [&] { return text_val(tok.token_text(int_arg(id, "token id", 0, tok.vocab_size() - 1))); });
}

// ids -> [{first, count, text}]: runs of tokens that together make whole characters
val token_spans(const Tokenizer& tok, const val& ids) {
    return guarded("grouping tokens into characters",
                   [&] { return spans_value(tok.token_spans(token_ids(ids, tok.vocab_size()))); });
}

// text (a JavaScript string), what -> the one token the text is; an Error naming `what` otherwise
int single_token(const Tokenizer& tok, const val& text, const val& what) {
    return guarded("reading one token",
                   [&] { return tok.single_token(js_string(text, "the token's text"), js_string(what)); });
}

}  // namespace tokenizer_bindings

EMSCRIPTEN_BINDINGS(tokenizer) {
    using namespace emscripten;
    using arcscope::Tokenizer;
    class_<Tokenizer>("Tokenizer")
        .class_function("fromBytes", &tokenizer_bindings::from_bytes, allow_raw_pointers())
        .function("encode", &tokenizer_bindings::encode)
        .function("decode", &tokenizer_bindings::decode)
        .function("tokenText", &tokenizer_bindings::token_text)
        .function("tokenSpans", &tokenizer_bindings::token_spans)
        .function("singleToken", &tokenizer_bindings::single_token)
        .property("vocabSize", &Tokenizer::vocab_size)
        .property("eotId", &Tokenizer::eot_id);
}
