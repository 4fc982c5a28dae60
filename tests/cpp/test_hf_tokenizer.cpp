// test_hf_tokenizer.cpp: the tokenizer read from tokenizer.json, part by part: the Split regex matcher, Unicode
// normalization, the pre-tokenizers' behaviours, small byte-level and SentencePiece-style files with known ids, and
// the refusals (every unsupported component by name, malformed files with a message, never a crash). Parity with
// Hugging Face on the real Llama 3, Qwen 3, Llama 2 and Gemma 3 files is tests/js/hf-tokenizer-parity.test.mjs;
// normalization on every code point is tests/js/hf-normalization.test.mjs.
#include <gtest/gtest.h>

#include <cstdio>

#include <string>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/core/json.h"
#include "arcscope/core/utf8.h"
#include "arcscope/tokenizer/hf_tokenizer.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/hf_regex.h"
#include "tokenizer/pre_tokenizers.h"
#include "tokenizer/unicode_normalization.h"

using namespace arcscope;

namespace {

// The matches of `pattern` in `text`, as strings.
std::vector<std::string> matches(const std::string& pattern, const std::string& text) {
    HfRegex re = HfRegex::compile(pattern);
    CodePoints cp;
    cp.assign(text);
    std::vector<std::string> out;
    re.find_all(cp.cps.data(), cp.cps.size(),
                [&](size_t a, size_t b) { out.push_back(text.substr(cp.offsets[a], cp.offsets[b] - cp.offsets[a])); });
    return out;
}

template <class F>
void expect_error(F&& f, const std::string& part) {
    try {
        f();
        ADD_FAILURE() << "no error, expected one containing '" << part << "'";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << "message: " << e.what();
    }
}

const std::string kLlama3Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// A byte-level file: the 256 byte tokens (id = byte), then `extra` tokens made by `merges` (JSON arrays' insides).
std::string byte_level_json(const std::string& extra_vocab, const std::string& merges, const std::string& more = "") {
    std::string vocab;
    for (int b = 0; b < 256; ++b) {
        std::string ch;
        append_utf8(ch, byte_level_char(uint8_t(b)));
        std::string escaped = ch == "\"" ? "\\\"" : ch == "\\" ? "\\\\" : ch;
        vocab += (b ? "," : "") + std::string("\"") + escaped + "\":" + std::to_string(b);
    }
    if (!extra_vocab.empty()) vocab += "," + extra_vocab;
    return "{\"model\":{\"type\":\"BPE\",\"vocab\":{" + vocab + "},\"merges\":[" + merges + "]}," +
           "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":true}," +
           "\"decoder\":{\"type\":\"ByteLevel\"}" + more + "}";
}

// A SentencePiece-style file as Llama 2's: "▁" prepended, spaces replaced, byte fallback, <s> from the template.
std::string sentencepiece_json(const std::string& added = "") {
    std::string vocab = "\"<unk>\":0,\"<s>\":1,\"</s>\":2";
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        vocab += ",\"" + std::string(name) + "\":" + std::to_string(3 + b);
    }
    vocab += ",\"▁\":259,\"a\":260,\"b\":261,\"▁a\":262,\"ab\":263,\"▁ab\":264";
    return std::string(
               "{\"model\":{\"type\":\"BPE\",\"unk_token\":\"<unk>\",\"fuse_unk\":true,\"byte_fallback\":true,") +
           "\"vocab\":{" + vocab + "},\"merges\":[\"▁ a\",\"a b\",\"▁a b\"]}," +
           "\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"▁\"}," +
           "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"▁\"}]}," +
           "\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<s>\"}}," +
           "{\"Sequence\":{\"id\":\"A\"}}],\"special_tokens\":{\"<s>\":{\"id\":\"<s>\",\"ids\":[1]}}}," +
           "\"decoder\":{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"Replace\",\"pattern\":{\"String\":\"▁\"}," +
           "\"content\":\" \"},{\"type\":\"ByteFallback\"},{\"type\":\"Fuse\"}," +
           "{\"type\":\"Strip\",\"content\":\" \",\"start\":1,\"stop\":0}]}," +
           "\"added_tokens\":[{\"id\":1,\"content\":\"<s>\",\"special\":true,\"normalized\":false}" + added + "]}";
}

