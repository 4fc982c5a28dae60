// model_file.h: the .arcs model file. It is designed to be used in place: the loader validates a byte buffer and
// hands out pointers into it, so a model in wasm memory costs its file size and nothing more.
//
// Layout (little-endian; the full description is in models/README.md):
//   header (80 bytes)  magic "ARCSCOPE", version, weight type, n_layer, n_head, n_embd, n_ctx, n_vocab, norm_eps,
//                      tensor count, block size (q8, q16), data offset, data size, checksum
//   tensor table       96 bytes per tensor: name (64, NUL-padded), type, ndim, shape[2], offset, size
//   data               each tensor 64-byte aligned; the file ends on a 64-byte boundary
//   checksum           FNV-1a 64 over the table and the data, taken as 64-bit little-endian words
//   tokenizer          version 3 only, optional: tokenizer.json and tokenizer_config.json as Hugging Face ships them,
//                      after the tensors in the data section, where the architecture record says
// GPT-2's files (versions 1 and 2) carry no tokenizer: they use the built-in GPT-2 one (models/gpt2-tokenizer.bin).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arcscope/core/files.h"
#include "arcscope/core/sizes.h"
#include "arcscope/formats/model_config.h"

namespace arcscope {

constexpr char kModelMagic[8] = {'A', 'R', 'C', 'S', 'C', 'O', 'P', 'E'};
// The newest version this build reads. Version 2 added the q16 weight type, version 3 the architecture record (every
// model but GPT-2), version 4 16-bit q16; a file is written with the oldest version that can hold it (file_version),
// so GPT-2's f32 and q8 files stay version 1, and a build that cannot read a file says so by its version, with how to
// convert it again.
constexpr uint32_t kModelVersion = 4;
constexpr size_t kModelHeaderBytes = 80;
constexpr size_t kArchRecordBytes = 128;
constexpr size_t kTensorEntryBytes = 96;
constexpr size_t kTensorNameBytes = 64;
constexpr size_t kDataAlign = 64;

// A tensor inside a validated file: its bytes are `size` bytes at `data`.
struct TensorEntry {
    std::string name;
    DType type;
    int rows;
    int cols;         // 0 for vectors
    uint64_t offset;  // from the start of the data section
    uint64_t size;
    const uint8_t* data;
};

// The tokenizer a version 3 file carries, as Hugging Face ships it; either text may be empty (not carried).
struct TokenizerFiles {
    std::string json;    // tokenizer.json
    std::string config;  // tokenizer_config.json
    bool empty() const { return json.empty() && config.empty(); }
};
constexpr uint64_t kMaxTokenizerFileBytes = uint64_t(64) << 20;  // Gemma 3's tokenizer.json, the largest, is 33 MB

// Bytes [offset, offset + size) of the data section; size 0: none.
struct DataRegion {
    uint64_t offset = 0;
    uint64_t size = 0;
};

// Where each tensor goes in a file holding `specs` (what the writer and the converter use).
struct FileLayout {
    uint64_t data_offset = 0;
    std::vector<uint64_t> offsets;                // per spec, from data_offset
    DataRegion tokenizer_json, tokenizer_config;  // after the tensors
    uint64_t data_size = 0;
    uint64_t file_size() const { return data_offset + data_size; }
};
// Where each tensor, and the tokenizer's files, go in a file of this version (file_version) holding `specs`. A
// tokenizer needs version 3; each of its files is at most kMaxTokenizerFileBytes.
FileLayout plan_layout(const std::vector<TensorSpec>& specs, uint32_t version, const TokenizerFiles& tokenizer = {});

// Writes the header, the architecture record (with where the tokenizer's files are) and the tensor table into
// out[0, layout.data_offset). The checksum is filled by seal_file(); the tokenizer's bytes go where layout says.
void write_header(uint8_t* out, const ModelConfig& config, DType weight_type, const std::vector<TensorSpec>& specs,
                  const FileLayout& layout);
// Computes the checksum over out[header, file_size) and stores it in the header. Call once the data is written.
void seal_file(uint8_t* out, uint64_t file_size);
// Stores a checksum computed elsewhere (over a file held in pieces) into the header's kModelHeaderBytes.
void store_checksum(uint8_t* header, uint64_t checksum);

// 1 for GPT-2's f32 and q8 files, 2 for its q16, 3 for any other architecture, 4 for 16-bit q16 (Q16Full).
uint32_t file_version(const ModelConfig& config, DType weight_type);

// The weight type a file of this config holds when `asked` is asked for: q16 is 16-bit (Q16Full, version 4) for every
// architecture but GPT-2, where the decoders' many blocks need it; GPT-2's q16 files keep the 14 bits their results
// were published with.
DType stored_weight_type(const ModelConfig& config, DType asked);

// FNV-1a 64 over n bytes (n a multiple of 8) read as little-endian 64-bit words, continuing from h, so a file held
// in pieces can be summed piece by piece.
constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ull;
uint64_t fnv1a64_words(const uint8_t* data, size_t n, uint64_t h = kFnvOffsetBasis);

// A piece of a file held in memory.
struct ByteSpan {
    const uint8_t* data;
    size_t size;
};

// The checksum of a file held in pages, one after another: fnv1a64_words over every byte after the header.
uint64_t file_checksum(const std::vector<ByteSpan>& pages);

// The checksum of a file that arrives into one buffer, summed while the rest is on its way, so that loading it
// need not read the whole file again (ModelFile::parse_summed finishes it).
class RunningChecksum {
public:
    // file: the buffer; written: how many of its first bytes have arrived. Sums the whole 8-byte words after the
    // header among them that it has not summed yet.
    void add(const uint8_t* file, size_t written);
    size_t summed() const { return summed_; }  // the sum covers file[kModelHeaderBytes, summed())
    uint64_t value() const { return sum_; }

private:
    size_t summed_ = kModelHeaderBytes;
    uint64_t sum_ = kFnvOffsetBasis;
};

// A validated, non-owning view of a model file's bytes (the bytes must outlive it).
class ModelFile {
public:
    // Checks every header field, every table entry against the config and the buffer's length, and the checksum
    // (unless verify_checksum is false), before trusting any offset. Throws Error saying what is wrong.
    static ModelFile parse(const uint8_t* bytes, size_t size, bool verify_checksum = true);
    // The same for a file held in pages, one after another (the converter's: the header and table first, then each
    // tensor in a page of its own). Every tensor must lie within one page.
    static ModelFile parse_pages(const std::vector<ByteSpan>& pages, bool verify_checksum = true);
    // As parse, with the checksum summed as the bytes arrived: only what `sum` has not covered yet is read for it.
    static ModelFile parse_summed(const uint8_t* bytes, size_t size, RunningChecksum sum);

