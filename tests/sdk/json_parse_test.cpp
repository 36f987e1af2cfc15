// Parsing and serialising with the SDK's JSON value: what a plugin author relies on to read its
// arguments and to produce results the host accepts.
#include <skillhost/json.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace {

using skillhost::Json;
using skillhost::JsonError;

// The text of the JsonError thrown while parsing `text` (fails the test if none is thrown).
std::string parse_error(std::string_view text) {
    try {
        Json::parse(text);
    } catch (const JsonError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a JsonError for: " << text;
    return {};
}

TEST(JsonParse, RoundTripsDocumentsThroughDump) {
    const char* documents[] = {
        R"(null)",
        R"(true)",
        R"(false)",
        R"(0)",
        R"(-17)",
        R"(1.5)",
        R"("text")",
        R"([])",
        R"({})",
        R"([1,"two",3.25,null,true,{"a":[]}])",
        R"({"name":"notes","count":3,"ratio":0.75,"tags":["a","b"],"nested":{"deep":{"x":null}}})",
    };
    for (const char* text : documents) {
        Json parsed = Json::parse(text);
        EXPECT_EQ(parsed.dump(), text);
        EXPECT_EQ(Json::parse(parsed.dump()), parsed) << text;
    }
}

TEST(JsonParse, IgnoresWhitespaceBetweenTokens) {
    Json v = Json::parse(" \t\r\n{ \"a\" : [ 1 , 2 ] ,\n\"b\":\ttrue }\n ");
    EXPECT_EQ(v.dump(), R"({"a":[1,2],"b":true})");
}

TEST(JsonParse, DecodesEveryStandardEscape) {
    Json v = Json::parse(R"("q\" b\\ s\/ \b\f\n\r\t")");
    EXPECT_EQ(v.as_string(), "q\" b\\ s/ \b\f\n\r\t");
}

TEST(JsonParse, DecodesUnicodeEscapesToUtf8) {
    EXPECT_EQ(Json::parse(R"("\u0041")").as_string(), "A");
    EXPECT_EQ(Json::parse(R"("\u00e9")").as_string(), "\xC3\xA9");      // é
    EXPECT_EQ(Json::parse(R"("\u20AC")").as_string(), "\xE2\x82\xAC");  // €
    EXPECT_EQ(Json::parse(R"("\u0000")").as_string(), std::string(1, '\0'));
}

TEST(JsonParse, CombinesSurrogatePairsIntoOneCodePoint) {
    // U+1F600 GRINNING FACE is \uD83D\uDE00 in JSON and F0 9F 98 80 in UTF-8.
    EXPECT_EQ(Json::parse(R"("\uD83D\uDE00")").as_string(), "\xF0\x9F\x98\x80");
    EXPECT_EQ(Json::parse(R"("\udbff\udfff")").as_string(), "\xF4\x8F\xBF\xBF");  // U+10FFFF
}

TEST(JsonParse, RejectsBrokenSurrogates) {
    EXPECT_NE(parse_error(R"("\uD83D")").find("high surrogate"), std::string::npos);
    EXPECT_NE(parse_error(R"("\uD83Dx")").find("high surrogate"), std::string::npos);
    EXPECT_NE(parse_error(R"("\uD83D\u0041")").find("low surrogate"), std::string::npos);
    EXPECT_NE(parse_error(R"("\uDE00")").find("lone low surrogate"), std::string::npos);
}

TEST(JsonParse, KeepsRawUtf8Untouched) {
    std::string text = "\"gr\xC3\xBC\xC3\x9F \xE2\x9C\x93 \xF0\x9F\x98\x80\"";
    Json v = Json::parse(text);
    EXPECT_EQ(v.as_string(), "gr\xC3\xBC\xC3\x9F \xE2\x9C\x93 \xF0\x9F\x98\x80");
    EXPECT_EQ(v.dump(), text);
}

TEST(JsonParse, KeepsIntegersExactAndOthersAsDouble) {
    Json big = Json::parse("9223372036854775807");
    ASSERT_TRUE(big.is_integer());
    EXPECT_EQ(big.as_int(), std::numeric_limits<std::int64_t>::max());
    Json small = Json::parse("-9223372036854775808");
    ASSERT_TRUE(small.is_integer());
    EXPECT_EQ(small.as_int(), std::numeric_limits<std::int64_t>::min());

    Json beyond = Json::parse("9223372036854775808");  // one past int64: still a number
    EXPECT_FALSE(beyond.is_integer());
    EXPECT_TRUE(beyond.is_number());
    EXPECT_DOUBLE_EQ(beyond.as_double(), 9223372036854775808.0);

    for (const char* text : {"1.0", "1e3", "1E3", "2.5e-3", "-0.5", "1E+2"}) {
        Json v = Json::parse(text);
        EXPECT_EQ(v.kind(), Json::Kind::number) << text;
    }
    EXPECT_DOUBLE_EQ(Json::parse("2.5e-3").as_double(), 0.0025);
    EXPECT_EQ(Json::parse("1e3").as_int(), 1000);  // an integral double reads as an integer
    EXPECT_THROW(Json::parse("1.5").as_int(), JsonError);
    EXPECT_EQ(Json::parse("-0").as_int(), 0);
}

TEST(JsonParse, UnderflowBecomesZeroAndOverflowIsAnError) {
    EXPECT_EQ(Json::parse("1e-400").as_double(), 0.0);
    EXPECT_EQ(Json::parse("0.0000e99999").as_double(), 0.0);
    EXPECT_NE(parse_error("[1e400]").find("byte 1: number 1e400 is too large"), std::string::npos);
}

TEST(JsonParse, RejectsNumbersOutsideTheJsonGrammar) {
    EXPECT_NE(parse_error("01").find("byte 0: numbers must not have leading zeros"), std::string::npos);
    EXPECT_NE(parse_error("[-012]").find("byte 1: numbers must not have leading zeros"), std::string::npos);
    EXPECT_NE(parse_error("1.").find("byte 2: expected a digit after the decimal point"), std::string::npos);
    EXPECT_NE(parse_error("1.e5").find("byte 2: expected a digit after the decimal point"), std::string::npos);
    EXPECT_NE(parse_error("1e").find("byte 2: expected a digit in the exponent"), std::string::npos);
    EXPECT_NE(parse_error("1e+").find("byte 3: expected a digit in the exponent"), std::string::npos);
    EXPECT_NE(parse_error("-").find("byte 1: expected a digit"), std::string::npos);
    EXPECT_NE(parse_error("-x").find("byte 1: expected a digit"), std::string::npos);
    EXPECT_NE(parse_error("+1").find("byte 0: unexpected character '+'"), std::string::npos);
    EXPECT_NE(parse_error(".5").find("byte 0: unexpected character '.'"), std::string::npos);
    EXPECT_NE(parse_error("1.2.3").find("byte 3: unexpected text after the JSON value"), std::string::npos);
}

TEST(JsonParse, ErrorsNameTheByteOffsetOfTheProblem) {
    EXPECT_EQ(parse_error(""), "invalid JSON at byte 0: unexpected end of input, expected a value");
    EXPECT_EQ(parse_error("   "), "invalid JSON at byte 3: unexpected end of input, expected a value");
    EXPECT_EQ(parse_error(R"({"a":1,})"), "invalid JSON at byte 7: expected a quoted member name");
    EXPECT_EQ(parse_error(R"({"a" 1})"), "invalid JSON at byte 5: expected ':' after member name");
    EXPECT_EQ(parse_error(R"({"a":1 "b":2})"), "invalid JSON at byte 7: expected ',' or '}' in object");
    EXPECT_EQ(parse_error("[1 2]"), "invalid JSON at byte 3: expected ',' or ']' in array");
    EXPECT_EQ(parse_error("[1,]"), "invalid JSON at byte 3: unexpected character ']', expected a value");
    EXPECT_EQ(parse_error("[tru]"), "invalid JSON at byte 1: unexpected character 't', expected a value");
    EXPECT_EQ(parse_error("{} x"), "invalid JSON at byte 3: unexpected text after the JSON value");
    EXPECT_EQ(parse_error(R"(["abc)"), "invalid JSON at byte 1: unterminated string");
    EXPECT_EQ(parse_error("\"a\nb\""), "invalid JSON at byte 2: control character byte 0x0A in string; escape it");
    EXPECT_EQ(parse_error(R"("ab\q")"), "invalid JSON at byte 3: unknown escape '\\q'");
    EXPECT_EQ(parse_error(R"("\u12G4")"), "invalid JSON at byte 5: bad hex digit 'G' in \\u escape");
    EXPECT_EQ(parse_error(R"("\u12")"), "invalid JSON at byte 3: truncated \\u escape, expected 4 hex digits");
    EXPECT_EQ(parse_error("\x01"), "invalid JSON at byte 0: unexpected character byte 0x01, expected a value");
}

TEST(JsonParse, LimitsNestingDepthTo256Levels) {
    std::string ok = std::string(256, '[') + std::string(256, ']');
    Json v = Json::parse(ok);
    EXPECT_TRUE(v.is_array());

    std::string too_deep = std::string(257, '[') + std::string(257, ']');
    EXPECT_EQ(parse_error(too_deep), "invalid JSON at byte 256: nesting deeper than 256 levels");

    // Objects count too, and an attacker's 100000 levels fail cleanly instead of overflowing the stack.
    std::string objects;
    for (int i = 0; i < 300; ++i) objects += "{\"a\":";
    EXPECT_NE(parse_error(objects).find("nesting deeper than 256 levels"), std::string::npos);
    EXPECT_NE(parse_error(std::string(100000, '[')).find("nesting deeper"), std::string::npos);
}

TEST(JsonParse, KeepsObjectMembersInDocumentOrder) {
    Json v = Json::parse(R"({"zeta":1,"alpha":2,"mid":3})");
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v.as_object()[0].first, "zeta");
    EXPECT_EQ(v.as_object()[1].first, "alpha");
    EXPECT_EQ(v.as_object()[2].first, "mid");
    EXPECT_EQ(v.dump(), R"({"zeta":1,"alpha":2,"mid":3})");
}

TEST(JsonParse, RepeatedMemberKeepsFirstPositionAndLastValue) {
    Json v = Json::parse(R"({"a":1,"b":2,"a":3})");
    EXPECT_EQ(v.dump(), R"({"a":3,"b":2})");
}

}  // namespace
