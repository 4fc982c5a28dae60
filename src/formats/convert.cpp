// convert.cpp: the streaming Hugging Face -> .arcs converter. The Conv1D transpose happens here and only here.
#include "arcscope/formats/convert.h"

#include <sys/stat.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "arcscope/core/error.h"
#include "arcscope/core/files.h"
#include "arcscope/core/json.h"
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

namespace {

const char* family_name(Arch a) {
    switch (a) {
        case Arch::gpt2:
            return "GPT-2";
        case Arch::gpt_neox:
            return "GPT-NeoX";
        case Arch::llama:
            return "Llama";
        case Arch::qwen2:
            return "Qwen2";
        case Arch::qwen3:
            return "Qwen3";
    }
    return "an unknown architecture";
}

// Buffers some checkpoints carry (causal masks, rotary frequencies), which hold nothing a forward pass reads.
bool is_buffer(Arch arch, const std::string& name) {
    if (arch == Arch::gpt2) return ends_with(name, ".attn.bias") || ends_with(name, ".attn.masked_bias");
    if (arch == Arch::gpt_neox && (ends_with(name, ".attention.bias") || ends_with(name, ".attention.masked_bias")))
        return true;
    return ends_with(name, ".rotary_emb.inv_freq");
}

// The checkpoint's head and embedding, named as its family names them (in messages about tying).
const char* head_name(Arch a) {
    return a == Arch::gpt_neox ? "embed_out.weight" : "lm_head.weight";
}
const char* embedding_name(Arch a) {
    return a == Arch::gpt2       ? "wte.weight"
           : a == Arch::gpt_neox ? "gpt_neox.embed_in.weight"
                                 : "model.embed_tokens.weight";
}

// Every tensor a checkpoint of this family holds (by Hugging Face's name; GPT-2's without "transformer.") and where
// it goes among the specs (tensor_specs' names, model_config.h).
std::map<std::string, Converter::Source> checkpoint_plan(const ModelConfig& c, const std::vector<TensorSpec>& specs) {
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < specs.size(); ++i) index[specs[i].name] = i;
    std::map<std::string, Converter::Source> plan;
    // The rows [first, first + rows) of one of ours (rows 0: all of it), in our orientation.
    auto rows = [&](const std::string& hf, const std::string& ours, uint64_t first = 0, uint64_t n = 0) {
        Converter::Source s;
        s.spec = index.at(ours);
        const TensorSpec& spec = specs[s.spec];
        s.first_row = first;
        n = n ? n : uint64_t(spec.rows);
        s.shape = spec.cols ? std::vector<uint64_t>{n, uint64_t(spec.cols)} : std::vector<uint64_t>{n};
        return &(plan[hf] = s);
    };
    auto head = [&](const std::string& hf) {  // an untied head is ours; a tied one must equal the embedding
        if (!c.tie_word_embeddings) return void(rows(hf, "lm_head.weight"));
        Converter::Source* s = rows(hf, "wte.weight");
        s->compare_only = true, s->required = false;
    };
    if (c.arch == Arch::gpt2) {  // our own names; Conv1D weights stored (in, out)
        for (const TensorSpec& spec : specs) {
            Converter::Source* s = rows(spec.name, spec.name);
            s->transpose = spec.cols != 0 && spec.name != "wte.weight" && spec.name != "wpe.weight";
            if (s->transpose) std::swap(s->shape[0], s->shape[1]);
        }
        head("lm_head.weight");
        return plan;
    }
    const uint64_t q = uint64_t(c.q_width()), kv = uint64_t(c.kv_width());
    const bool neox = c.arch == Arch::gpt_neox;
    const std::string top = neox ? "gpt_neox." : "model.";
    rows(top + (neox ? "embed_in.weight" : "embed_tokens.weight"), "wte.weight");
    for (int l = 0; l < c.n_layer; ++l) {
        const std::string p = top + "layers." + std::to_string(l) + ".", o = "h." + std::to_string(l) + ".";
        auto with_bias = [&](const std::string& hf, const std::string& ours, bool bias) {
            rows(hf + ".weight", ours + ".weight");
            if (bias) rows(hf + ".bias", ours + ".bias");
        };
        with_bias(p + "input_layernorm", o + "ln_1", c.norm == NormKind::layernorm);
        with_bias(p + "post_attention_layernorm", o + "ln_2", c.norm == NormKind::layernorm);
        if (neox) {
            rows(p + "attention.query_key_value.weight", o + "attn.c_attn.weight")->heads = c.n_head;
            if (c.qkv_bias) rows(p + "attention.query_key_value.bias", o + "attn.c_attn.bias")->heads = c.n_head;
            with_bias(p + "attention.dense", o + "attn.c_proj", c.o_bias);
            with_bias(p + "mlp.dense_h_to_4h", o + "mlp.c_fc", c.mlp_bias);
            with_bias(p + "mlp.dense_4h_to_h", o + "mlp.c_proj", c.mlp_bias);
            continue;
        }
        const std::string a = p + "self_attn.";
        for (const char* part : {"weight", "bias"}) {
            if (part == std::string("bias") && !c.qkv_bias) continue;
            const std::string ours = o + "attn.c_attn." + part;
            rows(a + "q_proj." + part, ours, 0, q);
            rows(a + "k_proj." + part, ours, q, kv);
            rows(a + "v_proj." + part, ours, q + kv, kv);
        }
        if (c.qk_norm) {
            rows(a + "q_norm.weight", o + "attn.q_norm.weight");
            rows(a + "k_norm.weight", o + "attn.k_norm.weight");
        }
        with_bias(a + "o_proj", o + "attn.c_proj", c.o_bias);
        with_bias(p + "mlp.up_proj", o + "mlp.c_fc", c.mlp_bias);
        with_bias(p + "mlp.gate_proj", o + "mlp.gate", c.mlp_bias);
        with_bias(p + "mlp.down_proj", o + "mlp.c_proj", c.mlp_bias);
    }
    rows(top + (neox ? "final_layer_norm.weight" : "norm.weight"), "ln_f.weight");
    if (c.norm == NormKind::layernorm) rows(top + "final_layer_norm.bias", "ln_f.bias");
    head(head_name(c.arch));
    return plan;
}

