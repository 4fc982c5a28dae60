// unicode_classes.cpp: the code point classes (ranges generated at build time).
#include "unicode_classes.h"

#include <algorithm>
#include <array>

namespace arcscope {
namespace {

struct ClassRange {
    uint32_t first, last;
    CharClass cls;
};
#include "unicode_tables.inc"  // kUnicodeVersion, kClassRanges (build/*/generated/)

// is_white_space (unicode_classes.h) spells out the generated differences from JavaScript's \s.
static_assert(sizeof(kOnlyWhiteSpace) == sizeof(uint32_t) && kOnlyWhiteSpace[0] == 0x85,
              "White_Space beyond JavaScript's \\s changed: update is_white_space");
static_assert(sizeof(kOnlyJsSpace) == sizeof(uint32_t) && kOnlyJsSpace[0] == 0xFEFF,
              "JavaScript's \\s beyond White_Space changed: update is_white_space");

// ASCII is most text: answer it from a flat table, filled (at compile time) from the same ranges.
constexpr std::array<CharClass, 128> ascii_table() {
    std::array<CharClass, 128> t{};
    for (const auto& r : kClassRanges)
        for (uint32_t cp = r.first; cp <= r.last && cp < 128; ++cp) t[cp] = r.cls;
    return t;
}

}  // namespace

constexpr std::array<CharClass, 128> kAsciiClasses = ascii_table();

CharClass char_class_non_ascii(uint32_t cp) {
    auto it = std::upper_bound(std::begin(kClassRanges), std::end(kClassRanges), cp,
                               [](uint32_t c, const ClassRange& r) { return c < r.first; });
    if (it == std::begin(kClassRanges)) return CharClass::Other;
    --it;
    return cp <= it->last ? it->cls : CharClass::Other;
}

const char* unicode_version() {
    return kUnicodeVersion;
}

}  // namespace arcscope