std::vector<std::string> pre_tokenize(const std::string& json, const std::string& text) {
    auto pre = hf::PreTokenizer::from_json(Json::parse(json), "pre_tokenizer");
    std::vector<std::string> pieces{text};
    pre->split(pieces, true);
    return pieces;
}

using Strings = std::vector<std::string>;
using Ids = std::vector<int>;

}  // namespace

TEST(HfRegex, MatchesAsOnigurumaDoes) {
    // alternatives in order, greedy runs that give back (\s+(?!\S) leaves the space before a word to it)
    EXPECT_EQ(matches(kLlama3Pattern, "Hello  world's 12345\n\n  x"),
              (Strings{"Hello", " ", " world", "'s", " ", "123", "45", "\n\n", " ", " x"}));
    EXPECT_EQ(matches(kLlama3Pattern, "IT'S don'T"), (Strings{"IT", "'S", " don", "'T"}));  // (?i:...) folds ASCII
    EXPECT_EQ(matches(kLlama3Pattern,
                      "it'\xC5\xBF"
                      "elf"),
              (Strings{"it", "'\xC5\xBF", "elf"}));                                       // and ſ with s
    EXPECT_EQ(matches("(?i:k)", "kK\xE2\x84\xAA"), (Strings{"k", "K", "\xE2\x84\xAA"}));  // and K (Kelvin) with k
    EXPECT_EQ(matches(kLlama3Pattern, "a \t\r\n b"), (Strings{"a", " \t\r\n", " b"}));    // \s*[\r\n]+
    EXPECT_EQ(matches("\\p{N}", "x12³"), (Strings{"1", "2", "³"}));
    EXPECT_EQ(matches("[^a-c\\s]+", "abxyz cq"), (Strings{"xyz", "q"}));
    EXPECT_EQ(matches("a{2,3}", "aaaaaaa"), (Strings{"aaa", "aaa"}));
    EXPECT_EQ(matches("(?:ab)+c|a", "ababcab"), (Strings{"ababc", "a"}));
    EXPECT_EQ(matches("x(?=y)", "xxyx"), (Strings{"x"}));
    EXPECT_EQ(matches("\\x41\\u00e9\\x{1F600}", "Aé😀"), (Strings{"Aé😀"}));
    // \s is Unicode White_Space, as in Oniguruma: U+0085 is space, U+FEFF is not (JavaScript's \s says the opposite)
    EXPECT_EQ(matches("\\s",
                      "a\xC2\x85"
                      "b\xEF\xBB\xBF"
                      "c"),
              (Strings{"\xC2\x85"}));
    // a long word costs no stack
    EXPECT_EQ(matches("\\p{L}+|\\s+(?!\\S)", std::string(200000, 'a')).size(), 1u);
    EXPECT_EQ(matches("(?:a|b)*c", std::string(100000, 'a') + "c").size(), 1u);
}

TEST(HfRegex, RefusesWhatItDoesNotSupportByName) {
    expect_error([] { HfRegex::compile("\\d+"); }, "\\d is not supported");
    expect_error([] { HfRegex::compile("\\w"); }, "\\w is not supported");
    expect_error([] { HfRegex::compile("\\p{Lu}"); }, "\\p{Lu} is not supported");
    expect_error([] { HfRegex::compile("(?<=a)b"); }, "(?<...) is not supported");
    expect_error([] { HfRegex::compile("a.b"); }, "'.' is not supported");
    expect_error([] { HfRegex::compile("^a"); }, "'^' is not supported");
    expect_error([] { HfRegex::compile("a*?"); }, "lazy quantifier");
    expect_error([] { HfRegex::compile("a++"); }, "possessive quantifier");
    expect_error([] { HfRegex::compile("[[:alpha:]]"); }, "nested class");
    expect_error([] { HfRegex::compile("(a*)*"); }, "can match nothing");
    expect_error([] { HfRegex::compile("(a|)*"); }, "can match nothing");  // an empty alternative
    expect_error([] { HfRegex::compile("(?:b?(?=a))+"); }, "can match nothing");
    EXPECT_EQ(matches("(a|b)+", "xabbay"), (Strings{"abba"}));
    expect_error([] { HfRegex::compile("(ab"); }, "missing ')'");
    expect_error([] { HfRegex::compile("ab)"); }, "unbalanced ')'");
    expect_error([] { HfRegex::compile("[ab"); }, "missing ']'");
    expect_error([] { HfRegex::compile(std::string(100, '(') + std::string(100, ')')); }, "nested deeper than 32");
    expect_error([] { HfRegex::compile(std::string(5000, 'a')); }, "at most 4096");
}