// A shard's name in the index: a file beside it, nothing that reaches elsewhere.
bool is_shard_file_name(const std::string& s) {
    return !s.empty() && s.find('/') == std::string::npos && s.find('\\') == std::string::npos &&
           s.find('\0') == std::string::npos && s[0] != '.' && ends_with(s, ".safetensors");
}

}  // namespace

Converter::Converter(const ModelConfig& config, DType dtype)
    : config_(config), dtype_(dtype), checkpoint_tied_(config.tie_word_embeddings) {
    config_.validate();
    // A GPT-2 file's head is always wte: an untied GPT-2 checkpoint converts when its lm_head.weight equals it.
    if (config_.arch == Arch::gpt2) config_.tie_word_embeddings = true;
    dtype_ = stored_weight_type(config_, dtype);
    specs_ = tensor_specs(config_, dtype_);
    plan_ = checkpoint_plan(config_, specs_);
    embedding_name_ = embedding_name(config_.arch);
    head_name_ = head_name(config_.arch);
}

Converter::Converter(const ModelConfig& config, DType dtype, uint64_t source_bytes) : Converter(config, dtype) {
    require(source_bytes > 0, "model.safetensors is empty (0 bytes)");
    open_file("model.safetensors", source_bytes);
}

Converter::Converter(const ModelConfig& config, DType dtype, std::string_view index_json) : Converter(config, dtype) {
    const std::string where = "model.safetensors.index.json: ";
    const Json index = Json::parse_object(index_json, "model.safetensors.index.json");
    const Json* map = index.find("weight_map");
    require(map && map->is_object() && !map->object.empty(),
            where + "needs a weight_map object (each tensor's name -> the file holding it)");
    std::set<std::string> listed;  // by the names in messages (GPT-2's without "transformer.")
    for (const auto& [name, file] : map->object) {
        require(file.is_string() && is_shard_file_name(file.string),
                where + "weight_map puts " + name + " in " +
                    (file.is_string() ? "'" + file.string + "'" : "a non-string") +
                    ", which is not the name of a .safetensors file beside it");
        weight_map_[name] = file.string;
        std::string shown;
        if (!place(name, shown)) continue;  // a buffer
        require(listed.insert(shown).second, "checkpoint has tensor " + shown + " twice");
    }
    for (const auto& [name, source] : plan_)
        require(!source.required || listed.count(name),
                "checkpoint lacks tensor " + name + " (model.safetensors.index.json's weight_map does not list it)");
    require(config_.arch != Arch::gpt2 || checkpoint_tied_ || listed.count("lm_head.weight"),
            "config.json: tie_word_embeddings false, but the checkpoint has no lm_head.weight (the LM head it "
            "describes is missing)");
    for (const auto& [name, file] : weight_map_) shard_names_.push_back(file);
    std::sort(shard_names_.begin(), shard_names_.end());
    shard_names_.erase(std::unique(shard_names_.begin(), shard_names_.end()), shard_names_.end());
    shard_done_.assign(shard_names_.size(), false);
}