    const ModelConfig& config() const { return config_; }
    DType weight_type() const { return weight_type_; }
    uint64_t checksum() const { return checksum_; }
    size_t size() const { return size_; }
    const uint8_t* bytes() const { return pages_.front().data; }   // the first page: the header and tensor table
    const std::vector<ByteSpan>& pages() const { return pages_; }  // the whole file, in order
    const std::vector<TensorEntry>& tensors() const { return tensors_; }
    const TensorEntry& tensor(std::string_view name) const;  // throws Error("missing tensor NAME")
    // The tokenizer the file carries (version 3), as Hugging Face ships it; empty where it carries none.
    std::string_view tokenizer_json() const { return tokenizer_json_; }
    std::string_view tokenizer_config() const { return tokenizer_config_; }

private:
    // Checks as parse says; checksum gives the sum of the data to compare with the header's (null: not compared).
    static ModelFile read(const std::vector<ByteSpan>& pages, const std::function<uint64_t()>& checksum);

    ModelConfig config_;
    DType weight_type_ = DType::F32;
    uint64_t checksum_ = 0;
    std::vector<ByteSpan> pages_;
    size_t size_ = 0;
    std::vector<TensorEntry> tensors_;
    std::string_view tokenizer_json_, tokenizer_config_;
};

}  // namespace arcscope
