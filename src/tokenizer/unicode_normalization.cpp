// unicode_normalization.cpp: decompose (tables; Hangul by arithmetic), put marks in canonical order, and for the
// composed forms compose again (UAX #15's algorithm: a mark joins the last starter unless a mark of the same or a
// higher class, or a starter, stands between them).
#include "unicode_normalization.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "arcscope/core/utf8.h"

namespace arcscope {
namespace {

struct Decomposition {
    uint32_t cp, offset, length;  // into the table's pool
};
struct CombiningClassRange {
    uint32_t first, last;
    uint8_t rank;  // order among the non-zero canonical combining classes (the numbers themselves do not matter)
};
struct Composition {
    uint32_t first, second, composite;
};
#include "unicode_normalization.inc"  // build/*/generated/

constexpr uint32_t kHangulFirst = 0xAC00, kHangulCount = 11172;
constexpr uint32_t kLeadFirst = 0x1100, kVowelFirst = 0x1161, kTrailFirst = 0x11A7;
constexpr uint32_t kVowelCount = 21, kTrailCount = 28, kLeadVowelCount = kVowelCount * kTrailCount;

template <size_t N>
const Decomposition* find_decomposition(const Decomposition (&table)[N], uint32_t cp) {
    auto it = std::lower_bound(std::begin(table), std::end(table), cp,
                               [](const Decomposition& d, uint32_t c) { return d.cp < c; });
    return it != std::end(table) && it->cp == cp ? it : nullptr;
}

uint8_t combining_rank(uint32_t cp) {
    if (cp < 0x300) return 0;
    auto it = std::upper_bound(std::begin(kCombiningClasses), std::end(kCombiningClasses), cp,
                               [](uint32_t c, const CombiningClassRange& r) { return c < r.first; });
    if (it == std::begin(kCombiningClasses)) return 0;
    --it;
    return cp <= it->last ? it->rank : 0;
}

void decompose(uint32_t cp, bool compatibility, std::vector<uint32_t>& out) {
    if (cp >= kHangulFirst && cp < kHangulFirst + kHangulCount) {
        const uint32_t s = cp - kHangulFirst;
        out.push_back(kLeadFirst + s / kLeadVowelCount);
        out.push_back(kVowelFirst + (s % kLeadVowelCount) / kTrailCount);
        if (s % kTrailCount) out.push_back(kTrailFirst + s % kTrailCount);
        return;
    }
    const Decomposition* d = compatibility ? find_decomposition(kCompatibility, cp) : nullptr;
    const uint32_t* pool = kCompatibilityPool;
    if (!d) {
        d = find_decomposition(kCanonical, cp);
        pool = kCanonicalPool;
    }
    if (!d) {
        out.push_back(cp);
        return;
    }
    out.insert(out.end(), pool + d->offset, pool + d->offset + d->length);
}

uint32_t compose_pair(uint32_t first, uint32_t second) {  // 0: they do not compose
    if (first >= kLeadFirst && first < kLeadFirst + 19 && second >= kVowelFirst && second < kVowelFirst + kVowelCount)
        return kHangulFirst + ((first - kLeadFirst) * kVowelCount + (second - kVowelFirst)) * kTrailCount;
    if (first >= kHangulFirst && first < kHangulFirst + kHangulCount && (first - kHangulFirst) % kTrailCount == 0 &&
        second > kTrailFirst && second < kTrailFirst + kTrailCount)
        return first + (second - kTrailFirst);
    auto it = std::lower_bound(std::begin(kCompositions), std::end(kCompositions), std::make_pair(first, second),
                               [](const Composition& c, const std::pair<uint32_t, uint32_t>& key) {
                                   return c.first != key.first ? c.first < key.first : c.second < key.second;
                               });
    return it != std::end(kCompositions) && it->first == first && it->second == second ? it->composite : 0;
}

// Stable sort of each run of non-starters by class (canonical ordering).
void reorder(std::vector<uint32_t>& cps, std::vector<uint8_t>& ranks) {
    for (size_t i = 0; i < cps.size();) {
        if (ranks[i] == 0) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < cps.size() && ranks[j] != 0) ++j;
        for (size_t a = i + 1; a < j; ++a)  // insertion sort: runs are a few marks long
            for (size_t b = a; b > i && ranks[b - 1] > ranks[b]; --b) {
                std::swap(ranks[b - 1], ranks[b]);
                std::swap(cps[b - 1], cps[b]);
            }
        i = j;
    }
}

void compose(std::vector<uint32_t>& cps, const std::vector<uint8_t>& ranks) {
    size_t out = 0;
    long starter = -1;      // index in the output of the last starter
    uint8_t last_rank = 0;  // class of the last character written after it
    for (size_t i = 0; i < cps.size(); ++i) {
        const uint32_t cp = cps[i];
        const uint8_t rank = ranks[i];
        if (starter >= 0) {
            const bool adjacent = size_t(starter) + 1 == out;
            if (adjacent || (last_rank != 0 && last_rank < rank)) {
                if (uint32_t composite = compose_pair(cps[starter], cp)) {
                    cps[starter] = composite;
                    continue;
                }
            }
        }
        if (rank == 0) starter = long(out);
        last_rank = rank;
        cps[out++] = cp;
    }
    cps.resize(out);
}

}  // namespace

std::string normalize(std::string_view text, NormalForm form) {
    const uint32_t unchanged_below = kUnchangedBelow[int(form)];
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = s + text.size();
    bool unchanged = true;
    for (size_t i = 0, len = 0; i < text.size() && unchanged; i += len)
        unchanged = (s[i] < 0x80 ? (len = 1, uint32_t(s[i])) : decode_utf8(s + i, end, len)) < unchanged_below;
    if (unchanged) return std::string(text);

    const bool compatibility = form == NormalForm::NFKC || form == NormalForm::NFKD;
    std::vector<uint32_t> cps;
    cps.reserve(text.size());
    for (size_t i = 0, len = 0; i < text.size(); i += len) decompose(decode_utf8(s + i, end, len), compatibility, cps);
    std::vector<uint8_t> ranks(cps.size());
    for (size_t i = 0; i < cps.size(); ++i) ranks[i] = combining_rank(cps[i]);
    reorder(cps, ranks);
    if (form == NormalForm::NFC || form == NormalForm::NFKC) compose(cps, ranks);
    std::string out;
    out.reserve(text.size());
    for (uint32_t cp : cps) append_utf8(out, cp);
    return out;
}

const char* normalization_unicode_version() {
    return kNormalizationUnicodeVersion;
}

}  // namespace arcscope
