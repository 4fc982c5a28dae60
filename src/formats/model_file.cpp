// model_file.cpp: writing and validating .arcs files. Validation reads only through bounds-checked helpers and
// checks every size against the buffer before any pointer into the data is formed.
#include "arcscope/formats/model_file.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>

#include "arcscope/core/error.h"
#include "arcscope/core/little_endian.h"
#include "arcscope/kernels/quant.h"

namespace arcscope {

namespace {

// Header field offsets (see models/README.md).
enum : size_t {
    kOffMagic = 0,
    kOffVersion = 8,
    kOffWeightType = 12,
    kOffNLayer = 16,
    kOffNHead = 20,
    kOffNEmbd = 24,
    kOffNCtx = 28,
    kOffNVocab = 32,
    kOffNormEps = 36,
    kOffNTensors = 40,
    kOffQBlock = 44,
    kOffDataOffset = 48,
    kOffDataSize = 56,
    kOffChecksum = 64,
    kOffReserved = 72,
};
// Architecture record field offsets (version 3), from its start.
enum : size_t {
    kArchFamily = 0,
    kArchKvHeads = 4,
    kArchHeadDim = 8,
    kArchMlpWidth = 12,
    kArchNorm = 16,
    kArchPositions = 20,
    kArchMlp = 24,
    kArchFlags = 28,
    kArchRotaryDim = 32,
    kArchRopeScaling = 36,
    kArchRopeTheta = 40,
    kArchRopeFactor = 48,
    kArchRopeLowFreq = 56,
    kArchRopeHighFreq = 64,
    kArchRopeOriginalMax = 72,
    kArchTokenizerJson = 80,    // u64 offset in the data section, u64 size; both 0: none
    kArchTokenizerConfig = 96,  // the same for tokenizer_config.json
    kArchReserved = 112,        // zeros to the record's end
};
constexpr uint32_t kFlagParallel = 1, kFlagTied = 2, kFlagQkvBias = 4, kFlagOBias = 8, kFlagMlpBias = 16,
                   kFlagQkNorm = 32, kFlagsKnown = 63;
// Tensor entry field offsets.
enum : size_t { kEntName = 0, kEntType = 64, kEntNdim = 68, kEntShape = 72, kEntOffset = 80, kEntSize = 88 };
// The fields fill the documented sizes exactly (models/README.md): an 80-byte header, 96-byte table entries.
static_assert(kOffReserved + 8 == kModelHeaderBytes && kModelHeaderBytes == 80, "header layout");
static_assert(kEntSize + 8 == kTensorEntryBytes && kTensorEntryBytes == 96, "tensor entry layout");
static_assert(kEntType == kTensorNameBytes, "the name field ends where the type begins");

uint64_t align_up(uint64_t n, uint64_t a) {
    return (n + a - 1) / a * a;
}

// Two table entries must never alias the same bytes (each tensor owns its range).
void require_disjoint(const std::vector<TensorEntry>& tensors) {
    std::vector<const TensorEntry*> by_offset;
    for (const TensorEntry& t : tensors) by_offset.push_back(&t);
    std::sort(by_offset.begin(), by_offset.end(),
              [](const TensorEntry* a, const TensorEntry* b) { return a->offset < b->offset; });
    for (size_t i = 1; i < by_offset.size(); ++i) {
        const TensorEntry& a = *by_offset[i - 1];
        const TensorEntry& b = *by_offset[i];
        require(a.offset + a.size <= b.offset, "tensors " + a.name + " and " + b.name + " overlap: bytes [" +
                                                   std::to_string(b.offset) + ", " +
                                                   std::to_string(std::min(a.offset + a.size, b.offset + b.size)) +
                                                   ") of the data section belong to both");
    }
}

bool finite_bits(uint32_t u) {
    return (u & 0x7F800000u) != 0x7F800000u;
}

const char* nonfinite_name(uint32_t u) {
    return (u & 0x007FFFFFu) ? "NaN" : "Inf";
}

// Whether any float of `groups` runs of `run` consecutive floats, the runs `stride` bytes apart, is NaN or Inf.
// Branch-free (the compiler vectorizes it), so checking every value costs a few ms where the loader runs once.
bool any_nonfinite(const uint8_t* p, size_t groups, size_t run, size_t stride) {
    uint32_t bad = 0;
    for (size_t g = 0; g < groups; ++g)
        for (size_t i = 0; i < run; ++i) {
            uint32_t u;
            std::memcpy(&u, p + g * stride + 4 * i, 4);  // the file is little-endian, as are wasm and x86
            bad |= uint32_t((u & 0x7F800000u) == 0x7F800000u);
        }
    return bad != 0;
}

// f32 tensors: every value; q8 and q16 matrices: every block scale (the integer values are finite by construction).
// The message, with the first bad index, is worked out only on failure.
void require_finite(const TensorEntry& t) {
    const size_t n = size_t(t.size);
    if (t.type == DType::F32) {
        if (!any_nonfinite(t.data, 1, n / 4, 0)) return;
        size_t i = 0;
        while (finite_bits(load_u32(t.data + 4 * i))) ++i;
        throw Error("tensor " + t.name + " holds a non-finite value (" + nonfinite_name(load_u32(t.data + 4 * i)) +
                    ") at index " + std::to_string(i) + ": the file was written from a broken checkpoint");
    }
    const size_t record_bytes = q_format(t.type).record_bytes;
    const size_t records = n / record_bytes;
    if (!any_nonfinite(t.data, records, kQRowGroup, record_bytes)) return;  // 8 scales open each record
    size_t at = 0;  // the first bad scale, counting 8 per record
    while (finite_bits(load_u32(t.data + at / kQRowGroup * record_bytes + 4 * (at % kQRowGroup)))) ++at;
    const size_t rec = at / kQRowGroup, r = at % kQRowGroup;
    const size_t blocks = size_t(t.cols + kQBlock - 1) / kQBlock;
    const size_t row = rec / blocks * kQRowGroup + r, col = rec % blocks * kQBlock;
    throw Error("tensor " + t.name + " has a non-finite " + dtype_name(t.type) + " scale (" +
                nonfinite_name(load_u32(t.data + rec * record_bytes + 4 * r)) + ") for row " + std::to_string(row) +
                ", columns " + std::to_string(col) + "-" + std::to_string(col + kQBlock - 1) +
                ": the file was written from a broken checkpoint");
}

}  // namespace

uint32_t file_version(const ModelConfig& config, DType weight_type) {
    if (weight_type == DType::Q16Full) return 4;
    if (!config.is_plain_gpt2()) return 3;
    return weight_type == DType::Q16 ? 2 : 1;
}

DType stored_weight_type(const ModelConfig& config, DType asked) {
    return asked == DType::Q16 && !config.is_plain_gpt2() ? DType::Q16Full : asked;
}

namespace {

// Where the tensor table starts: after the header, and the architecture record in version 3.
size_t table_offset(uint32_t version) {
    return kModelHeaderBytes + (version >= 3 ? kArchRecordBytes : 0);
}

void write_arch_record(uint8_t* r, const ModelConfig& c) {
    store_u32(r + kArchFamily, uint32_t(c.arch));
    store_u32(r + kArchKvHeads, uint32_t(c.kv_heads()));
    store_u32(r + kArchHeadDim, uint32_t(c.head_dim()));
    store_u32(r + kArchMlpWidth, uint32_t(c.mlp_width()));
    store_u32(r + kArchNorm, uint32_t(c.norm));
    store_u32(r + kArchPositions, uint32_t(c.positions));
    store_u32(r + kArchMlp, uint32_t(c.mlp));
    store_u32(r + kArchFlags, (c.parallel_residual ? kFlagParallel : 0) | (c.tie_word_embeddings ? kFlagTied : 0) |
                                  (c.qkv_bias ? kFlagQkvBias : 0) | (c.o_bias ? kFlagOBias : 0) |
                                  (c.mlp_bias ? kFlagMlpBias : 0) | (c.qk_norm ? kFlagQkNorm : 0));
    store_u32(r + kArchRotaryDim, uint32_t(c.rotary_dim));
    store_u32(r + kArchRopeScaling, uint32_t(c.rope_scaling.kind));
    store_f64(r + kArchRopeTheta, c.rope_theta);
    store_f64(r + kArchRopeFactor, c.rope_scaling.factor);
    store_f64(r + kArchRopeLowFreq, c.rope_scaling.low_freq_factor);
    store_f64(r + kArchRopeHighFreq, c.rope_scaling.high_freq_factor);
    store_f64(r + kArchRopeOriginalMax, c.rope_scaling.original_max_position_embeddings);
}

// The record's fields into c (whose sizes the header gave); validate() then checks them together.
void read_arch_record(const uint8_t* r, ModelConfig& c) {
    auto small = [&](size_t off) {  // keep huge u32s from wrapping negative before validate() sees them
        const uint32_t v = load_u32(r + off);
        return v > (1u << 30) ? (1 << 30) : int(v);
    };
    c.arch = Arch(small(kArchFamily));
    c.n_kv_head = small(kArchKvHeads);
    c.d_head = small(kArchHeadDim);
    c.d_mlp = small(kArchMlpWidth);
    require(c.n_kv_head > 0 && c.d_head > 0 && c.d_mlp > 0, "architecture record: a head or MLP size is zero");
    c.norm = NormKind(small(kArchNorm));
    c.positions = Positions(small(kArchPositions));
    c.mlp = MlpKind(small(kArchMlp));
    const uint32_t flags = load_u32(r + kArchFlags);
    require((flags & ~kFlagsKnown) == 0, "architecture record: unknown flags " + std::to_string(flags));
    c.parallel_residual = flags & kFlagParallel;
    c.tie_word_embeddings = flags & kFlagTied;
    c.qkv_bias = flags & kFlagQkvBias;
    c.o_bias = flags & kFlagOBias;
    c.mlp_bias = flags & kFlagMlpBias;
    c.qk_norm = flags & kFlagQkNorm;
    c.rotary_dim = small(kArchRotaryDim);
    c.rope_scaling.kind = RopeScaling::Kind(small(kArchRopeScaling));
    c.rope_theta = load_f64(r + kArchRopeTheta);
    c.rope_scaling.factor = load_f64(r + kArchRopeFactor);
    c.rope_scaling.low_freq_factor = load_f64(r + kArchRopeLowFreq);
    c.rope_scaling.high_freq_factor = load_f64(r + kArchRopeHighFreq);
    c.rope_scaling.original_max_position_embeddings = load_f64(r + kArchRopeOriginalMax);
    for (size_t i = kArchReserved; i < kArchRecordBytes; ++i)
        require(r[i] == 0, "architecture record: reserved bytes are not zero");
}

}  // namespace

uint64_t fnv1a64_words(const uint8_t* data, size_t n, uint64_t h) {
    for (size_t i = 0; i + 8 <= n; i += 8) {
        h ^= load_u64(data + i);
        h *= 0x100000001b3ull;
    }
    return h;
}

FileLayout plan_layout(const std::vector<TensorSpec>& specs, uint32_t version, const TokenizerFiles& tokenizer) {
    require(tokenizer.empty() || version >= 3, "a model file carries a tokenizer from version 3 on");
    FileLayout layout;
    layout.data_offset = align_up(table_offset(version) + kTensorEntryBytes * specs.size(), kDataAlign);
    uint64_t at = 0;
    for (const auto& s : specs) {
        layout.offsets.push_back(at);
        at = align_up(at + s.bytes, kDataAlign);
    }
    auto region = [&](const std::string& text, const char* name) {
        require(text.size() <= kMaxTokenizerFileBytes, std::string(name) + " is " + human_bytes(text.size()) +
                                                           ", more than the " + human_bytes(kMaxTokenizerFileBytes) +
                                                           " a model file carries");
        DataRegion r{text.empty() ? 0 : at, text.size()};
        at = align_up(at + text.size(), kDataAlign);
        return r;
    };
    layout.tokenizer_json = region(tokenizer.json, "tokenizer.json");
    layout.tokenizer_config = region(tokenizer.config, "tokenizer_config.json");
    layout.data_size = at;
    return layout;
}

void write_header(uint8_t* out, const ModelConfig& c, DType weight_type, const std::vector<TensorSpec>& specs,
                  const FileLayout& layout) {
    std::memset(out, 0, layout.data_offset);
    std::memcpy(out + kOffMagic, kModelMagic, 8);
    const uint32_t version = file_version(c, weight_type);
    store_u32(out + kOffVersion, version);
    store_u32(out + kOffWeightType, uint32_t(weight_type));
    store_u32(out + kOffNLayer, c.n_layer);
    store_u32(out + kOffNHead, c.n_head);
    store_u32(out + kOffNEmbd, c.n_embd);
    store_u32(out + kOffNCtx, c.n_ctx);
    store_u32(out + kOffNVocab, c.n_vocab);
    store_f32(out + kOffNormEps, c.norm_eps);
    store_u32(out + kOffNTensors, uint32_t(specs.size()));
    store_u32(out + kOffQBlock, weight_type == DType::F32 ? 0 : kQBlock);
    store_u64(out + kOffDataOffset, layout.data_offset);
    store_u64(out + kOffDataSize, layout.data_size);
    if (version >= 3) {
        uint8_t* r = out + kModelHeaderBytes;
        write_arch_record(r, c);
        store_u64(r + kArchTokenizerJson, layout.tokenizer_json.offset);
        store_u64(r + kArchTokenizerJson + 8, layout.tokenizer_json.size);
        store_u64(r + kArchTokenizerConfig, layout.tokenizer_config.offset);
        store_u64(r + kArchTokenizerConfig + 8, layout.tokenizer_config.size);
    }
    for (size_t i = 0; i < specs.size(); ++i) {
        const TensorSpec& s = specs[i];
        uint8_t* e = out + table_offset(version) + i * kTensorEntryBytes;
        require(s.name.size() < kTensorNameBytes, "tensor name too long: " + s.name);
        std::memcpy(e + kEntName, s.name.data(), s.name.size());
        store_u32(e + kEntType, uint32_t(s.type));
        store_u32(e + kEntNdim, s.cols == 0 ? 1 : 2);
        store_u32(e + kEntShape, s.rows);
        store_u32(e + kEntShape + 4, s.cols);
        store_u64(e + kEntOffset, layout.offsets[i]);
        store_u64(e + kEntSize, s.bytes);
    }
}

void store_checksum(uint8_t* header, uint64_t checksum) {
    store_u64(header + kOffChecksum, checksum);
}

void seal_file(uint8_t* out, uint64_t file_size) {
    store_checksum(out, fnv1a64_words(out + kModelHeaderBytes, file_size - kModelHeaderBytes));
}

namespace {

// What the fixed header says, once checked on its own.
struct Header {
    uint32_t version;
    DType weight_type;
    ModelConfig config;
    uint32_t n_tensors;
    uint64_t data_offset, data_size, checksum;
    DataRegion tokenizer_json, tokenizer_config;  // version 3
};

// Phase 1: the fixed header, alone.
Header read_header(const uint8_t* bytes, size_t size) {
    require(bytes != nullptr || size == 0, "model file: no data");
    require(size >= 8 && std::memcmp(bytes, kModelMagic, 8) == 0,
            "not an arcscope model file (wrong magic; expected \"ARCSCOPE\"): convert a checkpoint with "
            "`arcscope convert`");
    require(size >= kModelHeaderBytes, "truncated: the file has " + std::to_string(size) + " bytes, less than the " +
                                           std::to_string(kModelHeaderBytes) + "-byte header");
    uint32_t version = load_u32(bytes + kOffVersion);
    require(version >= 1 && version <= kModelVersion,
            "unsupported model file version " + std::to_string(version) + " (this build reads versions 1 to " +
                std::to_string(kModelVersion) + "): convert the checkpoint again with this build's `arcscope convert`");
    uint32_t wtype = load_u32(bytes + kOffWeightType);
    require(wtype <= 3,
            "unknown weight type " + std::to_string(wtype) +
                " (this build reads 0 = f32, 1 = q8, 2 = q16 or 3 = 16-bit q16): convert the checkpoint again with "
                "this build's `arcscope convert`");
    require(version < 3 || size >= kModelHeaderBytes + kArchRecordBytes,
            "truncated: the file has " + std::to_string(size) + " bytes, less than the header and its " +
                std::to_string(kArchRecordBytes) + "-byte architecture record");

    Header h;
    h.version = version;
    h.weight_type = DType(wtype);
    auto dim = [&](size_t off) {  // keep huge u32s from wrapping negative before validate() sees them
        uint32_t v = load_u32(bytes + off);
        return v > (1u << 30) ? (1 << 30) : int(v);
    };
    h.config.n_layer = dim(kOffNLayer);
    h.config.n_head = dim(kOffNHead);
    h.config.n_embd = dim(kOffNEmbd);
    h.config.n_ctx = dim(kOffNCtx);
    h.config.n_vocab = dim(kOffNVocab);
    h.config.norm_eps = load_f32(bytes + kOffNormEps);
    if (version >= 3) {
        const uint8_t* r = bytes + kModelHeaderBytes;
        read_arch_record(r, h.config);
        h.tokenizer_json = {load_u64(r + kArchTokenizerJson), load_u64(r + kArchTokenizerJson + 8)};
        h.tokenizer_config = {load_u64(r + kArchTokenizerConfig), load_u64(r + kArchTokenizerConfig + 8)};
    }
    h.config.validate();
    // A reader of a version reads what an older one could hold; the architecture record only comes with version 3.
    require(version >= file_version(h.config, h.weight_type),
            std::string("weight type ") + dtype_name(h.weight_type) + " needs file version " +
                std::to_string(file_version(h.config, h.weight_type)) + ", the file says " + std::to_string(version));
    uint32_t q_block = load_u32(bytes + kOffQBlock);
    require(h.weight_type == DType::F32 || q_block == kQBlock,
            std::string(dtype_name(h.weight_type)) + " block size " + std::to_string(q_block) +
                " unsupported (this build uses " + std::to_string(kQBlock) + ")");
    require(load_u64(bytes + kOffReserved) == 0, "reserved header field is not zero");
    h.n_tensors = load_u32(bytes + kOffNTensors);
    h.data_offset = load_u64(bytes + kOffDataOffset);
    h.data_size = load_u64(bytes + kOffDataSize);
    h.checksum = load_u64(bytes + kOffChecksum);
    return h;
}

// Phase 2: the sizes the header declares against the config's tensors and the buffer, before trusting any offset.
void check_sizes(const Header& h, const std::vector<TensorSpec>& specs, size_t size) {
    const FileLayout expected = plan_layout(specs, h.version);
    require(h.n_tensors == specs.size(), "tensor count " + std::to_string(h.n_tensors) +
                                             " does not match the config (" + std::to_string(specs.size()) +
                                             " expected for " + std::to_string(h.config.n_layer) + " layers)");
    require(h.data_offset == expected.data_offset, "data offset " + std::to_string(h.data_offset) +
                                                       " is wrong (expected " + std::to_string(expected.data_offset) +
                                                       ")");
    require(h.data_size % kDataAlign == 0 && h.data_size < (uint64_t(1) << 40),
            "data size " + std::to_string(h.data_size) + " is invalid");
    const uint64_t declared = h.data_offset + h.data_size;
    require(size >= declared, "truncated: header says " + human_bytes(declared) + " (" + std::to_string(declared) +
                                  " bytes), file has " + human_bytes(size) + " (" + std::to_string(size) + " bytes)");
    require(size == declared, "file has " + std::to_string(size - declared) +
                                  " bytes of trailing garbage after the declared " + std::to_string(declared));
}

// Phase 3: the tensor table, each entry against the config's spec and the data section -> entries in spec order.
// The address of file bytes [offset, offset + size), which must lie within one page.
const uint8_t* locate(const std::vector<ByteSpan>& pages, uint64_t offset, uint64_t size, const std::string& name) {
    uint64_t start = 0;
    for (const ByteSpan& p : pages) {
        if (offset < start + p.size) {
            require(size <= start + p.size - offset, "tensor " + name + " spans two pages of the file");
            return p.data + (offset - start);
        }
        start += p.size;
    }
    throw Error("tensor " + name + " lies beyond the file");
}

std::vector<TensorEntry> read_tensor_table(const std::vector<ByteSpan>& pages, const Header& h,
                                           const std::vector<TensorSpec>& specs) {
    const uint8_t* bytes = pages.front().data;
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < specs.size(); ++i) index[specs[i].name] = i;
    std::vector<bool> seen(specs.size(), false);
    std::vector<TensorEntry> tensors(specs.size());
    for (uint32_t i = 0; i < h.n_tensors; ++i) {
        const uint8_t* e = bytes + table_offset(h.version) + size_t(i) * kTensorEntryBytes;
        size_t len = 0;
        while (len < kTensorNameBytes && e[kEntName + len] != 0) ++len;
        require(len < kTensorNameBytes, "tensor entry " + std::to_string(i) + ": name is not NUL-terminated");
        std::string name(reinterpret_cast<const char*>(e + kEntName), len);
        auto it = index.find(name);
        require(it != index.end(), "tensor entry " + std::to_string(i) + ": unexpected tensor '" + name + "'");
        require(!seen[it->second], "tensor " + name + " appears twice");
        seen[it->second] = true;
        const TensorSpec& spec = specs[it->second];
        uint32_t type = load_u32(e + kEntType), ndim = load_u32(e + kEntNdim);
        uint32_t d0 = load_u32(e + kEntShape), d1 = load_u32(e + kEntShape + 4);
        uint64_t offset = load_u64(e + kEntOffset), tsize = load_u64(e + kEntSize);
        require(type == uint32_t(spec.type), "tensor " + name + ": expected type " + dtype_name(spec.type) +
                                                 ", got type code " + std::to_string(type));
        uint32_t want_ndim = spec.cols == 0 ? 1 : 2;
        require(ndim == want_ndim && d0 == uint32_t(spec.rows) && (ndim == 1 ? d1 == 0 : d1 == uint32_t(spec.cols)),
                "tensor " + name + ": expected " + spec.shape_text() + ", got " +
                    (ndim == 1   ? shape_text({d0})
                     : ndim == 2 ? shape_text({d0, d1})
                                 : std::to_string(ndim) + " dimensions"));
        require(tsize == spec.bytes, "tensor " + name + ": expected " + std::to_string(spec.bytes) +
                                         " bytes, the table says " + std::to_string(tsize));
        require(offset % kDataAlign == 0,
                "tensor " + name + ": offset " + std::to_string(offset) + " is not 64-byte aligned");
        require(offset <= h.data_size && tsize <= h.data_size - offset,
                "tensor " + name + ": bytes [" + std::to_string(offset) + ", " + std::to_string(offset + tsize) +
                    ") lie beyond the data section (" + std::to_string(h.data_size) + " bytes)");
        tensors[it->second] = {
            name, spec.type, spec.rows, spec.cols, offset, tsize, locate(pages, h.data_offset + offset, tsize, name)};
    }
    for (size_t i = 0; i < specs.size(); ++i) require(seen[i], "missing tensor " + specs[i].name);
    require_disjoint(tensors);
    return tensors;
}

// Phase 3b: the tokenizer's files, like tensors: aligned, within the data section and one page, owning their bytes.
// -> their text (empty where the file carries none)
std::string_view read_region(const std::vector<ByteSpan>& pages, const Header& h, const DataRegion& r,
                             const std::string& name, std::vector<TensorEntry>& owners) {
    if (r.size == 0) {
        require(r.offset == 0, name + ": size 0 at offset " + std::to_string(r.offset) + " (none is offset 0)");
        return {};
    }
    require(r.size <= kMaxTokenizerFileBytes, name + " is " + std::to_string(r.size) + " bytes, more than the " +
                                                  human_bytes(kMaxTokenizerFileBytes) + " a model file carries");
    require(r.offset % kDataAlign == 0, name + ": offset " + std::to_string(r.offset) + " is not 64-byte aligned");
    require(r.offset <= h.data_size && r.size <= h.data_size - r.offset,
            name + ": bytes [" + std::to_string(r.offset) + ", " + std::to_string(r.offset + r.size) +
                ") lie beyond the data section (" + std::to_string(h.data_size) + " bytes)");
    const uint8_t* at = locate(pages, h.data_offset + r.offset, r.size, name);
    owners.push_back({name, DType::F32, 0, 0, r.offset, r.size, at});
    return {reinterpret_cast<const char*>(at), size_t(r.size)};
}

// Phase 4: the checksum (it reads every byte), page after page.
void require_checksum(uint64_t expected, uint64_t actual) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "checksum mismatch: header says %016llx, data gives %016llx",
                  (unsigned long long)expected, (unsigned long long)actual);
    require(actual == expected, std::string(buf) + " (the file is corrupt)");
}

}  // namespace

