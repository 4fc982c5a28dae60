// convert.h: Hugging Face checkpoint (config.json + model.safetensors, or shards listed by
// model.safetensors.index.json) of GPT-2, GPT-NeoX, Llama, Qwen2 or Qwen3 -> .arcs model file, streaming.
// Each family's tensor names map onto the engine's (checkpoint_plan in convert.cpp); several tensors may fill one
// (Llama's q, k and v projections are the rows of c_attn), and GPT-NeoX's per-head q, k, v rows are regrouped.
//
// The safetensors bytes arrive in chunks of any size (a file read natively, a fetch() stream in the browser). Once
// the header is known and checked against the input's real length, each tensor is written into the output as its
// bytes arrive. The output is held in pages allocated only when data for them arrives, so memory grows with what
// was received (a download that stalls after a header describing GPT-2 XL holds a few megabytes, not 1.8 GB) and
// ends near the output's size plus a few megabytes (a Conv1D weight, stored (in, out), is transposed 32 input rows at
// a time: one block column of the packed (out, in) layout), never the input's size. A header
// that claims more data than the input holds is refused before anything is allocated.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arcscope/core/files.h"
#include "arcscope/formats/hf_config.h"  // config_from_hf_json, for the converter's callers
#include "arcscope/formats/model_config.h"
#include "arcscope/formats/model_file.h"
#include "arcscope/formats/safetensors.h"

namespace arcscope {

// A file of a known size held in pages: the header and tensor table, then one page per tensor (with its padding),
// each allocated (zeroed, 64-byte aligned) when first written. So a tensor is contiguous in one page, and a model
// can run on the pages where they are (ModelFile::parse_pages), never copied into one buffer. Pages can also be
// handed on and released one at a time, so copying the file out never needs two whole copies.
class PagedBytes {
public:
    // Checks the total against the address space; allocates nothing. Each size a multiple of 8 (the checksum's word).
    void reset(const std::vector<uint64_t>& page_sizes);
    void write(uint64_t offset, const uint8_t* data, size_t n);
    uint64_t size() const { return size_; }
    uint64_t allocated() const { return allocated_; }
    size_t page_count() const { return pages_.size(); }
    size_t page_size(size_t i) const { return sizes_[i]; }
    const uint8_t* page(size_t i);  // allocates an untouched page (all zeros)
    void release(size_t i);
    std::vector<ByteSpan> spans();  // every page (allocating untouched ones), in order
    std::vector<uint8_t> to_vector();

private:
    uint64_t size_ = 0, allocated_ = 0;
    std::vector<uint64_t> starts_;
    std::vector<size_t> sizes_;
    std::vector<std::unique_ptr<AlignedBytes>> pages_;
    uint8_t* touch(size_t i);
};
class Converter {
public:
    // One file: source_bytes is the length of model.safetensors (the file's size, the download's Content-Length).
    Converter(const ModelConfig& config, DType dtype, uint64_t source_bytes);
    // Shards: model.safetensors.index.json's text, whose weight_map names every tensor's file. Its names are checked
    // against the config's at once; then each shard (shards()) is begun and fed in turn.
    Converter(const ModelConfig& config, DType dtype, std::string_view index_json);

    // The shard files of the index, in the order to feed them (their names sorted); empty for one file.
    const std::vector<std::string>& shards() const { return shard_names_; }
    // Starts the next shard: its name (one of shards(), each once) and its length, after the last one's last byte.
    void begin_shard(const std::string& name, uint64_t bytes);

    // The tokenizer the file is to carry (tokenizer.json, tokenizer_config.json), given before any checkpoint byte;
    // not for GPT-2, whose tokenizer is built in.
    void carry_tokenizer(TokenizerFiles files);

    // The next bytes of model.safetensors (or of the shard begun), in order.
    void feed(const uint8_t* data, size_t n);
    // Call after the last byte: checks that every tensor arrived, seals the file (checksum) and returns it. The
    // pages may be moved out (a model then runs on them in place).
    PagedBytes& finish();

    const char* stage() const;  // "header", "tensors", "done"
    uint64_t bytes_done() const { return fed_; }
    uint64_t bytes_total() const { return total_; }                // of the files whose headers were read
    uint64_t output_bytes() const { return out_.size(); }          // the file's size, 0 until a header is read
    uint64_t allocated_bytes() const { return out_.allocated(); }  // how much of it is held so far

