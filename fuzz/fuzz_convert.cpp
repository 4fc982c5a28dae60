// fuzz_convert.cpp: libFuzzer target for the streaming safetensors converter. The first byte picks the architecture
// (a tiny GPT-2, GPT-NeoX, Llama, Qwen2 or Qwen3, each with the tensor names of its Hugging Face layout) and where the
// rest is cut into two chunks. Any bytes must convert or throw Error.
#include <cstdint>

#include "arcscope/core/error.h"
#include "arcscope/formats/convert.h"

namespace {
// The shapes of scripts/fuzz.sh's seed checkpoints: one layer, 32 channels, 8 tokens, 4 positions.
arcscope::ModelConfig tiny(arcscope::Arch arch) {
    using namespace arcscope;
    ModelConfig c;
    c.arch = arch;
    c.n_layer = 1;
    c.n_head = 1;
    c.n_embd = 32;
    c.n_ctx = 4;
    c.n_vocab = 8;
    if (arch == Arch::gpt2) return c;
    c.n_head = 2;
    c.d_mlp = 32;
    c.positions = Positions::rotary;
    c.rotary_dim = 16;
    if (arch == Arch::gpt_neox) {
        c.mlp = MlpKind::gelu_erf;
        c.parallel_residual = true;
        c.rotary_dim = 4;
        c.tie_word_embeddings = false;
        return c;
    }
    c.norm = NormKind::rmsnorm;
    c.mlp = MlpKind::swiglu;
    c.n_kv_head = 1;
    c.qkv_bias = arch == Arch::qwen2;
    c.o_bias = c.mlp_bias = false;
    c.qk_norm = arch == Arch::qwen3;
    return c;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const arcscope::ModelConfig c = tiny(arcscope::Arch(data[0] / 7 % 5));  // seeds: 70 gpt2, 77 gpt_neox, 84 llama
    const size_t cut = data[0] % (size);
    try {
        arcscope::Converter conv(c, arcscope::DType(size % 3), size - 1);  // f32, q8 or q16
        conv.feed(data + 1, cut);
        conv.feed(data + 1 + cut, size - 1 - cut);
        conv.finish();
    } catch (const arcscope::Error&) {
    }
    return 0;
}
