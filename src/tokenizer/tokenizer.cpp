// tokenizer.cpp: loading the tokenizer file, encode (pre-tokenize, then BPE per word with a cache), decode.
#include "arcscope/tokenizer/tokenizer.h"

#include <cstring>

#include "arcscope/core/error.h"
#include "arcscope/core/files.h"
#include "arcscope/core/little_endian.h"
#include "pretokenize.h"
#include "unicode_classes.h"

namespace arcscope {
namespace {

constexpr char kMagic[8] = {'A', 'R', 'C', 'S', 'B', 'P', 'E', '\0'};
constexpr uint32_t kVersion = 1;

// Bounds-checked little-endian reads from the tokenizer file.
class FileReader {
public:
    FileReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    void need(size_t n, const char* what) const {
        require(size_ - pos_ >= n, "tokenizer file: truncated in " + std::string(what) + " (file has " +
                                       std::to_string(size_) + " bytes)");
    }
    uint32_t u32(const char* what) {
        need(4, what);
        const uint32_t v = load_u32(data_ + pos_);
        pos_ += 4;
        return v;
    }
    int u16(const char* what) {
        need(2, what);
        const int v = load_u16(data_ + pos_);
        pos_ += 2;
        return v;
    }
    std::string_view bytes(size_t n, const char* what) {
        need(n, what);
        std::string_view v(reinterpret_cast<const char*>(data_ + pos_), n);
        pos_ += n;
        return v;
    }
    size_t remaining() const { return size_ - pos_; }

private:
    const uint8_t* data_;
    size_t size_, pos_ = 0;
};

}  // namespace

Tokenizer Tokenizer::from_bytes(const uint8_t* data, size_t size) {
    require(data != nullptr || size == 0, "tokenizer file: no data");
    FileReader in(data, size);
    require(size >= 8 && std::memcmp(data, kMagic, 8) == 0,
            "not a tokenizer file (expected magic \"ARCSBPE\"); make one with scripts/convert_vocab.mjs");
    in.bytes(8, "magic");
    uint32_t version = in.u32("header");
    require(version == kVersion,
            "tokenizer file: version " + std::to_string(version) + ", this build reads " + std::to_string(kVersion));
    uint32_t n_vocab = in.u32("header"), n_merges = in.u32("header"), n_special = in.u32("header");
    require(n_vocab < 0xFFFF && uint64_t(n_vocab) == 256ull + n_merges + n_special,
            "tokenizer file: n_vocab " + std::to_string(n_vocab) + " is not 256 + " + std::to_string(n_merges) +
                " merges + " + std::to_string(n_special) + " special tokens (or exceeds 65534)");
    in.need(512 + size_t(n_merges) * 4, "byte table and merges");

    Tokenizer t;
    t.offsets_.reserve(n_vocab + 1);
    t.offsets_.push_back(0);
    // 1. ids 0..255: one byte each, in the order the byte table gives
    int byte_of_id[256];
    std::fill(std::begin(byte_of_id), std::end(byte_of_id), -1);
    for (int b = 0; b < 256; ++b) {
        int id = in.u16("byte table");
        require(id < 256 && byte_of_id[id] < 0, "tokenizer file: byte table is not a permutation of ids 0..255");
        byte_of_id[id] = b;
        t.byte_token_[b] = id;
    }
    for (int id = 0; id < 256; ++id) {
        t.bytes_ += char(byte_of_id[id]);
        t.offsets_.push_back(uint32_t(t.bytes_.size()));
    }
    // 2. id 256 + r: merge r of (left, right), both made earlier
    t.merges_.reserve(n_merges);
    for (uint32_t r = 0; r < n_merges; ++r) {
        int merged = int(256 + r), left = in.u16("merges"), right = in.u16("merges");
        require(left < merged && right < merged,
                "tokenizer file: merge " + std::to_string(r) + " uses a token that does not exist yet");
        t.merges_.add(left, right, merged);
        t.bytes_ += t.token_bytes(left);
        t.bytes_ += t.token_bytes(right);
        t.offsets_.push_back(uint32_t(t.bytes_.size()));
    }
    // 3. special tokens, stored as text
    for (uint32_t k = 0; k < n_special; ++k) {
        uint32_t id = in.u32("special tokens"), length = in.u32("special tokens");
        require(id == 256 + n_merges + k, "tokenizer file: special token " + std::to_string(k) + " has id " +
                                              std::to_string(id) + ", expected " + std::to_string(256 + n_merges + k));
        std::string_view text = in.bytes(length, "special tokens");
        if (text == "<|endoftext|>") t.eot_id_ = int(id);
        t.bytes_ += text;
        t.offsets_.push_back(uint32_t(t.bytes_.size()));
    }
    require(in.remaining() == 0, "tokenizer file: " + std::to_string(in.remaining()) + " unexpected bytes at the end");
    require(t.eot_id_ >= 0, "tokenizer file: no <|endoftext|> token");
    return t;
}

Tokenizer Tokenizer::load(const std::string& path) {
    std::unique_ptr<AlignedBytes> data;
    try {
        data = read_file_aligned(path);
    } catch (const Error& e) {
        throw Error(std::string(e.what()) + " (the tokenizer file: build it with ./scripts/build.sh native)");
    }
    try {
        return from_bytes(data->data, data->size);
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
}

std::vector<int> Tokenizer::encode(std::string_view text) const {
    std::vector<int> ids;
    encode_append(text, ids);
    return ids;
}

void Tokenizer::encode_append(std::string_view text, std::vector<int>& ids) const {
    std::string repaired;
    if (!is_valid_utf8(text)) {
        repaired = repair_utf8(text);
        text = repaired;
    }
    ids.reserve(ids.size() + text.size() / 4 + 1);
    Pretokenizer words(text);
    std::string_view word;
    while (words.next(word)) encode_word(word, ids);
}

void Tokenizer::encode_word(std::string_view word, std::vector<int>& ids) const {
    if (word.size() == 1) {
        ids.push_back(byte_token_[static_cast<unsigned char>(word[0])]);
        return;
    }
    const bool cacheable = word.size() <= WordCache::kMaxWord;
    if (cacheable && cache_.lookup(word, ids)) return;
    scratch_.clear();
    for (unsigned char c : word) scratch_.push_back(byte_token_[c]);
    bpe_merge(merges_, scratch_);
    ids.insert(ids.end(), scratch_.begin(), scratch_.end());
    if (cacheable) cache_.insert(word, scratch_.data(), scratch_.size());
}

void Tokenizer::check_id(int id) const {
    require(id >= 0 && id < vocab_size(),
            "token id " + std::to_string(id) + " is out of range [0, " + std::to_string(vocab_size()) + ")");
}

std::string_view Tokenizer::token_bytes(int id) const {
    check_id(id);
    return std::string_view(bytes_).substr(offsets_[id], offsets_[id + 1] - offsets_[id]);
}

std::string Tokenizer::decode(const std::vector<int>& ids) const {
    std::string out;
    for (int id : ids) check_id(id);
    for (int id : ids) out += token_bytes(id);
    return out;
}

std::string Tokenizer::token_text(int id) const {
    return repair_utf8(token_bytes(id));
}

int only_token(const std::vector<int>& ids, std::string_view text, const std::string& what) {
    require(ids.size() == 1, what + " '" + std::string(text) + "' is " + std::to_string(ids.size()) +
                                 " tokens; it must be exactly one (mind the leading space: ' Mary')");
    return ids[0];
}

int Tokenizer::single_token(std::string_view text, const std::string& what) const {
    return only_token(encode(text), text, what);
}

std::vector<TokenSpan> Tokenizer::token_spans(const std::vector<int>& ids) const {
    std::vector<std::string> pieces;
    pieces.reserve(ids.size());
    for (int id : ids) {
        check_id(id);
        pieces.emplace_back(token_bytes(id));
    }
    return spans_of_pieces(pieces);
}

}  // namespace arcscope