void Converter::open_file(const std::string& name, uint64_t bytes) {
    file_ = name, file_bytes_ = bytes, file_fed_ = 0, file_total_ = 0, header_len_ = 0;
    header_.clear(), jobs_.clear(), job_ = 0, data_pos_ = 0, staged_.clear();
    file_open_ = true;
}

// The file being fed must have ended: all its bytes, every tensor of it converted.
void Converter::close_file() {
    const std::string which = shard_names_.empty() ? "" : file_ + ": ";
    require(file_total_ != 0, "truncated checkpoint: " + which + "the safetensors header is incomplete (" +
                                  std::to_string(file_fed_) + " bytes received)");
    require(file_fed_ == file_total_ && job_ == jobs_.size(), "truncated checkpoint: " + which + "got " +
                                                                  std::to_string(file_fed_) + " of " +
                                                                  std::to_string(file_total_) + " bytes");
}

void Converter::begin_shard(const std::string& name, uint64_t bytes) {
    require(!finished_, "converter: begin_shard() after finish()");
    require(!shard_names_.empty(), "this conversion reads one model.safetensors, not shards");
    if (file_open_) close_file();
    const auto it = std::find(shard_names_.begin(), shard_names_.end(), name);
    require(it != shard_names_.end(), "model.safetensors.index.json names no shard '" + name + "'");
    require(!shard_done_[size_t(it - shard_names_.begin())], "shard " + name + " was already read");
    shard_done_[size_t(it - shard_names_.begin())] = true;
    require(bytes > 0, name + " is empty (0 bytes)");
    open_file(name, bytes);
}

const char* Converter::stage() const {
    if (finished_) return "done";
    return file_total_ == 0 ? "header" : "tensors";
}

// Where a checkpoint tensor goes, or null for a buffer to skip; an unknown name is refused. `shown` receives its name
// in messages.
const Converter::Source* Converter::place(const std::string& name, std::string& shown) const {
    shown = config_.arch == Arch::gpt2 && name.rfind("transformer.", 0) == 0 ? name.substr(12) : name;
    if (is_buffer(config_.arch, shown)) return nullptr;
    const auto it = plan_.find(shown);
    require(it != plan_.end(), "checkpoint has an unexpected tensor '" + name + "' (not part of " +
                                   family_name(config_.arch) + " with " + config_.describe() + ")");
    return &it->second;
}

// The first header read sets out the output: a page for the header and table, then one per tensor, so each tensor
// is contiguous where a model reads it. Nothing is allocated until written.
void Converter::plan_layout_once() {
    if (!offsets_.empty()) return;
    FileLayout layout = plan_layout(specs_, file_version(config_, dtype_), tokenizer_);
    std::vector<uint64_t> page_sizes{layout.data_offset};
    for (const TensorSpec& spec : specs_) page_sizes.push_back((spec.bytes + kDataAlign - 1) / kDataAlign * kDataAlign);
    const std::pair<const DataRegion*, const std::string*> carried[] = {{&layout.tokenizer_json, &tokenizer_.json},
                                                                        {&layout.tokenizer_config, &tokenizer_.config}};
    for (const auto& [region, text] : carried)  // a page each, after the tensors
        if (region->size) page_sizes.push_back((region->size + kDataAlign - 1) / kDataAlign * kDataAlign);
    out_.reset(page_sizes);
    std::vector<uint8_t> header(layout.data_offset);
    write_header(header.data(), config_, dtype_, specs_, layout);
    out_.write(0, header.data(), header.size());
    for (const auto& [region, text] : carried)
        if (region->size)
            out_.write(layout.data_offset + region->offset, reinterpret_cast<const uint8_t*>(text->data()),
                       text->size());
    for (uint64_t off : layout.offsets) offsets_.push_back(layout.data_offset + off);
}

