// json_strings.cpp: escaping and unescaping JSON string values (RFC 8259).
#include "json_strings.h"

#include <cmath>
#include <cstdio>

#include "arcscope/core/error.h"
#include "arcscope/core/json.h"
#include "arcscope/core/utf8.h"

namespace arcscope::cli {

std::string json_number(double x, int decimals) {
    if (!std::isfinite(x)) return "null";
    char buf[48];
    if (decimals < 0) std::snprintf(buf, sizeof buf, "%.9g", x);
    else std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
    return buf;
}

std::string json_quote(std::string_view text) {
    std::string repaired;
    if (!is_valid_utf8(text)) text = repaired = repair_utf8(text);
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    const char* hex = "0123456789abcdef";
                    out += "\\u00";
                    out += hex[c >> 4];
                    out += hex[c & 15];
                } else {
                    out += c;
                }
        }
    }
    out += '"';
    return out;
}

std::string json_unquote(std::string_view json) {
    Json value;
    try {
        value = Json::parse(json);
    } catch (const Error& e) {
        throw Error(std::string("expected a JSON string: ") + e.what());
    }
    if (!value.is_string()) throw Error("expected a JSON string, got another JSON value");
    return value.string;
}

}  // namespace arcscope::cli