TEST(HfRegex, StopsAPatternThatBacktracksExponentially) {
    // (?:a+)+b on a's without a b tries every way to cut the run: an Error, not a hang
    expect_error([] { matches("(?:a+)+b", std::string(40, 'a') + "c"); }, "backtrack more than 1,000 steps");
    EXPECT_EQ(matches("(?:a+)+b", "aaab"), (Strings{"aaab"}));  // and the same regex still matches after
}

TEST(UnicodeNormalization, ComposesDecomposesAndOrders) {
    EXPECT_EQ(normalize("e\xCC\x81", NormalForm::NFC), "\xC3\xA9");                                 // e + ◌́ -> é
    EXPECT_EQ(normalize("\xC3\xA9", NormalForm::NFD), "e\xCC\x81");                                 // é -> e + ◌́
    EXPECT_EQ(normalize("\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8", NormalForm::NFC), "\xEA\xB0\x81");  // jamo -> 각
    EXPECT_EQ(normalize("\xEA\xB0\x81", NormalForm::NFD), "\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8");
    EXPECT_EQ(normalize("\xE2\x84\xAB", NormalForm::NFC), "\xC3\x85");  // Å (Angstrom sign) -> Å
    // a + ◌̂ + ◌̣ and a + ◌̣ + ◌̂ both give ậ: marks are put in canonical order before composing
    EXPECT_EQ(normalize("a\xCC\x82\xCC\xA3", NormalForm::NFC), "\xE1\xBA\xAD");
    EXPECT_EQ(normalize("a\xCC\xA3\xCC\x82", NormalForm::NFC), "\xE1\xBA\xAD");
    EXPECT_EQ(normalize("\xEF\xAC\x81", NormalForm::NFKC), "fi");  // ﬁ
    EXPECT_EQ(normalize("\xEF\xAC\x81", NormalForm::NFC), "\xEF\xAC\x81");
    EXPECT_EQ(normalize("plain ASCII", NormalForm::NFKD), "plain ASCII");
    EXPECT_EQ(normalize("", NormalForm::NFC), "");
}

TEST(HfPreTokenizers, SplitBehaviorsDigitsAndMetaspace) {
    auto split = [](const std::string& behavior, bool invert = false) {
        return "{\"type\":\"Split\",\"pattern\":{\"String\":\"-\"},\"behavior\":\"" + behavior +
               "\",\"invert\":" + (invert ? "true" : "false") + "}";
    };
    EXPECT_EQ(pre_tokenize(split("Isolated"), "a-b--c"), (Strings{"a", "-", "b", "-", "-", "c"}));
    EXPECT_EQ(pre_tokenize(split("Removed"), "a-b--c"), (Strings{"a", "b", "c"}));
    EXPECT_EQ(pre_tokenize(split("MergedWithPrevious"), "a-b--c"), (Strings{"a-", "b-", "-", "c"}));
    EXPECT_EQ(pre_tokenize(split("MergedWithNext"), "a-b--c"), (Strings{"a", "-b", "-", "-c"}));
    EXPECT_EQ(pre_tokenize(split("Contiguous"), "a-b--c"), (Strings{"a", "-", "b", "--", "c"}));
    EXPECT_EQ(pre_tokenize(split("Removed", true), "a-b--c"), (Strings{"-", "-", "-"}));
    EXPECT_EQ(pre_tokenize("{\"type\":\"Digits\",\"individual_digits\":true}", "ab12c3"),
              (Strings{"ab", "1", "2", "c", "3"}));
    EXPECT_EQ(pre_tokenize("{\"type\":\"Digits\",\"individual_digits\":false}", "ab12c3"),
              (Strings{"ab", "12", "c", "3"}));
    EXPECT_EQ(
        pre_tokenize("{\"type\":\"Metaspace\",\"replacement\":\"▁\",\"prepend_scheme\":\"always\",\"split\":true}",
                     "Hey  you"),
        (Strings{"▁Hey", "▁", "▁you"}));
    EXPECT_EQ(pre_tokenize("{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Digits\",\"individual_digits\":true},"
                           "{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":true}]}",
                           "Hi 42 you"),
              (Strings{"Hi", " ", "4", "2", " you"}));
}

