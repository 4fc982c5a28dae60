// convert.cpp: the streaming Hugging Face -> .arcs converter. The Conv1D transpose happens here and only here.
#include "arcscope/formats/convert.h"

#include <sys/stat.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

#include "arcscope/core/error.h"
#include "arcscope/core/files.h"
#include "arcscope/core/sizes.h"
#include "arcscope/formats/default_format.h"
#include "arcscope/formats/model_file.h"
#include "arcscope/kernels/quant.h"

namespace arcscope {

namespace {
constexpr uint64_t kRowsPerGroup = 64;  // a multiple of kQRowGroup whose packed size is a multiple of 64 bytes
static_assert(kRowsPerGroup % kQRowGroup == 0 && kRowsPerGroup / kQRowGroup * kQ8.record_bytes % kQAlign == 0 &&
                  kRowsPerGroup / kQRowGroup * kQ16.record_bytes % kQAlign == 0,
              "row groups must hold whole records and end on q_pack's 64-byte padding");

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
}  // namespace

void PagedBytes::reset(const std::vector<uint64_t>& page_sizes) {
    starts_.clear(), sizes_.clear(), pages_.clear();
    uint64_t total = 0;
    for (uint64_t n : page_sizes) {
        require(n % 8 == 0, "internal: a page of the converted file is not a whole number of 8-byte words");
        starts_.push_back(total);
        sizes_.push_back(buffer_bytes("a tensor of the converted model file", n));
        total += n;
    }
    size_ = buffer_bytes("the converted model file", total), allocated_ = 0;
    pages_.resize(sizes_.size());
}

uint8_t* PagedBytes::touch(size_t i) {
    if (!pages_[i]) {
        pages_[i] = std::make_unique<AlignedBytes>(sizes_[i]);
        std::memset(pages_[i]->data, 0, sizes_[i]);
        allocated_ += sizes_[i];
    }
    return pages_[i]->data;
}

const uint8_t* PagedBytes::page(size_t i) {
    return touch(i);
}

void PagedBytes::release(size_t i) {
    if (pages_[i]) allocated_ -= sizes_[i];
    pages_[i].reset();
}

void PagedBytes::write(uint64_t offset, const uint8_t* data, size_t n) {
    require(offset <= size_ && n <= size_ - offset, "internal: a write past the converted file's end");
    size_t i = size_t(std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin()) - 1;
    while (n > 0) {
        const size_t at = size_t(offset - starts_[i]), take = std::min(n, sizes_[i] - at);
        std::memcpy(touch(i) + at, data, take);
        offset += take, data += take, n -= take, ++i;
    }
}

std::vector<ByteSpan> PagedBytes::spans() {
    std::vector<ByteSpan> out;
    for (size_t i = 0; i < pages_.size(); ++i) out.push_back({page(i), sizes_[i]});
    return out;
}

std::vector<uint8_t> PagedBytes::to_vector() {
    std::vector<uint8_t> out(buffer_bytes("the converted model file", size_));
    for (size_t i = 0; i < pages_.size(); ++i) std::memcpy(out.data() + starts_[i], page(i), sizes_[i]);
    return out;
}

Converter::Converter(const ModelConfig& config, DType dtype, uint64_t source_bytes)
    : config_(config), dtype_(dtype), checkpoint_tied_(config.tie_word_embeddings), source_bytes_(source_bytes) {
    config_.validate();
    // A GPT-2 file's head is always wte: an untied GPT-2 checkpoint converts when its lm_head.weight equals it.
    if (config_.arch == Arch::gpt2) config_.tie_word_embeddings = true;
    require(source_bytes_ > 0, "model.safetensors is empty (0 bytes)");
    specs_ = tensor_specs(config_, dtype_);
}

const char* Converter::stage() const {
    if (finished_) return "done";
    return total_ == 0 ? "header" : "tensors";
}

// The shape Hugging Face stores for one of our tensors; Conv1D weights are (in, out), ours (out, in).
std::vector<uint64_t> Converter::hf_shape(const TensorSpec& spec, bool& transpose) const {
    transpose = spec.cols != 0 && spec.name != "wte.weight" && spec.name != "wpe.weight";
    if (spec.cols == 0) return {uint64_t(spec.rows)};
    if (transpose) return {uint64_t(spec.cols), uint64_t(spec.rows)};
    return {uint64_t(spec.rows), uint64_t(spec.cols)};
}

void Converter::start(const std::vector<SafeTensor>& tensors) {
    std::map<std::string, size_t> want;
    for (size_t i = 0; i < specs_.size(); ++i) want[specs_[i].name] = i;
    wte_spec_ = want.at("wte.weight");
    std::vector<bool> found(specs_.size(), false);
    uint64_t data_end = 0;
    for (const SafeTensor& t : tensors) {
        data_end = std::max(data_end, t.end);
        std::string name = t.name.rfind("transformer.", 0) == 0 ? t.name.substr(12) : t.name;
        // Causal-mask buffers carry nothing we need.
        if (ends_with(name, ".attn.bias") || ends_with(name, ".attn.masked_bias")) continue;
        if (name == "lm_head.weight") {  // nn.Linear (vocab, embd): wte's orientation
            require(!has_head_, "checkpoint has tensor lm_head.weight twice");
            const std::vector<uint64_t> expected{uint64_t(config_.n_vocab), uint64_t(config_.n_embd)};
            require(t.shape == expected, "tensor lm_head.weight: expected " + shape_text(expected) + ", got " +
                                             shape_text(t.shape) + " (config: " + config_.describe() + ")");
            require(t.dtype != SafeDType::Other,
                    "tensor lm_head.weight: dtype " + t.dtype_name + " is not supported (F32, F16 or BF16)");
            jobs_.push_back({t, wte_spec_, false, true});
            has_head_ = true;
            continue;
        }
        auto it = want.find(name);
        require(it != want.end(), "checkpoint has an unexpected tensor '" + t.name + "' (not part of GPT-2 with " +
                                      config_.describe() + ")");
        require(!found[it->second], "checkpoint has tensor " + name + " twice");
        found[it->second] = true;
        const TensorSpec& spec = specs_[it->second];
        bool transpose = false;
        std::vector<uint64_t> expected = hf_shape(spec, transpose);
        require(t.shape == expected, "tensor " + name + ": expected " + shape_text(expected) + ", got " +
                                         shape_text(t.shape) + " (config: " + config_.describe() + ")");
        require(t.dtype != SafeDType::Other,
                "tensor " + name + ": dtype " + t.dtype_name + " is not supported (F32, F16 or BF16)");
        jobs_.push_back({t, it->second, transpose});
    }
    for (size_t i = 0; i < specs_.size(); ++i) require(found[i], "checkpoint lacks tensor " + specs_[i].name);
    require(has_head_ || checkpoint_tied_,
            "config.json: tie_word_embeddings false, but the checkpoint has no lm_head.weight (the LM head it "
            "describes is missing)");
    for (size_t i = 1; i < jobs_.size(); ++i)
        require(jobs_[i].src.begin >= jobs_[i - 1].src.end,
                "tensors " + jobs_[i - 1].src.name + " and " + jobs_[i].src.name + " overlap in the file");

    const uint64_t claimed = 8 + header_len_ + data_end;
    require(claimed == source_bytes_,
            claimed > source_bytes_
                ? "truncated checkpoint: model.safetensors is " + human_bytes(source_bytes_) + " (" +
                      std::to_string(source_bytes_) + " bytes) but its header describes " + human_bytes(claimed) +
                      " (" + std::to_string(claimed) + " bytes)"
                : "the checkpoint is longer than its safetensors header describes (" + std::to_string(claimed) +
                      " bytes; model.safetensors is " + std::to_string(source_bytes_) + ")");
    // A page for the header and table, then one per tensor, so each tensor is contiguous where a model reads it.
    FileLayout layout = plan_layout(specs_, file_version(config_, dtype_));
    std::vector<uint64_t> page_sizes{layout.data_offset};
    for (size_t i = 0; i < specs_.size(); ++i)
        page_sizes.push_back((i + 1 < specs_.size() ? layout.offsets[i + 1] : layout.data_size) - layout.offsets[i]);
    out_.reset(page_sizes);
    std::vector<uint8_t> header(layout.data_offset);
    write_header(header.data(), config_, dtype_, specs_, layout);
    out_.write(0, header.data(), header.size());
    for (uint64_t off : layout.offsets) offsets_.push_back(layout.data_offset + off);
    total_ = claimed;
    begin_job();
}

void Converter::begin_job() {
    staged_.clear();
    if (job_ >= jobs_.size()) return;
    const Job& j = jobs_[job_];
    const TensorSpec& spec = specs_[j.spec];
    uint64_t bytes = j.src.end - j.src.begin;
    // Embedding matrices arrive row-major in our orientation: convert them 64 rows at a time. A Conv1D weight
    // arrives as (in, out) rows: kQBlock of them make one block column of every (out, in) row, so it is converted a
    // block column at a time (XL's c_fc: 800 KB staged, where the whole matrix would be 41 MB).
    const uint64_t row_bytes = uint64_t(j.transpose ? spec.rows : spec.cols) * safe_dtype_bytes(j.src.dtype);
    group_bytes_ = spec.cols == 0 ? bytes : std::min(bytes, (j.transpose ? kQBlock : kRowsPerGroup) * row_bytes);
    group_first_row_ = 0;
    staged_.reserve(size_t(std::min<uint64_t>(group_bytes_, uint64_t(64) << 20)));
}

void Converter::flush_group() {
    const Job& j = jobs_[job_];
    const TensorSpec& spec = specs_[j.spec];
    const size_t es = safe_dtype_bytes(j.src.dtype);
    const size_t n = staged_.size() / es;
    const uint64_t dst = offsets_[j.spec];
    // Transposed: the staged source rows are columns [first, first + cols) of every (out, in) row.
    const int rows = spec.cols == 0 ? 1 : j.transpose ? spec.rows : int(n / spec.cols);
    const int cols = spec.cols == 0 ? int(n) : j.transpose ? int(n / spec.rows) : spec.cols;
    f32_.resize(n);
    if (j.transpose) {
        std::vector<float> row(spec.rows);
        for (int i = 0; i < cols; ++i) {
            safe_to_f32(j.src.dtype, staged_.data() + size_t(i) * spec.rows * es, spec.rows, row.data());
            for (int o = 0; o < spec.rows; ++o) f32_[size_t(o) * cols + i] = row[o];
        }
    } else {
        safe_to_f32(j.src.dtype, staged_.data(), n, f32_.data());
    }
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(f32_[i])) {
            const uint64_t r = i / cols, c = i % cols;
            const uint64_t at =
                j.transpose ? r * spec.cols + group_first_row_ + c : group_first_row_ * (spec.cols ? spec.cols : 1) + i;
            throw Error("tensor " + (j.compare_only ? std::string("lm_head.weight") : spec.name) +
                        " holds a non-finite value (" + (std::isnan(f32_[i]) ? "NaN" : "Inf") + ") at index " +
                        std::to_string(at) + (j.transpose ? " (in arcscope's (out, in) orientation)" : ""));
        }
    if (j.spec == wte_spec_) {
        uint64_t& sum = j.compare_only ? head_sum_ : wte_sum_;
        for (size_t i = 0; i < n; ++i) {
            uint32_t bits;
            std::memcpy(&bits, &f32_[i], 4);
            sum = (sum ^ bits) * 0x100000001b3ull;
        }
        if (j.compare_only) {  // read and summed, never written
            group_first_row_ += uint64_t(rows);
            staged_.clear();
            return;
        }
    }