void Converter::carry_tokenizer(TokenizerFiles files) {
    require(offsets_.empty(), "the tokenizer's files must be given before the checkpoint's bytes");
    require(files.empty() || !config_.is_plain_gpt2(),
            "a GPT-2 model file carries no tokenizer: GPT-2's own is built in (its files stay versions 1 and 2)");
    plan_layout({}, 3, files);  // refuses an oversized file now, not after the download
    tokenizer_ = std::move(files);
}

void Converter::start(const std::vector<SafeTensor>& tensors) {
    uint64_t data_end = 0;
    std::set<std::string> in_file;
    for (const SafeTensor& t : tensors) {
        data_end = std::max(data_end, t.end);
        if (!shard_names_.empty()) {
            const auto listed = weight_map_.find(t.name);
            require(listed != weight_map_.end(),
                    "tensor " + t.name + " is not in model.safetensors.index.json's weight_map");
            require(listed->second == file_, "tensor " + t.name + " is in " + file_ +
                                                 ", but model.safetensors.index.json puts it in " + listed->second);
            in_file.insert(t.name);
        }
        std::string name;
        const Source* to = place(t.name, name);
        if (!to) continue;
        require(found_.insert(name).second, "checkpoint has tensor " + name + " twice");
        has_head_ = has_head_ || to->compare_only;
        require(t.shape == to->shape, "tensor " + name + ": expected " + shape_text(to->shape) + ", got " +
                                          shape_text(t.shape) + " (config: " + config_.describe() + ")");
        require(t.dtype != SafeDType::Other,
                "tensor " + name + ": dtype " + t.dtype_name + " is not supported (F32, F16 or BF16)");
        jobs_.push_back({t, name, *to});
    }
    if (shard_names_.empty()) {
        for (const auto& [name, source] : plan_)
            require(!source.required || found_.count(name), "checkpoint lacks tensor " + name);
        require(has_head_ || checkpoint_tied_ || config_.arch != Arch::gpt2,
                "config.json: tie_word_embeddings false, but the checkpoint has no lm_head.weight (the LM head it "
                "describes is missing)");
    } else {
        for (const auto& [name, file] : weight_map_)
            require(file != file_ || in_file.count(name),
                    "model.safetensors.index.json puts " + name + " in " + file_ + ", but its header lacks it");
    }
    for (size_t i = 1; i < jobs_.size(); ++i)
        require(jobs_[i].src.begin >= jobs_[i - 1].src.end,
                "tensors " + jobs_[i - 1].src.name + " and " + jobs_[i].src.name + " overlap in the file");
    // q8 and q16 pack rows 8 at a time: a tensor that fills part of one of ours must start and end on a group.
    if (dtype_ != DType::F32)
        for (const Job& j : jobs_) {
            const TensorSpec& spec = specs_[j.to.spec];
            if (spec.cols == 0 || j.to.transpose || j.to.compare_only) continue;
            const uint64_t n = j.to.shape[0], run = j.to.heads ? n / (3 * uint64_t(j.to.heads)) : n;
            const bool whole_end = !j.to.heads && j.to.first_row + n == uint64_t(spec.rows);
            require(j.to.first_row % kQRowGroup == 0 && (run % kQRowGroup == 0 || whole_end),
                    "tensor " + j.name + ": its rows go to " + spec.name + " in runs of " + std::to_string(run) +
                        " from row " + std::to_string(j.to.first_row) + ", which " + dtype_name(dtype_) +
                        " cannot pack (it packs rows in groups of 8): convert to f32");
        }

    const uint64_t claimed = 8 + header_len_ + data_end;
    require(claimed == file_bytes_, claimed > file_bytes_
                                        ? "truncated checkpoint: " + file_ + " is " + human_bytes(file_bytes_) + " (" +
                                              std::to_string(file_bytes_) + " bytes) but its header describes " +
                                              human_bytes(claimed) + " (" + std::to_string(claimed) + " bytes)"
                                        : "the checkpoint is longer than its safetensors header describes (" +
                                              std::to_string(claimed) + " bytes; " + file_ + " is " +
                                              std::to_string(file_bytes_) + ")");
    plan_layout_once();
    file_total_ = claimed;
    total_ += claimed;
    begin_job();
}

