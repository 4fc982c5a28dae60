// post_processors.h: tokenizer.json's "post_processor", which adds the special tokens around a text's ids when they
// are asked for (Hugging Face's add_special_tokens=True): TemplateProcessing, ByteLevel (nothing to ids) and
// Sequence. Others (BertProcessing, RobertaProcessing) are refused by name when loading.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "arcscope/core/json.h"

namespace arcscope::hf {

class PostProcessor {
public:
    virtual ~PostProcessor() = default;
    virtual void apply(std::vector<int>& ids) const = 0;  // called only when special tokens are asked for

    static std::unique_ptr<PostProcessor> from_json(const Json& json, const std::string& where, int depth = 0);
};

}  // namespace arcscope::hf