    if (spec.cols == 0 || (dtype_ == DType::F32 && !j.transpose)) {
        uint64_t at = group_first_row_ * (spec.cols ? spec.cols : 1) * 4;
        out_.write(dst + at, reinterpret_cast<const uint8_t*>(f32_.data()), n * 4);
    } else if (dtype_ == DType::F32) {  // a block of columns of every row
        for (int r = 0; r < rows; ++r)
            out_.write(dst + (uint64_t(r) * spec.cols + group_first_row_) * 4,
                       reinterpret_cast<const uint8_t*>(f32_.data() + size_t(r) * cols), size_t(cols) * 4);
    } else {
        // Packed records are (8 rows, kQBlock columns) each, row group after row group, blocks within a group.
        const uint64_t record = q_format(dtype_).record_bytes;
        const uint64_t blocks = uint64_t((spec.cols + kQBlock - 1) / kQBlock);
        const size_t packed = q_packed_bytes(dtype_, rows, cols);
        packed_.resize(packed);
        q_pack(dtype_, f32_.data(), rows, cols, packed_.data());
        if (!j.transpose) {
            const uint64_t at = group_first_row_ / kQRowGroup * blocks * record;
            require(at + packed <= spec.bytes,
                    std::string("internal: ") + dtype_name(dtype_) + " group overruns " + spec.name);
            out_.write(dst + at, packed_.data(), packed);
        } else {  // one block column: its record in each row group
            const uint64_t block = group_first_row_ / kQBlock;
            for (uint64_t g = 0; g < uint64_t((rows + kQRowGroup - 1) / kQRowGroup); ++g)
                out_.write(dst + (g * blocks + block) * record, packed_.data() + g * record, size_t(record));
        }
    }
    group_first_row_ += spec.cols == 0 ? 0 : j.transpose ? uint64_t(cols) : uint64_t(rows);
    staged_.clear();
}

