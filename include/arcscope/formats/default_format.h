// default_format.h: the weight format a checkpoint converts to when none is asked for (the CLI, convertCheckpoint,
// and the page's loader by the same rule: web/tutorial/page/model-formats.js).
//
// q8's rounding of the weights moves sharp heads' attention a long way: with scores of standard deviation 4 (a mean
// largest weight of 0.55-0.63, as trained heads have) q8 drew GPT-2-small-shaped attention 0.23 off float32's and
// medium's 0.37; q16 stays within 0.007 (tests/reference/test_gpt2_family.py). So q16 is the default wherever its
// file is one the browser takes whole; past that (GPT-2 XL: 3.3 GB in q16) it is q8, which fits.
#pragma once
#include <cstdint>

#include "arcscope/formats/model_config.h"
#include "arcscope/kernels/quant.h"

namespace arcscope {

// The largest q16 file the default picks: the page downloads a model file whole up to 2 GiB (shared/downloads.js).
constexpr uint64_t kDefaultQ16MaxBytes = uint64_t(1) << 31;

// The size of config's .arcs file in weight_type.
uint64_t converted_file_bytes(const ModelConfig& config, DType weight_type);

// q16 if config's q16 file is at most kDefaultQ16MaxBytes, else q8.
DType default_weight_type(const ModelConfig& config);

}  // namespace arcscope
