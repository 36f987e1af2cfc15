// Building and reading JSON values the way a skill does: arguments in, results out.
#include <skillhost/json.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace {

using skillhost::Json;
using skillhost::JsonError;

TEST(JsonValue, BuildsNestedResultsInInsertionOrder) {
    Json out = Json::object({{"id", 7}, {"tags", Json::array({"a", "b"})}, {"done", false}, {"note", nullptr}});
    EXPECT_EQ(out.dump(), R"({"id":7,"tags":["a","b"],"done":false,"note":null})");
}

TEST(JsonValue, ConstructorsPickTheRightKind) {
    EXPECT_TRUE(Json().is_null());
    EXPECT_TRUE(Json(nullptr).is_null());
    EXPECT_TRUE(Json(true).is_bool());
    EXPECT_TRUE(Json(3).is_integer());
    EXPECT_TRUE(Json(3L).is_integer());
    EXPECT_TRUE(Json(3LL).is_integer());
    EXPECT_TRUE(Json(3U).is_integer());
    EXPECT_TRUE(Json(std::size_t{3}).is_integer());
    EXPECT_EQ(Json(2.5).kind(), Json::Kind::number);
    EXPECT_TRUE(Json("literal").is_string());  // not bool, despite the pointer conversion
    EXPECT_TRUE(Json(std::string("s")).is_string());
    EXPECT_TRUE(Json(std::string_view("sv")).is_string());
}

TEST(JsonValue, UnsignedValuesAboveInt64BecomeNumbersInsteadOfWrapping) {
    Json max_signed(static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()));
    ASSERT_TRUE(max_signed.is_integer());
    EXPECT_EQ(max_signed.as_int(), std::numeric_limits<std::int64_t>::max());

    Json huge(std::numeric_limits<std::uint64_t>::max());
    EXPECT_FALSE(huge.is_integer());
    EXPECT_GT(huge.as_double(), 1.8e19);
}

TEST(JsonValue, DumpsDoublesShortestAndKeepsThemNumbers) {
    EXPECT_EQ(Json(0.1).dump(), "0.1");
    EXPECT_EQ(Json(2.5).dump(), "2.5");
    EXPECT_EQ(Json(1.0).dump(), "1.0");  // stays a double when read back
    EXPECT_EQ(Json::parse(Json(1.0).dump()).kind(), Json::Kind::number);
    EXPECT_EQ(Json(-0.0).dump(), "-0.0");
    EXPECT_EQ(Json(1e100).dump(), "1e+100");
    double third = 1.0 / 3.0;
    EXPECT_EQ(Json::parse(Json(third).dump()).as_double(), third);  // exact round trip
    // JSON has no NaN or infinity; they serialise as null rather than as invalid text.
    EXPECT_EQ(Json(std::nan("")).dump(), "null");
    EXPECT_EQ(Json(std::numeric_limits<double>::infinity()).dump(), "null");
}

TEST(JsonValue, EscapesControlCharactersAndQuotesWhenDumping) {
    Json s(std::string("a\"b\\c\n\t\x01\x1f/"));
    EXPECT_EQ(s.dump(), R"("a\"b\\c\n\t\u0001\u001f/")");
    EXPECT_EQ(Json::parse(s.dump()), s);
    EXPECT_EQ(Json(std::string(1, '\0')).dump(), R"("\u0000")");
}

TEST(JsonValue, ReplacesInvalidUtf8WhenDumpingSoTheHostAcceptsTheResult) {
    const std::string replacement = "\xEF\xBF\xBD";
    // A string cut in the middle of a multi-byte character, as substr() on bytes does.
    std::string cut = std::string("caf\xC3\xA9").substr(0, 4);
    EXPECT_EQ(Json(cut).dump(), "\"caf" + replacement + "\"");
    EXPECT_EQ(Json(std::string("\xFF")).dump(), "\"" + replacement + "\"");
    EXPECT_EQ(Json(std::string("\xC0\xAF")).dump(), "\"" + replacement + replacement + "\"");  // overlong '/'
    EXPECT_EQ(Json(std::string("\xED\xA0\x80")).dump(),
              "\"" + replacement + replacement + replacement + "\"");                            // surrogate
    EXPECT_EQ(Json(std::string("\xF4\x90\x80\x80")).dump().size(), 2 + 4 * replacement.size());  // > U+10FFFF
    // Valid sequences of every length pass through unchanged.
    std::string valid = "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";
    EXPECT_EQ(Json(valid).dump(), "\"" + valid + "\"");
}

TEST(JsonValue, IndentedDumpIsReadableAndParsesBack) {
    Json v = Json::object({{"a", Json::array({1, 2})}, {"b", Json::object()}, {"c", Json::array()}});
    EXPECT_EQ(v.dump(2), "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {},\n  \"c\": []\n}");
    EXPECT_EQ(Json::parse(v.dump(2)), v);
}