// After a job's last byte: the next job, once the LM head (if the checkpoint has one) is known to be wte.
void Converter::end_job() {
    if (jobs_[job_].spec == wte_spec_ && ++heads_summed_ == 2 && head_sum_ != wte_sum_) {
        throw Error(checkpoint_tied_
                        ? "lm_head.weight differs from wte.weight, though config.json ties them "
                          "(tie_word_embeddings true): which of the two a reader uses depends on the reader"
                        : "config.json: tie_word_embeddings false with an lm_head.weight that differs from "
                          "wte.weight is not supported (an .arcs file has one matrix for the token embedding and the "
                          "LM head)");
    }
    ++job_;
    begin_job();
}

void Converter::feed(const uint8_t* data, size_t n) {
    require(!finished_, "converter: feed() after finish()");
    while (n > 0) {
        if (total_ == 0) {  // still reading the 8-byte length and the JSON header
            size_t want = (header_.size() < 8 ? 8 : 8 + header_len_) - header_.size();
            size_t take = std::min(want, n);
            header_.append(reinterpret_cast<const char*>(data), take);
            data += take, n -= take, fed_ += take;
            if (header_.size() == 8) {
                header_len_ = safetensors_header_length(reinterpret_cast<const uint8_t*>(header_.data()));
            } else if (header_.size() == 8 + header_len_) {
                start(parse_safetensors_header(std::string_view(header_).substr(8)));
                std::string().swap(header_);
            }
            continue;
        }
        require(fed_ + n <= total_, "the checkpoint is longer than its safetensors header describes (" +
                                        std::to_string(total_) + " bytes)");
        size_t take = n;
        if (job_ < jobs_.size()) {
            const Job& j = jobs_[job_];
            if (data_pos_ < j.src.begin) {
                take = size_t(std::min<uint64_t>(n, j.src.begin - data_pos_));  // skipped bytes
            } else {
                take = size_t(std::min<uint64_t>({n, j.src.end - data_pos_, group_bytes_ - staged_.size()}));
                staged_.insert(staged_.end(), data, data + take);
            }
            data_pos_ += take;
            if (data_pos_ > j.src.begin || data_pos_ == j.src.end) {
                if (staged_.size() == group_bytes_ || data_pos_ == j.src.end) flush_group();
                if (data_pos_ == j.src.end) end_job();
            }
        } else {
            data_pos_ += take;  // trailing tensors we skip
        }
        data += take, n -= take, fed_ += take;
    }
}

