// convert.h: Hugging Face GPT-2 checkpoint (config.json + model.safetensors) -> .arcs model file, streaming.
//
// The safetensors bytes arrive in chunks of any size (a file read natively, a fetch() stream in the browser). The
// output file is allocated once the header is known and checked against the input's real length, and each tensor
// is written into it as its bytes arrive: memory stays near the output's size plus one Conv1D matrix (those need
// a transpose), never the input's size. A header that claims more data than the input holds is refused before
// anything is allocated, so a small hostile file cannot make the converter reserve gigabytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arcscope/gpt2_config.h"
#include "arcscope/safetensors.h"

namespace arcscope {

// config.json text -> config. Reads n_layer, n_head, n_embd, n_positions (or n_ctx), vocab_size,
// layer_norm_epsilon; rejects activations other than GPT-2's tanh GELU.
GPT2Config config_from_hf_json(std::string_view json);

class Converter {
public:
    // source_bytes: the length of model.safetensors (the file's size, the download's Content-Length).
    Converter(const GPT2Config& config, DType dtype, uint64_t source_bytes);

    // The next bytes of model.safetensors, in order.
    void feed(const uint8_t* data, size_t n);
    // Call after the last byte: checks that every tensor arrived, seals the file (checksum) and returns it.
    std::vector<uint8_t>& finish();

    const char* stage() const;  // "header", "tensors", "done"
    uint64_t bytes_done() const { return fed_; }
    uint64_t bytes_total() const { return total_; }  // 0 until the header has been read
    uint64_t output_bytes() const { return out_.size(); }

private:
    struct Job {  // one safetensors tensor that becomes one model tensor
        SafeTensor src;
        size_t spec;     // index into specs_
        bool transpose;  // Conv1D (in, out) -> (out, in)
    };

    GPT2Config config_;
    DType dtype_;
    std::vector<TensorSpec> specs_;
    std::vector<uint64_t> offsets_;  // absolute file offsets of each spec's data
    std::vector<uint8_t> out_;

    uint64_t source_bytes_;
    uint64_t fed_ = 0, total_ = 0, header_len_ = 0;
    std::string header_;  // prefix + JSON while it is being read
    std::vector<Job> jobs_;
    size_t job_ = 0;                // current job
    uint64_t data_pos_ = 0;         // position in the data section
    std::vector<uint8_t> staged_;   // the current group's source bytes
    uint64_t group_bytes_ = 0;      // bytes per group of the current job
    uint64_t group_first_row_ = 0;  // first row of the staged group
    std::vector<float> f32_;        // the group converted (and transposed)
    bool finished_ = false;

    void start(const std::vector<SafeTensor>& tensors);
    void begin_job();
    void flush_group();
    std::vector<uint64_t> hf_shape(const TensorSpec& spec, bool& transpose) const;
};

// Native convenience: reads DIR/config.json and DIR/model.safetensors in chunks, writes out_path.
// Returns the output size in bytes.
uint64_t convert_checkpoint_dir(const std::string& dir, const std::string& out_path, DType dtype,
                                size_t chunk_bytes = 1 << 20);

}  // namespace arcscope