uint64_t file_checksum(const std::vector<ByteSpan>& pages) {
    uint64_t h = kFnvOffsetBasis;
    for (size_t i = 0; i < pages.size(); ++i) {
        const size_t skip = i == 0 ? kModelHeaderBytes : 0;
        h = fnv1a64_words(pages[i].data + skip, pages[i].size - skip, h);
    }
    return h;
}

ModelFile ModelFile::parse(const uint8_t* bytes, size_t size, bool verify_checksum) {
    return parse_pages({{bytes, size}}, verify_checksum);
}

void RunningChecksum::add(const uint8_t* file, size_t written) {
    const size_t end = written / 8 * 8;  // whole words only (the header's 80 bytes are 10 of them)
    if (end <= summed_) return;
    sum_ = fnv1a64_words(file + summed_, end - summed_, sum_);
    summed_ = end;
}

ModelFile ModelFile::parse_summed(const uint8_t* bytes, size_t size, RunningChecksum sum) {
    return read({{bytes, size}}, [&] {
        sum.add(bytes, size);
        return sum.value();
    });
}

ModelFile ModelFile::parse_pages(const std::vector<ByteSpan>& pages, bool verify_checksum) {
    if (!verify_checksum) return read(pages, nullptr);
    return read(pages, [&] { return file_checksum(pages); });
}