TEST(HfTokenizer, ByteLevelFileEncodesAndDecodes) {
    // 256 "he", 257 "ll", 258 "hell" (from he + ll), 259 "Ġhell"
    const HfTokenizer tok = HfTokenizer::from_json(
        byte_level_json("\"he\":256,\"ll\":257,\"hell\":258,\"Ġhell\":259", "\"h e\",\"l l\",\"he ll\",\"Ġ hell\""));
    EXPECT_EQ(tok.encode("hell hello"), (Ids{258, 259, 'o'}));
    EXPECT_EQ(tok.encode("hell hello", true), (Ids{258, 259, 'o'}));  // no post-processor: nothing added
    EXPECT_EQ(tok.decode(tok.encode("hell hello")), "hell hello");
    EXPECT_EQ(tok.token_text(259), " hell");
    EXPECT_EQ(tok.token_text(0xE4), "\xEF\xBF\xBD");  // a lone lead byte shows as U+FFFD
    EXPECT_EQ(tok.decode(tok.encode("日本 \xF0\x9F\x98\x80\t\n")), "日本 \xF0\x9F\x98\x80\t\n");
    EXPECT_EQ(tok.encode("a\xFF"
                         "b"),
              (Ids{'a', 0xEF, 0xBF, 0xBD, 'b'}));  // invalid UTF-8 reads as U+FFFD
    EXPECT_EQ(tok.vocab_size(), 260);
    expect_error([&] { tok.decode({260}); }, "token id 260 is not in this tokenizer's vocabulary");
}

TEST(HfTokenizer, SentencePieceStyleFile) {
    const HfTokenizer tok =
        HfTokenizer::from_json(sentencepiece_json(), "{\"bos_token\":\"<s>\",\"eos_token\":\"</s>\"}");
    EXPECT_EQ(tok.encode("ab ab"), (Ids{264, 264}));                // ▁ab▁ab
    EXPECT_EQ(tok.encode("ab ab", true), (Ids{1, 264, 264}));       // <s> from the template
    EXPECT_EQ(tok.encode("b<s>a"), (Ids{259, 261, 1, 262}));        // the special token is found before normalizing
    EXPECT_EQ(tok.encode("é"), (Ids{259, 3 + 0xC3, 3 + 0xA9}));     // byte fallback
    EXPECT_EQ(tok.decode({264, 259, 3 + 0xC3, 3 + 0xA9}), "ab é");  // Strip takes the first space only
    EXPECT_EQ(tok.decode({1, 264}), "<s> ab");                      // ... at the very start
    EXPECT_EQ(tok.decode({264, 3 + 0xC3}), "ab\xEF\xBF\xBD");       // a byte that is no character: U+FFFD
    EXPECT_EQ(tok.token_text(264), " ab");
    EXPECT_EQ(tok.bos_id(), 1);
    EXPECT_EQ(tok.eos_id(), 2);
    EXPECT_EQ(tok.encode(""), Ids{});
    // long texts are cut where no merge joins (the ▁ after "b" starts no merge's right token): same ids
    std::string text;
    Ids expected;
    for (int i = 0; i < 500; ++i) {
        text += i ? " ab" : "ab";
        expected.push_back(264);
    }
    EXPECT_EQ(tok.encode(text), expected);
}

TEST(HfTokenizer, AddedTokensStripWhiteSpaceWhenAsked) {
    const std::string strip =
        ",{\"id\":2,\"content\":\"</s>\",\"special\":true,\"normalized\":false,\"lstrip\":true,"
        "\"rstrip\":true}";
    const HfTokenizer tok = HfTokenizer::from_json(sentencepiece_json(strip));
    EXPECT_EQ(tok.encode("a </s>  b"), (Ids{262, 2, 259, 261}));  // the spaces around </s> are taken into it
}

