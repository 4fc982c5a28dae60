// test_tokenizer.cpp: GPT-2 tokenizer unit tests. Parity with the JavaScript reference tokenizers over thousands of
// strings lives in tests/js/tokenizer-parity.test.mjs; here: round trips, invalid UTF-8, the file loader, and the
// two BPE loops agreeing with each other.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>

#include "arcscope/core/error.h"
#include "arcscope/formats/model_config.h"
#include "arcscope/tokenizer/bpe.h"
#include "arcscope/tokenizer/tokenizer.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/unicode_classes.h"

using namespace arcscope;

namespace {

const std::string kTokenizerPath = ARCSCOPE_TOKENIZER_FILE;  // made by the build, in its folder

std::string file_bytes() {
    std::ifstream f(kTokenizerPath, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

const Tokenizer& gpt2() {
    static const Tokenizer tok = Tokenizer::load(kTokenizerPath);
    return tok;
}

Tokenizer from_string(const std::string& bytes) {
    return Tokenizer::from_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

// Expects from_string(bytes) to throw an Error whose message contains `part`.
void expect_rejected(const std::string& bytes, const std::string& part) {
    try {
        from_string(bytes);
        ADD_FAILURE() << "accepted a bad file, expected an error containing '" << part << "'";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << "message: " << e.what();
    }
}

std::string utf8(uint32_t cp) {
    std::string s;
    append_utf8(s, cp);
    return s;
}

// Deterministic mixed text: ASCII words, accents, CJK, emoji with joiners, whitespace runs, digits.
std::string mixed_text(size_t bytes, uint32_t seed) {
    const std::vector<std::string> pieces = {"the",
                                             " quick",
                                             " brown",
                                             "fox",
                                             "'s",
                                             "'LL",
                                             " 12345",
                                             "3.14",
                                             "\n",
                                             "\r\n",
                                             "\t",
                                             "   ",
                                             " \n ",
                                             "caf\xC3\xA9",
                                             "e\xCC\x81",
                                             "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
                                             "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB",
                                             "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD",
                                             "\xD8\xB3\xD9\x84\xD8\xA7\xD9\x85",
                                             "\xE0\xA4\xA8\xE0\xA4\xAE\xE0\xA4\xB8\xE0\xA5\x8D",
                                             "!!",
                                             "{}",
                                             "==",
                                             " //",
                                             "\xEF\xBB\xBF",
                                             "\xC2\x85",
                                             "\x1C",
                                             "\x00"};
    std::mt19937 rng(seed);
    std::string s;
    while (s.size() < bytes) s += pieces[rng() % pieces.size()];
    return s;
}

}  // namespace

TEST(Tokenizer, LoadsGpt2Vocabulary) {
    EXPECT_EQ(gpt2().vocab_size(), 50257);
    EXPECT_EQ(gpt2().eot_id(), kEndOfText);  // the engine's constant and the tokenizer file agree
    EXPECT_EQ(gpt2().token_bytes(50256), "<|endoftext|>");
    EXPECT_EQ(gpt2().token_bytes(15496), "Hello");
    EXPECT_EQ(gpt2().token_bytes(995), " world");
}

TEST(Tokenizer, EncodesKnownText) {
    EXPECT_EQ(gpt2().encode("Hello world"), (std::vector<int>{15496, 995}));
    // "<|endoftext|>" in text is ordinary text, as in gpt-3-encoder
    std::vector<int> eot_text = gpt2().encode("<|endoftext|>");
    EXPECT_GT(eot_text.size(), 1u);
    EXPECT_EQ(gpt2().decode(eot_text), "<|endoftext|>");
}

TEST(Tokenizer, RoundTripsValidText) {
    const Tokenizer& tok = gpt2();
    std::vector<std::string> cases = {"",
                                      " ",
                                      "a",
                                      "\n",
                                      "\xC3\xA9",
                                      "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
                                      "\xF0\x9F\x98\x80",
                                      "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7",
                                      std::string("a\0b", 3),
                                      "   \t\r\n\r\n  x  ",
                                      "I'M it's THEY'RE we've"};
    for (uint32_t cp = 0; cp < 0x110000; cp += (cp < 0x800 ? 1 : 97)) {
        if (cp >= 0xD800 && cp < 0xE000) continue;
        cases.push_back(utf8(cp));  // every single character below U+0800, a sample above
    }
    cases.push_back(mixed_text(200000, 7));  // long input: exercises the cache and the long-word BPE
    cases.push_back(std::string(100000, 'a'));
    size_t failures = 0;
    for (const auto& s : cases) failures += tok.decode(tok.encode(s)) != s;
    std::printf("round trips: %zu strings, %zu differences\n", cases.size(), failures);
    EXPECT_EQ(failures, 0u);
}

TEST(Tokenizer, EmptyAndSingleCharacter) {
    EXPECT_TRUE(gpt2().encode("").empty());
    EXPECT_EQ(gpt2().decode({}), "");
    EXPECT_EQ(gpt2().encode("!"), (std::vector<int>{0}));  // '!' is the first byte token
}

TEST(Tokenizer, InvalidUtf8BecomesReplacementCharacters) {
    const Tokenizer& tok = gpt2();
    const std::string fffd = "\xEF\xBF\xBD";
    // bytes -> what TextDecoder makes of them (WHATWG maximal-subpart rule)
    std::vector<std::pair<std::string, std::string>> cases = {
        {"\xFF", fffd},
        {"a\x80z", "a" + fffd + "z"},
        {"\xE2\x82", fffd},  // truncated 3-byte sequence: one U+FFFD
        {"\xE2\x82x", fffd + "x"},
        {"\xED\xA0\x80", fffd + fffd + fffd},             // UTF-16 surrogate encoded in UTF-8
        {"\xC0\xAF", fffd + fffd},                        // overlong
        {"\xF4\x90\x80\x80", fffd + fffd + fffd + fffd},  // above U+10FFFF
        {"\xF0\x9F\x98", fffd},                           // emoji cut short
    };
    for (const auto& [bytes, text] : cases) {
        EXPECT_EQ(repair_utf8(bytes), text);
        EXPECT_EQ(tok.encode(bytes), tok.encode(text));
    }
    // random bytes: never a crash, and the text read is exactly the repaired bytes
    std::mt19937 rng(3);
    size_t failures = 0;
    for (int n = 0; n < 2000; ++n) {
        std::string bytes(rng() % 40, '\0');
        for (char& c : bytes) c = char(rng() % 4 == 0 ? 0x80 + rng() % 0x80 : rng() % 256);
        failures += tok.decode(tok.encode(bytes)) != repair_utf8(bytes);
        failures += !is_valid_utf8(repair_utf8(bytes));
    }
    std::printf("random byte strings: 2000, %zu differences\n", failures);
    EXPECT_EQ(failures, 0u);
}

TEST(Tokenizer, DecodeRejectsOutOfRangeIds) {
    for (int bad : {-1, 50257, 1 << 30}) {
        try {
            gpt2().decode({15496, bad});
            ADD_FAILURE() << "decode accepted id " << bad;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("token id " + std::to_string(bad)), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(gpt2().token_text(50257), Error);
}

TEST(Tokenizer, TokenTextAndSpans) {
    const Tokenizer& tok = gpt2();
    const std::string text =
        "Hi \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD ok \xE6\x97\xA5\xE6\x9C\xAC";  // thumbs up + skin tone
    std::vector<int> ids = tok.encode(text);
    std::vector<TokenSpan> spans = tok.token_spans(ids);
    std::string joined;
    int next = 0;
    bool partial_seen = false;
    for (const auto& s : spans) {
        EXPECT_EQ(s.first, next);
        next += s.count;
        joined += s.text;
        for (int i = s.first; i < s.first + s.count; ++i)
            partial_seen |= tok.token_text(ids[i]).find("\xEF\xBF\xBD") != std::string::npos;
    }
    EXPECT_EQ(next, int(ids.size()));
    EXPECT_EQ(joined, text);    // spans of whole characters cover the text exactly
    EXPECT_TRUE(partial_seen);  // the emoji are split over tokens, shown as U+FFFD alone
    EXPECT_LT(spans.size(), ids.size());
}

TEST(Pretokenizer, FollowsGpt2Pattern) {
    using V = std::vector<std::string_view>;
    EXPECT_EQ(pretokenize("Hello world"), (V{"Hello", " world"}));
    EXPECT_EQ(pretokenize("a   b"), (V{"a", "  ", " b"}));  // \s+(?!\S) leaves the last space to " b"
    EXPECT_EQ(pretokenize("a \n b"), (V{"a", " \n", " b"}));
    EXPECT_EQ(pretokenize("x \n"), (V{"x", " \n"}));                      // trailing whitespace stays whole
    EXPECT_EQ(pretokenize("it's I'M"), (V{"it", "'s", " I", "'", "M"}));  // contractions are lower case only
    EXPECT_EQ(pretokenize("we'll've''s"), (V{"we", "'ll", "'ve", "''", "s"}));
    EXPECT_EQ(pretokenize("abc123 456!?"), (V{"abc", "123", " 456", "!?"}));
    EXPECT_EQ(pretokenize("\xEF\xBB\xBFx"), (V{"\xEF\xBB\xBF", "x"}));  // U+FEFF is \s in JavaScript
}

TEST(UnicodeClasses, MatchJavaScriptRegexClasses) {
    EXPECT_EQ(char_class('a'), CharClass::Letter);
    EXPECT_EQ(char_class(0xE9), CharClass::Letter);    // é
    EXPECT_EQ(char_class(0x65E5), CharClass::Letter);  // 日
    EXPECT_EQ(char_class(0x0663), CharClass::Number);  // Arabic-Indic three
    EXPECT_EQ(char_class(0xBD), CharClass::Number);    // ½ (No)
    EXPECT_EQ(char_class(0x3000), CharClass::Space);
    EXPECT_EQ(char_class(0xFEFF), CharClass::Space);  // JavaScript \s, not Python's
    EXPECT_EQ(char_class(0x85), CharClass::Other);    // Python \s, not JavaScript's
    EXPECT_EQ(char_class(0x1C), CharClass::Other);
    EXPECT_EQ(char_class(0x0301), CharClass::Other);   // combining acute (Mn)
    EXPECT_EQ(char_class(0x1F600), CharClass::Other);  // emoji
    std::printf("Unicode tables: version %s\n", unicode_version());
}

TEST(Bpe, HeapLoopEqualsScanLoop) {
    // Rebuild GPT-2's merge table from the tokenizer and compare both loops on random words of all lengths.
    const Tokenizer& tok = gpt2();
    std::string bytes = file_bytes();
    MergeTable merges;
    merges.reserve(50000);
    for (int r = 0; r < 50000; ++r) {
        size_t at = 24 + 512 + size_t(r) * 4;
        int left = uint8_t(bytes[at]) | uint8_t(bytes[at + 1]) << 8,
            right = uint8_t(bytes[at + 2]) | uint8_t(bytes[at + 3]) << 8;
        merges.add(left, right, 256 + r);
    }
    int byte_token[256];
    for (int id = 0; id < 256; ++id) byte_token[uint8_t(tok.token_bytes(id)[0])] = id;
    std::mt19937 rng(11);
    std::string text = mixed_text(40000, 5);
    size_t differences = 0, words = 0;
    for (int n = 0; n < 3000; ++n) {
        size_t length = 1 + rng() % (n % 10 == 0 ? 600 : 40);
        size_t start = rng() % (text.size() - length);
        std::vector<int> a;
        for (size_t i = start; i < start + length; ++i) a.push_back(byte_token[uint8_t(text[i])]);
        std::vector<int> b = a;
        bpe_merge_scan(merges, a);
        bpe_merge_heap(merges, b);
        differences += a != b;
        ++words;
    }
    std::printf("bpe loops: %zu words compared, %zu differences\n", words, differences);
    EXPECT_EQ(differences, 0u);
}

TEST(TokenizerFile, RejectsBadFiles) {
    const std::string good = file_bytes();
    ASSERT_GT(good.size(), 1000u);
    EXPECT_NO_THROW(from_string(good));
    expect_rejected("", "not a tokenizer file");
    expect_rejected("ARCSCOPE" + good.substr(8), "not a tokenizer file");
    std::string bad_version = good;
    bad_version[8] = 2;
    expect_rejected(bad_version, "version 2");
    for (size_t cut : {size_t(10), size_t(30), size_t(600), good.size() / 2, good.size() - 1})
        expect_rejected(good.substr(0, cut), "truncated");
    expect_rejected(good + "x", "unexpected bytes at the end");
    std::string bad_vocab = good;
    bad_vocab[12] = 0;  // n_vocab no longer 256 + merges + specials
    expect_rejected(bad_vocab, "n_vocab");
    std::string bad_merge = good;
    bad_merge[24 + 512] = char(0xFF);  // merge 0's left id 65535+: made by no earlier merge
    bad_merge[24 + 512 + 1] = char(0xFF);
    expect_rejected(bad_merge, "merge 0");
    std::string bad_bytes = good;
    bad_bytes[24] = bad_bytes[26];  // two bytes share a token
    bad_bytes[25] = bad_bytes[27];
    expect_rejected(bad_bytes, "permutation");
    EXPECT_THROW(Tokenizer::load("no/such/tokenizer.bin"), Error);
}
