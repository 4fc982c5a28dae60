// normalizers.h: tokenizer.json's "normalizer": NFC, NFD, NFKC, NFKD, Prepend, Replace, Strip and Sequence of them.
// Others (Lowercase, BertNormalizer, Precompiled, ...) are refused by name when loading.
#pragma once
#include <memory>
#include <string>

#include "arcscope/core/json.h"

namespace arcscope::hf {

class Normalizer {
public:
    virtual ~Normalizer() = default;
    virtual void apply(std::string& text) const = 0;  // valid UTF-8 in, valid UTF-8 out

    // nullptr for a null normalizer. `where` names the place in the file for errors ("normalizer").
    static std::unique_ptr<Normalizer> from_json(const Json& json, const std::string& where, int depth = 0);
};

}  // namespace arcscope::hf