PagedBytes& Converter::finish() {
    require(total_ != 0,
            "truncated checkpoint: the safetensors header is incomplete (" + std::to_string(fed_) + " bytes received)");
    require(fed_ == total_ && job_ == jobs_.size(),
            "truncated checkpoint: got " + std::to_string(fed_) + " of " + std::to_string(total_) + " bytes");
    if (!finished_) {
        std::vector<uint8_t>().swap(staged_), std::vector<float>().swap(f32_), std::vector<uint8_t>().swap(packed_);
        // The checksum runs over the pages in order: each is a whole number of 8-byte words (64-byte layout).
        static_assert(kDataAlign % 8 == 0 && kModelHeaderBytes % 8 == 0, "checksum words span pages");
        const uint64_t h = file_checksum(out_.spans());
        uint8_t header[kModelHeaderBytes];
        std::memcpy(header, out_.page(0), kModelHeaderBytes);
        store_checksum(header, h);
        out_.write(0, header, kModelHeaderBytes);
    }
    finished_ = true;
    return out_;
}

ConvertedFile convert_checkpoint_dir(const std::string& dir, const std::string& out_path, std::optional<DType> dtype,
                                     size_t chunk_bytes) {
    const std::string config_path = dir + "/config.json", st_path = dir + "/model.safetensors";
    // The same file under any name (a link, "dir/./x"): the output would replace the checkpoint it is read from.
    for (const std::string& input : {config_path, st_path})
        require(!same_file(out_path, input), "the output " + out_path + " is the checkpoint's " + input +
                                                 ": converting would overwrite its own input (give another --out)");
    ModelConfig config = config_from_hf_json(read_file_text(config_path));
    const DType weight_type = dtype ? *dtype : default_weight_type(config);
    struct stat info;
    require(::stat(st_path.c_str(), &info) == 0 && S_ISREG(info.st_mode), "cannot open " + st_path);
    std::FILE* fp = std::fopen(st_path.c_str(), "rb");
    require(fp != nullptr, "cannot open " + st_path);
    std::unique_ptr<Converter> conv;
    try {
        conv = std::make_unique<Converter>(config, weight_type, uint64_t(info.st_size));
    } catch (...) {
        std::fclose(fp);
        throw;
    }
    std::vector<uint8_t> chunk(chunk_bytes);
    try {
        size_t got;
        while ((got = std::fread(chunk.data(), 1, chunk.size(), fp)) > 0) conv->feed(chunk.data(), got);
        std::fclose(fp);
        fp = nullptr;
        conv->finish();
    } catch (const Error& e) {
        if (fp) std::fclose(fp);
        throw Error(st_path + ": " + e.what());
    }
    PagedBytes& out = conv->finish();
    std::vector<std::pair<const uint8_t*, size_t>> parts;
    for (const ByteSpan& page : out.spans()) parts.emplace_back(page.data, page.size);
    write_file(out_path, parts);
    return {out.size(), weight_type};
}

}  // namespace arcscope
