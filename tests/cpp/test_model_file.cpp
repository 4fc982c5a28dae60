// test_model_file.cpp: the .arcs loader accepts what the converter writes and rejects every malformed file with a
// message that says what is wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "arcscope/formats/model_file.h"
#include "engine_fixture.h"

using namespace arcscope;
using namespace arcscope::testing;

namespace {

std::string parse_error(const std::vector<uint8_t>& bytes, bool verify = true) {
    return error_of([&] { ModelFile::parse(bytes.data(), bytes.size(), verify); });
}

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
    put_u32(b, at, uint32_t(v));
    put_u32(b, at + 4, uint32_t(v >> 32));
}
uint64_t get_u64(const std::vector<uint8_t>& b, size_t at) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | b[at + i];
    return v;
}
size_t entry(size_t i) {
    return kModelHeaderBytes + i * kTensorEntryBytes;
}
// Table index of a tensor (file order = tensor_specs order).
size_t index_of(const std::string& name) {
    auto specs = tensor_specs(tiny_config(), DType::F32);
    for (size_t i = 0; i < specs.size(); ++i)
        if (specs[i].name == name) return i;
    return 0;
}
// After editing the table, re-seal so the structural check (not the checksum) is what fires.
void reseal(std::vector<uint8_t>& b) {
    seal_file(b.data(), b.size());
}

#define EXPECT_ERROR_HAS(bytes, text)                                         \
    do {                                                                      \
        std::string msg_ = parse_error(bytes);                                \
        EXPECT_NE(msg_.find(text), std::string::npos) << "message: " << msg_; \
    } while (0)

}  // namespace

TEST(ModelFile, ParsesWhatTheConverterWrites) {
    for (DType t : {DType::F32, DType::Q8, DType::Q16}) {
        std::vector<uint8_t> bytes = tiny_model_bytes(t);
        ModelFile f = ModelFile::parse(bytes.data(), bytes.size());
        EXPECT_EQ(f.weight_type(), t);
        EXPECT_EQ(bytes[8], t == DType::Q16 ? 2 : 1);  // the oldest version that holds the file
        EXPECT_EQ(f.config().n_layer, 2);
        EXPECT_EQ(f.config().n_vocab, 300);
        EXPECT_EQ(f.tensors().size(), 2 + 12 * 2 + 2u);
        EXPECT_EQ(bytes.size() % kDataAlign, 0u);
        for (const TensorEntry& e : f.tensors()) {
            EXPECT_EQ((e.data - bytes.data()) % kDataAlign, 0) << e.name;  // used in place, aligned
            EXPECT_LE(e.data + e.size, bytes.data() + bytes.size());
        }
        EXPECT_EQ(f.tensor("h.1.attn.c_attn.weight").rows, 192);
        EXPECT_NE(error_of([&] { f.tensor("h.9.ln_1.weight"); }).find("missing tensor h.9.ln_1.weight"),
                  std::string::npos);
    }
}

TEST(ModelFile, RejectsWrongMagic) {
    std::vector<uint8_t> b = tiny_model_bytes(DType::F32);
    b[0] = 'X';
    EXPECT_ERROR_HAS(b, "wrong magic");
    EXPECT_ERROR_HAS(std::vector<uint8_t>{}, "wrong magic");
}

TEST(ModelFile, RejectsOtherVersion) {
    std::vector<uint8_t> b = tiny_model_bytes(DType::F32);
    put_u32(b, 8, 5);
    EXPECT_ERROR_HAS(b,
                     "unsupported model file version 5 (this build reads versions 1 to 4): convert the checkpoint "
                     "again with this build's `arcscope convert`");
    put_u32(b, 8, 0);
    EXPECT_ERROR_HAS(b, "unsupported model file version 0");
    put_u32(b, 8, 2);  // a version 2 reader reads what version 1 could hold
    EXPECT_EQ(ModelFile::parse(b.data(), b.size()).weight_type(), DType::F32);

    std::vector<uint8_t> q16 = tiny_model_bytes(DType::Q16);
    put_u32(q16, 8, 1);  // version 1 had no q16
    EXPECT_ERROR_HAS(q16, "weight type q16 needs file version 2, the file says 1");
    put_u32(q16, 8, 2);
    put_u32(q16, 12, 3);  // 16-bit q16 came with version 4
    EXPECT_ERROR_HAS(q16, "weight type q16 needs file version 4, the file says 2");
    put_u32(q16, 12, 4);
    EXPECT_ERROR_HAS(q16,
                     "unknown weight type 4 (this build reads 0 = f32, 1 = q8, 2 = q16 or 3 = 16-bit q16): convert the "
                     "checkpoint again with this build's `arcscope convert`");
}