    // Where one checkpoint tensor's values go (checkpoint_plan).
    struct Source {
        size_t spec;                  // the model tensor it is (part of)
        uint64_t first_row = 0;       // its first row (element, for a vector) there
        std::vector<uint64_t> shape;  // Hugging Face's shape
        bool transpose = false;       // GPT-2's Conv1D (in, out) -> (out, in)
        int heads = 0;                // GPT-NeoX's query_key_value: rows [heads, (q, k, v), d] -> [q | k | v]
        bool compare_only = false;    // an LM head that must equal the embedding: read, compared, never written
        bool required = true;
    };

private:
    struct Job {  // one safetensors tensor of the current file, in file order
        SafeTensor src;
        std::string name;  // in messages: Hugging Face's (GPT-2's without "transformer.")
        Source to;
    };

    ModelConfig config_;  // the file's (a GPT-2 file's head is always tied)
    DType dtype_;
    bool checkpoint_tied_;  // config.json's tie_word_embeddings
    std::vector<TensorSpec> specs_;
    std::vector<uint64_t> offsets_;  // absolute file offsets of each spec's data
    TokenizerFiles tokenizer_;       // carried after the tensors
    PagedBytes out_;
    std::map<std::string, Source> plan_;  // checkpoint name -> its place (checkpoint_plan)
    std::set<std::string> found_;         // the plan_ entries read so far
    std::string embedding_name_, head_name_;

    // Shards (none for one file): weight_map, the files in order, which are done.
    std::map<std::string, std::string> weight_map_;
    std::vector<std::string> shard_names_;
    std::vector<bool> shard_done_;
    std::string file_ = "model.safetensors";  // the file being fed, for messages

    // The file being fed.
    uint64_t file_bytes_ = 0, file_fed_ = 0, file_total_ = 0, header_len_ = 0;
    bool file_open_ = false;
    std::string header_;  // prefix + JSON while it is being read
    std::vector<Job> jobs_;
    size_t job_ = 0;                // current job
    uint64_t data_pos_ = 0;         // position in the data section
    std::vector<uint8_t> staged_;   // the current group's source bytes
    uint64_t group_bytes_ = 0;      // bytes per group of the current job
    uint64_t group_first_row_ = 0;  // first row (element) of the staged group, of the source's rows (columns when
                                    // transposing)
    std::vector<float> f32_;        // the group converted (and transposed)
    std::vector<uint8_t> packed_;   // the group quantized

    uint64_t fed_ = 0, total_ = 0;  // over every file
    bool finished_ = false;
    // A tied head (lm_head.weight, embed_out.weight) must equal the embedding, the one matrix an .arcs file has for
    // both: each is summed as it is read (FNV-1a over its values' float32 bits; holding GPT-2 XL's wte to compare
    // would cost 322 MB).
    size_t wte_spec_ = 0;
    bool has_head_ = false;
    int heads_summed_ = 0;  // of the embedding and a compared head, how many have been read
    uint64_t wte_sum_ = kFnvOffsetBasis, head_sum_ = kFnvOffsetBasis;

    Converter(const ModelConfig& config, DType dtype);
    void open_file(const std::string& name, uint64_t bytes);
    void close_file();
    void start(const std::vector<SafeTensor>& tensors);
    void plan_layout_once();
    const Source* place(const std::string& name, std::string& shown) const;  // null: a buffer to skip
    void begin_job();
    void flush_group();
    void write_rows(const Job& j, uint64_t dst, int rows, int cols);
    void end_job();
};

// What convert_checkpoint_dir wrote.
struct ConvertedFile {
    ModelConfig config;  // what config.json describes (describe() says which architecture was read)
    uint64_t bytes;      // the output's size
    DType dtype;         // the format asked for, or the default for the checkpoint's shape (default_format.h)
    std::vector<std::string> carried;  // the tokenizer files it carries, e.g. {"tokenizer.json"}
};
// Native convenience: reads DIR/config.json and DIR/model.safetensors (or DIR/model.safetensors.index.json and its
// shards) in chunks, writes out_path in dtype (none: the default for the checkpoint's shape). Any but a GPT-2 model
// carries DIR/tokenizer.json and DIR/tokenizer_config.json, those of them that are there.
ConvertedFile convert_checkpoint_dir(const std::string& dir, const std::string& out_path, std::optional<DType> dtype,
                                     size_t chunk_bytes = 1 << 20);

}  // namespace arcscope