TEST(HfTokenizer, RefusesUnsupportedPartsByName) {
    auto with = [](const std::string& key, const std::string& value) {
        std::string json = byte_level_json("", "");
        return json.substr(0, json.size() - 1) + ",\"" + key + "\":" + value + "}";
    };
    expect_error([] { HfTokenizer::from_json("{\"model\":{\"type\":\"Unigram\",\"vocab\":[]}}"); },
                 "tokenizer.json: model type Unigram is not supported (supported: BPE)");
    expect_error([] { HfTokenizer::from_json("{\"model\":{\"type\":\"WordPiece\",\"vocab\":{}}}"); },
                 "model type WordPiece is not supported");
    expect_error([&] { HfTokenizer::from_json(with("normalizer", "{\"type\":\"Lowercase\"}")); },
                 "normalizer: normalizer type Lowercase is not supported");
    expect_error(
        [&] { HfTokenizer::from_json(with("normalizer", "{\"type\":\"Precompiled\",\"precompiled_charsmap\":\"\"}")); },
        "normalizer type Precompiled is not supported");
    expect_error(
        [] {
            HfTokenizer::from_json(
                "{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]},"
                "\"pre_tokenizer\":{\"type\":\"Whitespace\"}}");
        },
        "pre_tokenizer type Whitespace is not supported");
    expect_error([&] { HfTokenizer::from_json(with("post_processor", "{\"type\":\"BertProcessing\"}")); },
                 "post_processor type BertProcessing is not supported");
    expect_error(
        [] {
            HfTokenizer::from_json(
                "{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]},"
                "\"decoder\":{\"type\":\"WordPiece\"}}");
        },
        "decoder type WordPiece is not supported");
    expect_error(
        [] {
            HfTokenizer::from_json(
                "{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]},"
                "\"pre_tokenizer\":{\"type\":\"Split\",\"pattern\":{\"Regex\":\"\\\\d+\"},"
                "\"behavior\":\"Isolated\"}}");
        },
        "\\d is not supported");
    expect_error(
        [] { HfTokenizer::from_json("{\"model\":{\"type\":\"BPE\",\"dropout\":0.1,\"vocab\":{},\"merges\":[]}}"); },
        "dropout is not supported");
    expect_error(
        [] {
            HfTokenizer::from_json(
                "{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]},\"added_tokens\":"
                "[{\"id\":0,\"content\":\"x\",\"single_word\":true}]}");
        },
        "single_word true, which is not supported");
    expect_error([&] { HfTokenizer::from_json(with("truncation", "{\"max_length\":512}")); },
                 "truncation: is not supported");
}

TEST(HfTokenizer, RejectsMalformedFilesWithAMessage) {
    expect_error([] { HfTokenizer::from_json(""); }, "tokenizer.json: JSON: unexpected end");
    expect_error([] { HfTokenizer::from_json("{\"model\":"); }, "tokenizer.json: JSON:");
    expect_error([] { HfTokenizer::from_json("[1,2]"); }, "tokenizer.json is not a JSON object");
    expect_error([] { HfTokenizer::from_json("{}"); }, "'model' is missing");
    expect_error([] { HfTokenizer::from_json("{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":-1},\"merges\":[]}}"); },
                 "the id of 'a' must be a whole number");
    expect_error(
        [] { HfTokenizer::from_json("{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[\"a b\"]}}"); },
        "merge 0 ('a', 'b') uses or makes a token that is not in the vocabulary");
    expect_error(
        [] { HfTokenizer::from_json("{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[\"a\"]}}"); },
        "is not two tokens with a space between");
    expect_error([] { HfTokenizer::from_json("{\"model\":{\"type\":\"BPE\",\"vocab\":[],\"merges\":[]}}"); },
                 "'vocab' must be an object");
    // Sequences nested past the limit are refused, not recursed into
    std::string deep = "{\"type\":\"NFC\"}";
    for (int i = 0; i < 12; ++i) deep = "{\"type\":\"Sequence\",\"normalizers\":[" + deep + "]}";
    expect_error(
        [&] {
            HfTokenizer::from_json("{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]},\"normalizer\":" + deep +
                                   "}");
        },
        "Sequence nested deeper than 8");
    // JSON nested past its own limit
    expect_error([] { HfTokenizer::from_json(std::string(10000, '[') + std::string(10000, ']')); }, "nesting too deep");
    // a character with no token, no byte fallback and no unk_token: an error, not a crash
    const HfTokenizer tok = HfTokenizer::from_json("{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]}}");
    EXPECT_EQ(tok.encode("aa"), (Ids{0, 0}));
    expect_error([&] { tok.encode("ab"); },
                 "the character 'b' is not in the vocabulary, and the model has no unk_token");
    expect_error([] { HfTokenizer::load("no/such/folder/tokenizer.json"); }, "no/such/folder/tokenizer.json");
}