TEST(ModelFile, RejectsTruncationAnywhere) {
    std::vector<uint8_t> b = tiny_model_bytes(DType::Q8);
    // Every cut in the header and table, then a sweep through the data.
    std::vector<size_t> cuts;
    for (size_t n = 0; n < 2048 && n < b.size(); ++n) cuts.push_back(n);
    for (size_t n = 2048; n < b.size(); n += b.size() / 301) cuts.push_back(n);
    cuts.push_back(b.size() - 1);
    for (size_t n : cuts) {
        std::vector<uint8_t> cut(b.begin(), b.begin() + n);
        std::string msg = parse_error(cut);
        bool ok = msg.find(n < 8 ? "wrong magic" : "truncated") != std::string::npos;
        ASSERT_TRUE(ok) << "cut at " << n << ": " << msg;
    }
    std::vector<uint8_t> cut(b.begin(), b.begin() + b.size() / 2);
    std::string msg = parse_error(cut);
    EXPECT_NE(msg.find("truncated: header says"), std::string::npos) << msg;
    std::printf("  %zu cut points rejected; e.g. \"%s\"\n", cuts.size(), msg.c_str());
}

TEST(ModelFile, RejectsTrailingBytes) {
    std::vector<uint8_t> b = tiny_model_bytes(DType::F32);
    b.push_back(0);
    EXPECT_ERROR_HAS(b, "trailing");
}

TEST(ModelFile, RejectsOffsetsAndSizesBeyondTheFile) {
    std::vector<uint8_t> b = tiny_model_bytes(DType::F32);
    uint64_t data_size = get_u64(b, 56);
    size_t e = entry(index_of("ln_f.bias"));
    put_u64(b, e + 80, data_size);  // offset at the very end
    reseal(b);
    EXPECT_ERROR_HAS(b, "tensor ln_f.bias: bytes [");
    EXPECT_ERROR_HAS(b, "beyond the data section");

    b = tiny_model_bytes(DType::F32);
    put_u64(b, e + 80, uint64_t(1) << 62);  // an offset that would overflow offset + size
    reseal(b);
    EXPECT_ERROR_HAS(b, "beyond the data section");

    b = tiny_model_bytes(DType::F32);
    put_u64(b, e + 88, 1u << 30);  // size disagreeing with the shape
    reseal(b);
    EXPECT_ERROR_HAS(b, "tensor ln_f.bias: expected 256 bytes");

    b = tiny_model_bytes(DType::F32);
    put_u64(b, 56, get_u64(b, 56) + (uint64_t(1) << 40));  // data size that runs past any file
    EXPECT_ERROR_HAS(b, "data size");

    b = tiny_model_bytes(DType::F32);
    put_u64(b, 48, get_u64(b, 48) + 64);  // data offset moved
    EXPECT_ERROR_HAS(b, "data offset");
}

TEST(ModelFile, RejectsAbsurdDimensions) {
    struct Case {
        size_t at;
        uint32_t value;
        const char* text;
    };
    for (Case c : {Case{16, 1000000000u, "n_layer"}, Case{20, 0, "n_head = 0"}, Case{24, 65, "not divisible"},
                   Case{28, 0xFFFFFFFFu, "n_ctx"}, Case{32, 0, "n_vocab = 0"}, Case{12, 7, "unknown weight type 7"}}) {
        std::vector<uint8_t> b = tiny_model_bytes(DType::F32);
        put_u32(b, c.at, c.value);
        EXPECT_ERROR_HAS(b, c.text);
    }
    std::vector<uint8_t> b = tiny_model_bytes(DType::F32);
    put_u32(b, 24, 4096);     // n_embd
    put_u32(b, 32, 1 << 20);  // n_vocab: wte would hold 2^32 weights
    EXPECT_ERROR_HAS(b, "too large");
    b = tiny_model_bytes(DType::F32);
    float nan = std::nanf("");
    std::memcpy(&b[36], &nan, 4);
    EXPECT_ERROR_HAS(b, "norm epsilon");
    b = tiny_model_bytes(DType::F32);
    put_u32(b, 40, 1u << 31);
    EXPECT_ERROR_HAS(b, "tensor count");
}

TEST(ModelFile, RejectsBadChecksum) {
    std::vector<uint8_t> b = tiny_model_bytes(DType::Q8);
    b[b.size() / 2] ^= 0x01;
    EXPECT_ERROR_HAS(b, "checksum mismatch");
    EXPECT_EQ(parse_error(b, /*verify=*/false), "(no error)");  // only the checksum knows
}

