// token_spans_value.h: a tokenizer's token spans (token_spans.h) as JavaScript values, for both tokenizers'
// bindings (tokenizer.cpp, hf_tokenizer.cpp).
#pragma once
#include <vector>

#include "arcscope/tokenizer/token_spans.h"
#include "js_values.h"

namespace arcscope::bindings {

// [{first, count, text}]: a tokenizer's runs of tokens that together make whole characters (token_spans.h).
inline val spans_value(const std::vector<TokenSpan>& spans) {
    val list = val::array();
    for (const TokenSpan& s : spans) {
        val span = val::object();
        span.set("first", s.first);
        span.set("count", s.count);
        span.set("text", text_val(s.text));
        list.call<void>("push", span);
    }
    return list;
}

}  // namespace arcscope::bindings
