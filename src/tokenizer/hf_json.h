// hf_json.h: reading tokenizer.json's parts: typed fields with errors that say where ("tokenizer.json: normalizer:
// Replace: 'content' must be a string").
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/core/json.h"

namespace arcscope::hf {

[[noreturn]] inline void refuse(const std::string& where, const std::string& what) {
    throw Error("tokenizer.json: " + where + ": " + what);
}

inline const Json& member(const Json& obj, const char* key, const std::string& where) {
    const Json* v = obj.find(key);
    if (!v) refuse(where, std::string("'") + key + "' is missing");
    return *v;
}

inline std::string string_field(const Json& obj, const char* key, const std::string& where) {
    const Json& v = member(obj, key, where);
    if (!v.is_string()) refuse(where, std::string("'") + key + "' must be a string");
    return v.string;
}

inline bool bool_field(const Json& obj, const char* key, bool fallback, const std::string& where) {
    const Json* v = obj.find(key);
    if (!v || v->kind == Json::Kind::Null) return fallback;
    if (v->kind != Json::Kind::Bool) refuse(where, std::string("'") + key + "' must be true or false");
    return v->boolean;
}

// The component's "type" ("Sequence", "NFC", ...).
inline std::string type_of(const Json& component, const std::string& where) {
    if (!component.is_object()) refuse(where, "must be an object or null");
    return string_field(component, "type", where);
}

// A Split or Replace pattern: {"String": "..."} or {"Regex": "..."}.
struct Pattern {
    bool regex = false;
    std::string text;
};
inline Pattern pattern_field(const Json& obj, const std::string& where) {
    const Json& p = member(obj, "pattern", where);
    if (const Json* s = p.find("String"); s && s->is_string()) return {false, s->string};
    if (const Json* r = p.find("Regex"); r && r->is_string()) return {true, r->string};
    refuse(where, "'pattern' must be {\"String\": ...} or {\"Regex\": ...}");
}

// A Sequence's steps, the array under `key` ("normalizers", "pretokenizers", "processors", "decoders"), each read by
// read(item, where, depth) one level deeper; a step read as null (a null entry) is left out.
template <class Step, class Read>
std::vector<std::unique_ptr<Step>> sequence_steps(const Json& json, const char* key, const std::string& at, int depth,
                                                  Read read) {
    const Json& list = member(json, key, at);
    if (!list.is_array()) refuse(at, std::string("'") + key + "' must be an array");
    std::vector<std::unique_ptr<Step>> steps;
    for (size_t i = 0; i < list.array.size(); ++i)
        if (auto step = read(list.array[i], at + "[" + std::to_string(i) + "]", depth + 1))
            steps.push_back(std::move(step));
    return steps;
}

}  // namespace arcscope::hf