void Converter::begin_job() {
    staged_.clear();
    if (job_ >= jobs_.size()) return;
    const Job& j = jobs_[job_];
    const TensorSpec& spec = specs_[j.to.spec];
    const uint64_t bytes = j.src.end - j.src.begin, es = safe_dtype_bytes(j.src.dtype);
    // Embedding matrices and nn.Linear weights arrive row-major in our orientation: convert them 64 rows at a time
    // (GPT-NeoX's fused q, k, v a head's rows at a time, which land together). A Conv1D weight arrives as (in, out)
    // rows: kQBlock of them make one block column of every (out, in) row, so it is converted a block column at a time
    // (XL's c_fc: 800 KB staged, where the whole matrix would be 41 MB).
    const uint64_t row_bytes = (spec.cols == 0 ? 1 : uint64_t(j.to.transpose ? spec.rows : spec.cols)) * es;
    const uint64_t group_rows = j.to.heads       ? j.to.shape[0] / (3 * uint64_t(j.to.heads))
                                : spec.cols == 0 ? bytes / es
                                : j.to.transpose ? uint64_t(kQBlock)
                                                 : kRowsPerGroup;
    group_bytes_ = std::min(bytes, group_rows * row_bytes);
    group_first_row_ = 0;
    staged_.reserve(size_t(std::min<uint64_t>(group_bytes_, uint64_t(64) << 20)));
}

// Where a row (an element, for a vector) of the job's source lands among its spec's rows.
static uint64_t destination_row(const Converter::Source& to, uint64_t row) {
    if (to.heads) {  // [heads, (q, k, v), d] -> [(q, k, v), heads, d]
        const uint64_t H = uint64_t(to.heads), d = to.shape[0] / (3 * H);
        const uint64_t h = row / (3 * d), part = row / d % 3, i = row % d;
        row = (part * H + h) * d + i;
    }
    return to.first_row + row;
}

void Converter::flush_group() {
    const Job& j = jobs_[job_];
    const TensorSpec& spec = specs_[j.to.spec];
    const size_t es = safe_dtype_bytes(j.src.dtype);
    const size_t n = staged_.size() / es;
    const uint64_t dst = offsets_[j.to.spec];
    const bool transpose = j.to.transpose;
    // Transposed: the staged source rows are columns [first, first + cols) of every (out, in) row.
    const int rows = spec.cols == 0 ? 1 : transpose ? spec.rows : int(n / spec.cols);
    const int cols = spec.cols == 0 ? int(n) : transpose ? int(n / spec.rows) : spec.cols;
    f32_.resize(n);
    if (transpose) {
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
                transpose ? r * spec.cols + group_first_row_ + c : group_first_row_ * (spec.cols ? spec.cols : 1) + i;
            throw Error("tensor " + j.name + " holds a non-finite value (" + (std::isnan(f32_[i]) ? "NaN" : "Inf") +
                        ") at index " + std::to_string(at) +
                        (transpose ? " (in arcscope's (out, in) orientation)" : ""));
        }
    if (j.to.spec == wte_spec_) {
        uint64_t& sum = j.to.compare_only ? head_sum_ : wte_sum_;
        for (size_t i = 0; i < n; ++i) {
            uint32_t bits;
            std::memcpy(&bits, &f32_[i], 4);
            sum = (sum ^ bits) * 0x100000001b3ull;
        }
    }
    if (!j.to.compare_only) write_rows(j, dst, rows, cols);
    group_first_row_ += spec.cols == 0 ? n : transpose ? uint64_t(cols) : uint64_t(rows);
    staged_.clear();
}

