// test_json.cpp: the JSON reader behind config.json, safetensors headers and the CLI's JSON lines.
#include <gtest/gtest.h>

#include "arcscope/core/error.h"
#include "arcscope/core/json.h"

namespace arcscope {
namespace {

std::string parse_string(std::string_view text) {
    Json v = Json::parse(text);
    EXPECT_TRUE(v.is_string());
    return v.string;
}

TEST(Json, ReadsObjectsInDocumentOrder) {
    Json v = Json::parse(R"({"n_layer": 12, "b": [1, 2.5e-1, true, null], "a": "x"})");
    ASSERT_TRUE(v.is_object());
    ASSERT_EQ(v.object.size(), 3u);
    EXPECT_EQ(v.object[0].first, "n_layer");
    EXPECT_EQ(v.find("n_layer")->number, 12);
    EXPECT_DOUBLE_EQ(v.find("b")->array[1].number, 0.25);
    EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(Json, DecodesEscapesToUtf8) {
    EXPECT_EQ(parse_string(R"("caf\u00e9 \"q\" \\ \/ \n")"), "caf\xc3\xa9 \"q\" \\ / \n");
    EXPECT_EQ(parse_string(R"("\ud83d\ude00")"), "\xf0\x9f\x98\x80");  // a surrogate pair: U+1F600
}

TEST(Json, LoneSurrogatesBecomeReplacementCharacters) {
    const std::string fffd = "\xef\xbf\xbd";
    EXPECT_EQ(parse_string(R"("\ud800")"), fffd);
    EXPECT_EQ(parse_string(R"("\udc00x")"), fffd + "x");
    EXPECT_EQ(parse_string(R"("\ud800\u0041")"), fffd + "A");  // a high surrogate not followed by a low one
}

TEST(Json, RejectsMalformedText) {
    for (const char* bad :
         {"", "{", R"({"a" 1})", "[1,]x", R"("abc)", R"("\x")", R"("\u12")", "\"a\tb\"", "1 2", "tru"}) {
        EXPECT_THROW(Json::parse(bad), Error) << bad;
    }
    EXPECT_THROW(Json::parse(std::string(1000, '[')), Error);  // depth limit, not a stack overflow
}

}  // namespace
}  // namespace arcscope