TEST(JsonValue, ConstIndexReadsMissingMembersAsNull) {
    const Json args = Json::parse(R"({"title":"x","n":null})");
    EXPECT_EQ(args["title"].as_string(), "x");
    EXPECT_TRUE(args["missing"].is_null());
    EXPECT_TRUE(args["n"].is_null());
    EXPECT_FALSE(args.contains("missing"));
    EXPECT_TRUE(args.contains("n"));
    EXPECT_EQ(args.size(), 2u);  // reading never inserts
    const Json not_an_object(5);
    EXPECT_TRUE(not_an_object["x"].is_null());
    EXPECT_EQ(not_an_object.find("x"), nullptr);
}

TEST(JsonValue, MutableIndexInsertsAndTurnsNullIntoObject) {
    Json out;
    out["count"] = 2;
    out["items"].push_back("first");
    out["items"].push_back(Json::object({{"k", 1}}));
    out["count"] = 3;  // assigning an existing member replaces it in place
    EXPECT_EQ(out.dump(), R"({"count":3,"items":["first",{"k":1}]})");

    Json number(1);
    EXPECT_THROW(number["x"], JsonError);
    EXPECT_THROW(number.push_back(1), JsonError);
}

TEST(JsonValue, ArrayIndexReadsAndWritesElements) {
    Json list = Json::array({10, 20});
    list[0] = "changed";  // index 0 must not be mistaken for a null member name
    EXPECT_EQ(list[0].as_string(), "changed");
    const Json& view = list;
    EXPECT_EQ(view[1].as_int(), 20);
    EXPECT_THROW(view[2], std::out_of_range);
    EXPECT_THROW(Json::object()[std::size_t{0}], JsonError);
}

TEST(JsonValue, TypedReadsThrowJsonErrorNamingBothKinds) {
    Json v = Json::parse(R"({"s":"x","n":1.5,"b":true,"a":[1]})");
    try {
        (void)v["s"].as_int();
        FAIL() << "as_int on a string must throw";
    } catch (const JsonError& e) {
        EXPECT_STREQ(e.what(), "expected an integer, got a string");
    }
    try {
        (void)v["a"].as_object();
        FAIL() << "as_object on an array must throw";
    } catch (const JsonError& e) {
        EXPECT_STREQ(e.what(), "expected an object, got an array");
    }
    EXPECT_THROW((void)v["b"].as_string(), JsonError);
    EXPECT_THROW((void)v["missing"].as_bool(), JsonError);
    EXPECT_DOUBLE_EQ(v["n"].as_double(), 1.5);
    EXPECT_EQ(Json(3).as_double(), 3.0);
}

TEST(JsonValue, OrDefaultsApplyOnlyToAbsentOrNullMembers) {
    Json v = Json::parse(R"({"name":"n","limit":5,"flag":false,"gone":null})");
    EXPECT_EQ(v.string_or("name", "d"), "n");
    EXPECT_EQ(v.string_or("nope", "d"), "d");
    EXPECT_EQ(v.string_or("gone", "d"), "d");
    EXPECT_EQ(v.int_or("limit", 10), 5);
    EXPECT_EQ(v.int_or("nope", 10), 10);
    EXPECT_FALSE(v.bool_or("flag", true));
    EXPECT_TRUE(v.bool_or("nope", true));
    EXPECT_THROW(v.int_or("name", 1), JsonError);  // present but wrong type is an error, not a default
}

TEST(JsonValue, EqualityComparesNumbersByValueAndObjectsIgnoringOrder) {
    EXPECT_EQ(Json(1), Json(1.0));
    EXPECT_NE(Json(1), Json(1.5));
    EXPECT_NE(Json(1), Json("1"));
    EXPECT_NE(Json(0), Json(false));
    EXPECT_NE(Json(), Json(false));
    EXPECT_EQ(Json::parse(R"({"a":1,"b":[1,2]})"), Json::parse(R"({"b":[1,2],"a":1})"));
    EXPECT_NE(Json::parse(R"({"a":1})"), Json::parse(R"({"a":1,"b":2})"));
    EXPECT_NE(Json::parse(R"({"a":1,"b":2})"), Json::parse(R"({"a":1,"c":2})"));
    EXPECT_NE(Json::parse("[1,2]"), Json::parse("[2,1]"));  // arrays keep order
}

TEST(JsonValue, DescribesEachKindForErrorMessages) {
    EXPECT_EQ(Json().describe(), "null");
    EXPECT_EQ(Json(true).describe(), "a boolean");
    EXPECT_EQ(Json(1).describe(), "an integer");
    EXPECT_EQ(Json(1.5).describe(), "a number");
    EXPECT_EQ(Json("s").describe(), "a string");
    EXPECT_EQ(Json::array().describe(), "an array");
    EXPECT_EQ(Json::object().describe(), "an object");
}

}  // namespace