// The converted group (f32_, rows x cols) into the output at the spec's data offset dst.
void Converter::write_rows(const Job& j, uint64_t dst, int rows, int cols) {
    const TensorSpec& spec = specs_[j.to.spec];
    const auto* values = reinterpret_cast<const uint8_t*>(f32_.data());
    if (j.to.transpose) {
        if (dtype_ == DType::F32) {  // a block of columns of every row
            for (int r = 0; r < rows; ++r)
                out_.write(dst + (uint64_t(r) * spec.cols + group_first_row_) * 4, values + size_t(r) * cols * 4,
                           size_t(cols) * 4);
            return;
        }
        // Packed records are (8 rows, kQBlock columns) each, row group after row group, blocks within a group: one
        // block column is its record in each row group.
        const uint64_t record = q_format(dtype_).record_bytes, blocks = uint64_t((spec.cols + kQBlock - 1) / kQBlock);
        packed_.resize(q_packed_bytes(dtype_, rows, cols));
        q_pack(dtype_, f32_.data(), rows, cols, packed_.data());
        const uint64_t block = group_first_row_ / kQBlock;
        for (uint64_t g = 0; g < uint64_t((rows + kQRowGroup - 1) / kQRowGroup); ++g)
            out_.write(dst + (g * blocks + block) * record, packed_.data() + g * record, size_t(record));
        return;
    }
    // Source rows land together (start() checked that a packed group lands on a record boundary).
    const uint64_t first = destination_row(j.to, group_first_row_);
    if (spec.cols == 0 || dtype_ == DType::F32) {
        out_.write(dst + first * (spec.cols ? spec.cols : 1) * 4, values, size_t(rows) * cols * 4);
        return;
    }
    const uint64_t record = q_format(dtype_).record_bytes, blocks = uint64_t((spec.cols + kQBlock - 1) / kQBlock);
    packed_.resize(q_packed_bytes(dtype_, rows, cols));
    q_pack(dtype_, f32_.data(), rows, cols, packed_.data());
    const uint64_t at = first / kQRowGroup * blocks * record;
    const uint64_t records = uint64_t((rows + kQRowGroup - 1) / kQRowGroup) * blocks * record;  // not q_pack's padding
    require(first % kQRowGroup == 0 && at + records <= spec.bytes,
            std::string("internal: ") + dtype_name(dtype_) + " group overruns " + spec.name);
    out_.write(dst + at, packed_.data(), size_t(records));
}

// After a job's last byte: the next job, once a tied head (if the checkpoint has one) is known to be the embedding.
void Converter::end_job() {
    if (jobs_[job_].to.spec == wte_spec_ && ++heads_summed_ == 2 && head_sum_ != wte_sum_) {
        throw Error(checkpoint_tied_
                        ? head_name_ + " differs from " + embedding_name_ +
                              ", though config.json ties them (tie_word_embeddings true): which of the two a reader "
                              "uses depends on the reader"
                        : "config.json: tie_word_embeddings false with an lm_head.weight that differs from "
                          "wte.weight is not supported (an .arcs file has one matrix for the token embedding and the "
                          "LM head)");
    }
    ++job_;
    begin_job();
}

void Converter::feed(const uint8_t* data, size_t n) {
    require(!finished_, "converter: feed() after finish()");
    require(file_open_, "converter: feed() before begin_shard() (a sharded checkpoint is fed one shard at a time)");
    while (n > 0) {
        if (file_total_ == 0) {  // still reading the 8-byte length and the JSON header
            size_t want = (header_.size() < 8 ? 8 : 8 + header_len_) - header_.size();
            size_t take = std::min(want, n);
            header_.append(reinterpret_cast<const char*>(data), take);
            data += take, n -= take, fed_ += take, file_fed_ += take;
            if (header_.size() == 8) {
                header_len_ = safetensors_header_length(reinterpret_cast<const uint8_t*>(header_.data()));
            } else if (header_.size() == 8 + header_len_) {
                start(parse_safetensors_header(std::string_view(header_).substr(8)));
                std::string().swap(header_);
            }
            continue;
        }
        require(file_fed_ + n <= file_total_, "the checkpoint is longer than its safetensors header describes (" +
                                                  std::to_string(file_total_) + " bytes)");
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
        data += take, n -= take, fed_ += take, file_fed_ += take;
    }
}

