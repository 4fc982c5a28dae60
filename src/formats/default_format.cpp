// default_format.cpp: the weight format a conversion gets when none is asked for (see default_format.h).
#include "arcscope/formats/default_format.h"

#include "arcscope/formats/model_file.h"

namespace arcscope {

uint64_t converted_file_bytes(const ModelConfig& config, DType weight_type) {
    ModelConfig file = config;
    if (file.arch == Arch::gpt2) file.tie_word_embeddings = true;  // a GPT-2 file's head is always wte (Converter)
    const DType stored = stored_weight_type(file, weight_type);
    return plan_layout(tensor_specs(file, stored), file_version(file, stored)).file_size();
}

DType default_weight_type(const ModelConfig& config) {
    return converted_file_bytes(config, DType::Q16) <= kDefaultQ16MaxBytes ? DType::Q16 : DType::Q8;
}

}  // namespace arcscope
