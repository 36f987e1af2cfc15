// Calling skills of loaded plugins over the C ABI: results and errors come back exactly as the
// plugin wrote them, and contract violations are captured for the executor to judge.
#include "plugin_test_support.hpp"

#include <gmock/gmock.h>

#include <thread>
#include <vector>

namespace skillhost::plugin {
namespace {

using ::testing::HasSubstr;
using testing::parse;

class InvokeTest : public testing::LoaderTest {};

TEST_F(InvokeTest, LoadedPluginDescribesItself) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    EXPECT_EQ(echo->manifest().name, "echo");
    EXPECT_EQ(echo->version(), "1.0.0");
    EXPECT_EQ(echo->abi_version().major, 1u);
    EXPECT_EQ(echo->abi_version().minor, std::uint32_t{SKILLHOST_ABI_VERSION_MINOR});  // built with skill.hpp
    EXPECT_EQ(echo->loaded_from().parent_path(), cache.path());
}

TEST_F(InvokeTest, EchoReturnsItsArguments) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    RawOutcome out = echo->invoke(context("echo"), R"({"text":"hi \"there\"","repeat":2})");
    EXPECT_EQ(out.status, SKILLHOST_STATUS_OK);
    ASSERT_EQ(out.written, RawOutcome::Written::result);
    EXPECT_EQ(parse(out.result_json), parse(R"({"echo":{"text":"hi \"there\"","repeat":2}})"));
    EXPECT_EQ(out.extra_writes, 0);
}

TEST_F(InvokeTest, AddComputesTheSum) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    RawOutcome out = echo->invoke(context("add"), R"({"a":40,"b":2})");
    ASSERT_EQ(out.written, RawOutcome::Written::result);
    EXPECT_EQ(parse(out.result_json), parse(R"({"sum":42})"));
    EXPECT_EQ(parse(echo->invoke(context("noop"), "{}").result_json), parse("{}"));
}

TEST_F(InvokeTest, SkillErrorArrivesAsStructuredError) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    RawOutcome out = echo->invoke(context("fail"), R"({"reason":"because"})");
    EXPECT_EQ(out.status, SKILLHOST_STATUS_ERROR);
    ASSERT_EQ(out.written, RawOutcome::Written::error);
    EXPECT_EQ(out.error_code, "ECHO_FAILED");
    EXPECT_THAT(out.error_message, HasSubstr("because"));
    EXPECT_EQ(parse(out.error_details_json), parse(R"({"reason":"because"})"));
}

TEST_F(InvokeTest, ExceptionBecomesPluginException) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    RawOutcome out = echo->invoke(context("throws"), "{}");
    EXPECT_EQ(out.status, SKILLHOST_STATUS_ERROR);
    EXPECT_EQ(out.error_code, "PLUGIN_EXCEPTION");
    EXPECT_THAT(out.error_message, HasSubstr("runtime_error"));
}

TEST_F(InvokeTest, UnknownSkillIsSkillNotFound) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    RawOutcome out = echo->invoke(context("no_such_skill"), "{}");
    EXPECT_EQ(out.status, SKILLHOST_STATUS_ERROR);
    ASSERT_EQ(out.written, RawOutcome::Written::error);
    EXPECT_EQ(out.error_code, "SKILL_NOT_FOUND");
    EXPECT_THAT(out.error_message, HasSubstr("no_such_skill"));
    EXPECT_THAT(out.error_message, HasSubstr("echo"));
}

TEST_F(InvokeTest, PlainCPluginWorks) {
    auto plain = load_fixture("plain_c");
    ASSERT_TRUE(plain);
    RawOutcome upper = plain->invoke(context("upper"), R"({"text":"Hello, \"C\" world"})");
    ASSERT_EQ(upper.written, RawOutcome::Written::result) << upper.error_message;
    EXPECT_EQ(parse(upper.result_json), parse(R"({"text":"HELLO, \"C\" WORLD"})"));

    RawOutcome count = plain->invoke(context("count"), R"({"text":"one two  three"})");
    ASSERT_EQ(count.written, RawOutcome::Written::result);
    EXPECT_EQ(parse(count.result_json), parse(R"({"characters":14,"words":3})"));
}

TEST_F(InvokeTest, ContractViolationsAreCapturedAsTheyHappened) {
    auto bad = load_fixture("bad_result");
    ASSERT_TRUE(bad);

    RawOutcome invalid = bad->invoke(context("invalid_json"), "{}");
    EXPECT_EQ(invalid.status, SKILLHOST_STATUS_OK);
    ASSERT_EQ(invalid.written, RawOutcome::Written::result);
    EXPECT_EQ(invalid.result_json, "{not json");

    RawOutcome nothing = bad->invoke(context("no_result"), "{}");
    EXPECT_EQ(nothing.status, SKILLHOST_STATUS_OK);
    EXPECT_EQ(nothing.written, RawOutcome::Written::nothing);

    RawOutcome twice = bad->invoke(context("double_write"), "{}");
    ASSERT_EQ(twice.written, RawOutcome::Written::result);
    EXPECT_EQ(parse(twice.result_json), parse(R"({"first":true})"));
    EXPECT_EQ(twice.extra_writes, 1);

    RawOutcome silent = bad->invoke(context("error_status_no_error"), "{}");
    EXPECT_EQ(silent.status, SKILLHOST_STATUS_ERROR);
    EXPECT_EQ(silent.written, RawOutcome::Written::nothing);
}

TEST_F(InvokeTest, ExceptionEscapingTheAbiBecomesAnError) {
    auto plugin = load_fixture("escaping_exception");
    ASSERT_TRUE(plugin);
    RawOutcome out = plugin->invoke(context("escape"), "{}");
    EXPECT_EQ(out.status, SKILLHOST_STATUS_ERROR);
    ASSERT_EQ(out.written, RawOutcome::Written::error);
    EXPECT_EQ(out.error_code, "PLUGIN_EXCEPTION");
    EXPECT_THAT(out.error_message, HasSubstr("escaped from the escape skill"));
    EXPECT_EQ(parse(out.error_details_json).at("skill"), "escape");
}

TEST_F(InvokeTest, ConcurrentCallsEachGetTheirOwnResult) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    std::vector<std::thread> threads;
    std::vector<RawOutcome> outcomes(8);
    for (int i = 0; i < 8; ++i)
        threads.emplace_back(
            [&, i] { outcomes[i] = echo->invoke(context("add"), R"({"a":)" + std::to_string(i) + R"(,"b":1000})"); });
    for (auto& t : threads) t.join();
    for (int i = 0; i < 8; ++i) EXPECT_EQ(parse(outcomes[i].result_json).at("sum").as_int64(), 1000 + i);
}

}  // namespace
}  // namespace skillhost::plugin