PagedBytes& Converter::finish() {
    if (!finished_) {
        require(file_open_, "truncated checkpoint: no shard of model.safetensors.index.json was read");
        close_file();
        for (size_t i = 0; i < shard_names_.size(); ++i)
            require(shard_done_[i], "truncated checkpoint: shard " + shard_names_[i] + " was not read");
        for (const auto& [name, source] : plan_)  // (each file's header and the index were checked already)
            require(!source.required || found_.count(name), "checkpoint lacks tensor " + name);
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

namespace {
uint64_t regular_file_bytes(const std::string& path) {
    struct stat info;
    require(::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode), "cannot open " + path);
    return uint64_t(info.st_size);
}

// Feeds one file to the converter in chunks; errors name the file.
void feed_file(Converter& conv, const std::string& path, std::vector<uint8_t>& chunk) {
    std::FILE* fp = std::fopen(path.c_str(), "rb");
    require(fp != nullptr, "cannot open " + path);
    try {
        size_t got;
        while ((got = std::fread(chunk.data(), 1, chunk.size(), fp)) > 0) conv.feed(chunk.data(), got);
        std::fclose(fp);
    } catch (const Error& e) {
        std::fclose(fp);
        throw Error(path + ": " + e.what());
    }
}
}  // namespace

ConvertedFile convert_checkpoint_dir(const std::string& dir, const std::string& out_path, std::optional<DType> dtype,
                                     size_t chunk_bytes) {
    const std::string config_path = dir + "/config.json", st_path = dir + "/model.safetensors",
                      index_path = dir + "/model.safetensors.index.json";
    // The same file under any name (a link, "dir/./x"): the output would replace the checkpoint it is read from.
    auto not_an_input = [&](const std::string& input) {
        require(!same_file(out_path, input), "the output " + out_path + " is the checkpoint's " + input +
                                                 ": converting would overwrite its own input (give another --out)");
    };
    for (const std::string& input : {config_path, st_path, index_path}) not_an_input(input);
    const ModelConfig config = config_from_hf_json(read_file_text(config_path));
    const DType weight_type = dtype ? *dtype : default_weight_type(config);
    // One file where there is one (as transformers prefers it), else the shards the index lists.
    struct stat info;
    const bool sharded = ::stat(st_path.c_str(), &info) != 0 && ::stat(index_path.c_str(), &info) == 0;
    std::unique_ptr<Converter> conv;
    std::vector<std::string> files;
    if (!sharded) {
        conv = std::make_unique<Converter>(config, weight_type, regular_file_bytes(st_path));
        files = {st_path};
    } else {
        try {
            conv = std::make_unique<Converter>(config, weight_type, std::string_view(read_file_text(index_path)));
        } catch (const Error& e) {
            throw Error(index_path + ": " + e.what());
        }
        for (const std::string& name : conv->shards()) {
            files.push_back(dir + "/" + name);
            not_an_input(files.back());
            regular_file_bytes(files.back());  // every shard is there before any is read
        }
    }
    TokenizerFiles tokenizer;
    std::vector<std::string> carried;
    if (!config.is_plain_gpt2())
        for (auto [name, text] :
             {std::pair{"tokenizer.json", &tokenizer.json}, std::pair{"tokenizer_config.json", &tokenizer.config}}) {
            const std::string path = dir + "/" + name;
            if (::stat(path.c_str(), &info) != 0) continue;
            *text = read_file_text(path);
            carried.push_back(name);
        }
    conv->carry_tokenizer(std::move(tokenizer));
    std::vector<uint8_t> chunk(chunk_bytes);
    for (size_t i = 0; i < files.size(); ++i) {
        if (sharded) conv->begin_shard(conv->shards()[i], regular_file_bytes(files[i]));
        feed_file(*conv, files[i], chunk);
    }
    PagedBytes* out = nullptr;
    try {
        out = &conv->finish();
    } catch (const Error& e) {
        throw Error(files.back() + ": " + e.what());
    }
    std::vector<std::pair<const uint8_t*, size_t>> parts;
    for (const ByteSpan& page : out->spans()) parts.emplace_back(page.data, page.size);
    write_file(out_path, parts);
    return {config, out->size(), weight_type, carried};
}

}  // namespace arcscope
