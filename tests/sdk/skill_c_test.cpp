// skill_c.h, the plain-C helper for reading arguments and writing results, against hostile input.
// The header is C99 and C++-compatible; here it is driven with a recording writer.
#include <skillhost/skill_c.h>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>

namespace {

struct Recorded {
    std::string result;
    std::string error_code;
    std::string error_message;
};

skillhost_result_writer recording_writer(Recorded& r) {
    skillhost_result_writer w{};
    w.writer_context = &r;
    w.write_result = [](void* ctx, skillhost_string_view json) {
        static_cast<Recorded*>(ctx)->result.assign(json.data, json.size);
    };
    w.write_error = [](void* ctx, skillhost_string_view code, skillhost_string_view message, skillhost_string_view) {
        static_cast<Recorded*>(ctx)->error_code.assign(code.data, code.size);
        static_cast<Recorded*>(ctx)->error_message.assign(message.data, message.size);
    };
    w.struct_size = sizeof w;
    return w;
}

skillhost_string_view sv(const std::string& s) {
    return {s.data(), s.size()};
}

std::string read_string(const std::string& args, const char* name, skillhost_arg_status expected = SKILLHOST_ARG_OK) {
    char* text = nullptr;
    size_t size = 0;
    EXPECT_EQ(skillhost_arg_string(sv(args), name, &text, &size), expected) << args;
    std::string out = text ? std::string(text, size) : std::string();
    free(text);
    return out;
}

TEST(SkillC, ReadsMembersOfEachTypeByName) {
    const std::string args =
        R"({"skip":{"a":[1,{"b":"}"}],"c":"]"}, "text":"h\u00e9\ud83d\ude00\n\"q\"", "n": -42, "x": 2.5e1, "on": true})";
    EXPECT_EQ(read_string(args, "text"), "h\xC3\xA9\xF0\x9F\x98\x80\n\"q\"");
    int64_t n = 0;
    EXPECT_EQ(skillhost_arg_int(sv(args), "n", &n), SKILLHOST_ARG_OK);
    EXPECT_EQ(n, -42);
    double x = 0;
    EXPECT_EQ(skillhost_arg_number(sv(args), "x", &x), SKILLHOST_ARG_OK);
    EXPECT_EQ(x, 25.0);
    int on = 0;
    EXPECT_EQ(skillhost_arg_bool(sv(args), "on", &on), SKILLHOST_ARG_OK);
    EXPECT_EQ(on, 1);
    EXPECT_EQ(skillhost_arg_int(sv(args), "x", &n), SKILLHOST_ARG_WRONG_TYPE);
    EXPECT_EQ(skillhost_arg_int(sv(args), "a", &n), SKILLHOST_ARG_MISSING) << "nested members are not top-level";
    EXPECT_EQ(read_string(args, "n", SKILLHOST_ARG_WRONG_TYPE), "");
}

TEST(SkillC, RefusesMalformedAndOutOfRangeInput) {
    int64_t n = 7;
    EXPECT_EQ(skillhost_arg_int(sv(R"({"n":9223372036854775808})"), "n", &n), SKILLHOST_ARG_WRONG_TYPE);
    EXPECT_EQ(skillhost_arg_int(sv(R"({"n":-9223372036854775808})"), "n", &n), SKILLHOST_ARG_OK);
    EXPECT_EQ(n, INT64_MIN);
    EXPECT_EQ(skillhost_arg_int(sv(R"({"n":1)"), "m", &n), SKILLHOST_ARG_BAD_JSON);
    EXPECT_EQ(skillhost_arg_int(sv("[1]"), "n", &n), SKILLHOST_ARG_BAD_JSON);
    EXPECT_EQ(read_string(R"({"s":"unterminated)", "s", SKILLHOST_ARG_BAD_JSON), "");
    EXPECT_EQ(read_string(R"({"s":"bad \x escape"})", "s", SKILLHOST_ARG_BAD_JSON), "");
    // Deep nesting is skipped iteratively, without recursion.
    std::string deep = R"({"deep":)" + std::string(100000, '[') + std::string(100000, ']') + R"(,"s":"ok"})";
    EXPECT_EQ(read_string(deep, "s"), "ok");
}

TEST(SkillC, WritesValidJsonEvenFromInvalidUtf8) {
    Recorded r;
    auto writer = recording_writer(r);
    skillhost_json_out out = SKILLHOST_JSON_OUT_INIT;
    skillhost_out_begin_object(&out, nullptr);
    skillhost_out_string(&out, "s", "quote\" back\\ nl\n bad\xC3 end");
    skillhost_out_int(&out, "i", -3);
    skillhost_out_number(&out, "d", 0.5);
    skillhost_out_begin_array(&out, "list");
    skillhost_out_bool(&out, nullptr, 1);
    skillhost_out_null(&out, nullptr);
    skillhost_out_end_array(&out);
    skillhost_out_end_object(&out);
    ASSERT_EQ(skillhost_out_send(&out, &writer), SKILLHOST_STATUS_OK);
    auto v = boost::json::parse(r.result).as_object();
    EXPECT_EQ(v.at("s").as_string(), "quote\" back\\ nl\n bad\xEF\xBF\xBD end");
    EXPECT_EQ(v.at("i").as_int64(), -3);
    EXPECT_EQ(v.at("d").as_double(), 0.5);
    EXPECT_EQ(boost::json::serialize(v.at("list")), "[true,null]");
    EXPECT_EQ(out.data, nullptr) << "send frees the buffer";
}

TEST(SkillC, AnUnbalancedResultBecomesAnErrorNotBrokenJson) {
    Recorded r;
    auto writer = recording_writer(r);
    skillhost_json_out out = SKILLHOST_JSON_OUT_INIT;
    skillhost_out_begin_object(&out, nullptr);
    skillhost_out_int(&out, "i", 1);
    EXPECT_EQ(skillhost_out_send(&out, &writer), SKILLHOST_STATUS_ERROR);
    EXPECT_TRUE(r.result.empty());
    EXPECT_EQ(r.error_code, "PLUGIN_BUG");

    Recorded deep;
    auto deep_writer = recording_writer(deep);
    for (int i = 0; i < SKILLHOST_JSON_OUT_MAX_DEPTH + 1; ++i) skillhost_out_begin_array(&out, nullptr);
    EXPECT_EQ(skillhost_out_send(&out, &deep_writer), SKILLHOST_STATUS_ERROR);
    EXPECT_EQ(deep.error_code, "PLUGIN_BUG");
}

}  // namespace