ModelFile ModelFile::read(const std::vector<ByteSpan>& pages, const std::function<uint64_t()>& checksum) {
    require(!pages.empty(), "model file: no data");
    size_t size = 0;
    for (const ByteSpan& p : pages) {
        require(p.size <= SIZE_MAX - size, "model file: its pages add up to more than memory can address");
        size += p.size;
    }
    const Header h = read_header(pages[0].data, pages.size() == 1 ? size : pages[0].size);
    const std::vector<TensorSpec> specs = tensor_specs(h.config, h.weight_type);
    check_sizes(h, specs, size);
    require(pages[0].size >= h.data_offset, "model file: the first page ends inside the tensor table");
    for (const ByteSpan& p : pages)
        require(p.size % 8 == 0, "model file: a page must be a whole number of 8-byte words");
    ModelFile f;
    f.pages_ = pages;
    f.size_ = size;
    f.weight_type_ = h.weight_type;
    f.config_ = h.config;
    f.checksum_ = h.checksum;
    f.tensors_ = read_tensor_table(pages, h, specs);
    std::vector<TensorEntry> owners = f.tensors_;  // every range of the data section, to check none overlap
    f.tokenizer_json_ = read_region(pages, h, h.tokenizer_json, "tokenizer.json", owners);
    f.tokenizer_config_ = read_region(pages, h, h.tokenizer_config, "tokenizer_config.json", owners);
    if (owners.size() > f.tensors_.size()) require_disjoint(owners);
    if (checksum) require_checksum(h.checksum, checksum());
    // Phase 5: the values a checksum cannot vouch for. A NaN or Inf weight would only show up later as NaN
    // attention or logits, so such a file is refused here.
    for (const TensorEntry& t : f.tensors_) require_finite(t);
    return f;
}

const TensorEntry& ModelFile::tensor(std::string_view name) const {
    for (const auto& t : tensors_)
        if (t.name == name) return t;
    throw Error("missing tensor " + std::string(name));
}

}  // namespace arcscope