// A file summed piece by piece as it arrives (the browser's streamed load) gives the checksum of the whole file,
// whatever the pieces' sizes, and parse_summed sums only what is left.
TEST(ModelFile, ChecksumSummedAsTheBytesArrive) {
    for (DType t : {DType::F32, DType::Q8, DType::Q16}) {
        const std::vector<uint8_t> bytes = tiny_model_bytes(t);
        const uint64_t whole = file_checksum({{bytes.data(), bytes.size()}});
        for (size_t piece : {size_t(1), size_t(7), size_t(80), size_t(333), size_t(4096), bytes.size()}) {
            RunningChecksum sum;
            for (size_t written = 0; written < bytes.size();) {
                written = std::min(bytes.size(), written + piece);
                sum.add(bytes.data(), written);
                // The sum covers the bytes after the header up to the last whole word written.
                EXPECT_EQ(sum.summed(), std::max(kModelHeaderBytes, written / 8 * 8)) << written;
            }
            EXPECT_EQ(sum.summed(), bytes.size());
            EXPECT_EQ(sum.value(), whole) << "pieces of " << piece << " bytes";
        }
        RunningChecksum half;  // the first half arrived; parse_summed sums the rest
        half.add(bytes.data(), bytes.size() / 2);
        EXPECT_EQ(ModelFile::parse_summed(bytes.data(), bytes.size(), half).checksum(), whole);
        EXPECT_EQ(ModelFile::parse_summed(bytes.data(), bytes.size(), RunningChecksum()).checksum(), whole);
    }
}

TEST(ModelFile, ChecksumSummedAsTheBytesArriveCatchesCorruption) {
    std::vector<uint8_t> b = tiny_model_bytes(DType::Q8);
    auto summed_error = [&](size_t summed_first) {
        RunningChecksum sum;
        sum.add(b.data(), summed_first);
        return error_of([&] { ModelFile::parse_summed(b.data(), b.size(), sum); });
    };
    EXPECT_EQ(summed_error(b.size() / 2), "(no error)");
    b[b.size() - 100] ^= 0x01;  // in the part parse_summed sums itself
    EXPECT_NE(summed_error(b.size() / 2).find("checksum mismatch"), std::string::npos);
    EXPECT_NE(summed_error(b.size()).find("checksum mismatch"), std::string::npos);
    b[b.size() - 100] ^= 0x01;
    b[b.size() / 4] ^= 0x01;  // in the part summed as it arrived
    EXPECT_NE(summed_error(b.size() / 2).find("checksum mismatch"), std::string::npos);
}

TEST(ModelFile, RejectsMissingRenamedAndDuplicatedTensors) {
    std::vector<uint8_t> b = tiny_model_bytes(DType::F32);
    size_t e = entry(index_of("h.1.mlp.c_fc.bias"));
    std::memcpy(&b[e], "h.1.mlp.c_fc.bias_", 18);
    reseal(b);
    EXPECT_ERROR_HAS(b, "unexpected tensor 'h.1.mlp.c_fc.bias_'");

    b = tiny_model_bytes(DType::F32);
    std::memcpy(&b[entry(index_of("h.1.ln_2.bias"))], &b[entry(index_of("h.1.ln_2.weight"))], kTensorNameBytes);
    reseal(b);
    EXPECT_ERROR_HAS(b, "appears twice");

    b = tiny_model_bytes(DType::F32);
    std::memset(&b[e], 'a', kTensorNameBytes);
    reseal(b);
    EXPECT_ERROR_HAS(b, "not NUL-terminated");
}

TEST(ModelFile, RejectsWrongShapeOrType) {
    std::vector<uint8_t> b = tiny_model_bytes(DType::F32);
    size_t e = entry(index_of("h.0.attn.c_attn.weight"));
    put_u32(b, e + 76, 63);
    reseal(b);
    EXPECT_ERROR_HAS(b, "tensor h.0.attn.c_attn.weight: expected [192, 64], got [192, 63]");

    b = tiny_model_bytes(DType::F32);
    put_u32(b, e + 64, 1);  // q8 in an f32 file
    reseal(b);
    EXPECT_ERROR_HAS(b, "tensor h.0.attn.c_attn.weight: expected type f32");
}

TEST(ModelFile, SurvivesRandomCorruption) {
    // Structural checks only (checksum off), so the corrupted table is what gets exercised: any outcome but a
    // crash or an out-of-bounds read (ASan in scripts/fuzz.sh) is fine.
    std::vector<uint8_t> good = tiny_model_bytes(DType::Q8);
    Random rng(5);
    int rejected = 0;
    for (int i = 0; i < 3000; ++i) {
        std::vector<uint8_t> b = good;
        int flips = 1 + int(rng.next_u64() % 4);
        for (int k = 0; k < flips; ++k) b[rng.next_u64() % 2048] ^= uint8_t(1u << (rng.next_u64() % 8));
        rejected += parse_error(b, false) != "(no error)";
    }
    std::printf("  3000 corrupted headers: %d rejected, the rest harmless (e.g. name padding)\n", rejected);
    EXPECT_GT(rejected, 2000);
}
