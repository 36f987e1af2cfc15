// The memory plugin through the real loader and executor. Every time-window query injects `now`
// with an explicit offset, so results do not depend on the clock or the machine's time zone.
#include "plugins/builtin_host.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::testing {
namespace {

namespace json = boost::json;
using ::testing::Contains;
using ::testing::HasSubstr;

// Saturday 21 November 2026, 15:00 in UTC+1.
constexpr const char* kNow = "2026-11-21T15:00:00+01:00";

class MemoryTest : public ::testing::Test {
protected:
    BuiltinHost host;

    void SetUp() override {
        capture("Planning meeting with Dana about the roadmap", "event", "2026-11-20T10:00:00+01:00",
                R"(["work","meeting"])");
        capture("Late dinner with Sam", "event", "2026-11-20T21:30:00+01:00");
        capture("Dentist appointment, next one in six months", "event", "2026-11-21T08:30:00+01:00");
        capture("Budget meeting moved to Monday", "note", "2026-11-21T13:15:00+01:00", R"(["work"])");
        capture("Team offsite meeting in Lisbon", "event", "2026-11-12T09:00:00+01:00", R"(["work","meeting"])");
        capture("Quarterly meeting with the board", "event", "2026-10-15T11:00:00+01:00");
    }

    void capture(const std::string& text, const std::string& kind, const std::string& ts,
                 const std::string& tags = "[]", const std::string& user = "alice") {
        auto r = host.call(
            "memory_capture",
            "{\"text\":\"" + text + "\",\"kind\":\"" + kind + "\",\"timestamp\":\"" + ts + "\",\"tags\":" + tags + "}",
            user);
        ASSERT_TRUE(r.ok) << output_text(r);
    }
    std::vector<std::string> texts(const exec::SkillResult& r, const char* list) {
        std::vector<std::string> out;
        EXPECT_TRUE(r.ok) << output_text(r);
        if (!r.ok) return out;
        for (const auto& m : field(r, list).as_array()) out.emplace_back(m.at("text").as_string());
        return out;
    }
    std::vector<std::string> recent(const std::string& when) {
        return texts(host.call("memory_recent", "{\"when\":\"" + when + "\",\"now\":\"" + kNow + "\"}"), "memories");
    }
};

// A retried step (same idempotency key) stores the memory once and answers with it.
TEST_F(MemoryTest, ARetriedCaptureWithTheSameIdempotencyKeyStoresOnce) {
    const std::string args = R"({"text":"Parking is on level 3","timestamp":"2026-11-21T09:00:00+01:00"})";
    auto first = host.call_with_key("memory_capture", args, "run-9:2");
    ASSERT_TRUE(first.ok) << output_text(first);
    auto retry = host.call_with_key("memory_capture", args, "run-9:2");
    ASSERT_TRUE(retry.ok) << output_text(retry);
    EXPECT_EQ(field(retry, "memory").at("id"), field(first, "memory").at("id"));
    EXPECT_FALSE(field(retry, "captured").as_bool()) << "the retry stored nothing";
    auto found = host.call("memory_search", R"({"query":"parking level"})");
    ASSERT_TRUE(found.ok) << output_text(found);
    EXPECT_EQ(texts(found, "results"), std::vector<std::string>{"Parking is on level 3"});
}

TEST_F(MemoryTest, CaptureReturnsTheStoredMemory) {
    auto r = host.call(
        "memory_capture",
        R"({"text":"Prefer short answers","kind":"guidance","tags":["Style"],"timestamp":"2026-11-21T09:00:00+01:00"})");
    ASSERT_TRUE(r.ok) << output_text(r);
    const auto& m = field(r, "memory").as_object();
    EXPECT_EQ(m.at("kind"), "guidance");
    EXPECT_EQ(m.at("tags"), json::array{"style"});
    EXPECT_EQ(m.at("timestamp"), "2026-11-21T09:00:00+01:00");
    EXPECT_GE(m.at("id").as_int64(), 1);
}

TEST_F(MemoryTest, CaptureWithoutTimestampUsesNow) {
    auto r = host.call("memory_capture", R"({"text":"Just now"})");
    ASSERT_TRUE(r.ok) << output_text(r);
    EXPECT_EQ(field(r, "memory").at("kind"), "note");
    EXPECT_THAT(texts(host.call("memory_recent", R"({"when":"last 1 hours"})"), "memories"), Contains("Just now"));
}

TEST_F(MemoryTest, SearchFindsWordFormsRankedWithSnippetsInsideTheWindow) {
    auto r =
        host.call("memory_search", std::string(R"({"query":"meetings","when":"yesterday","now":")") + kNow + "\"}");
    EXPECT_EQ(texts(r, "results"), (std::vector<std::string>{"Planning meeting with Dana about the roadmap"}));
    const auto& hit = field(r, "results").as_array().at(0).as_object();
    EXPECT_EQ(hit.at("timestamp"), "2026-11-20T10:00:00+01:00");
    EXPECT_THAT(std::string(hit.at("snippet").as_string()), HasSubstr("[meeting]"));
    EXPECT_EQ(field(r, "window").at("since"), "2026-11-20T00:00:00+01:00");
    EXPECT_EQ(field(r, "window").at("until"), "2026-11-21T00:00:00+01:00");

    auto all = host.call("memory_search", std::string(R"({"query":"budget meeting","now":")") + kNow + "\"}");
    auto found = texts(all, "results");
    ASSERT_EQ(found.size(), 4u);
    EXPECT_EQ(found.front(), "Budget meeting moved to Monday");  // matches both words
    double previous = 1e9;
    for (const auto& m : field(all, "results").as_array()) {
        double score = m.at("score").to_number<double>();
        EXPECT_LE(score, previous);
        previous = score;
    }
}

TEST_F(MemoryTest, SearchFiltersByKindTagAndSinceUntil) {
    std::string now = std::string(",\"now\":\"") + kNow + "\"}";
    EXPECT_EQ(texts(host.call("memory_search", R"({"query":"meeting","kind":"note")" + now), "results"),
              (std::vector<std::string>{"Budget meeting moved to Monday"}));
    EXPECT_EQ(
        texts(host.call("memory_search", R"({"query":"meeting","tag":"MEETING","when":"this week")" + now), "results"),
        (std::vector<std::string>{"Planning meeting with Dana about the roadmap"}));
    EXPECT_EQ(
        texts(
            host.call("memory_search",
                      R"({"query":"meeting","since":"2026-10-01T00:00:00+01:00","until":"2026-11-01T00:00:00+01:00"})"),
            "results"),
        (std::vector<std::string>{"Quarterly meeting with the board"}));
}

TEST_F(MemoryTest, RelativeWindowsFollowTheInjectedNow) {
    EXPECT_EQ(recent("today"), (std::vector<std::string>{"Budget meeting moved to Monday",
                                                         "Dentist appointment, next one in six months"}));
    EXPECT_EQ(recent("this morning"), (std::vector<std::string>{"Dentist appointment, next one in six months"}));
    EXPECT_EQ(recent("this afternoon"), (std::vector<std::string>{"Budget meeting moved to Monday"}));
    EXPECT_EQ(recent("last night"), (std::vector<std::string>{"Late dinner with Sam"}));
    EXPECT_EQ(recent("yesterday"),
              (std::vector<std::string>{"Late dinner with Sam", "Planning meeting with Dana about the roadmap"}));
    EXPECT_EQ(recent("last week"), (std::vector<std::string>{"Team offsite meeting in Lisbon"}));
    EXPECT_EQ(recent("this week").size(), 4u);
    EXPECT_EQ(recent("last month"), (std::vector<std::string>{"Quarterly meeting with the board"}));
    EXPECT_EQ(recent("this month").size(), 5u);
    EXPECT_EQ(recent("last 2 days").size(), 4u);
    EXPECT_EQ(recent("9 days ago"), (std::vector<std::string>{"Team offsite meeting in Lisbon"}));
    EXPECT_EQ(recent("2026-10-15"), (std::vector<std::string>{"Quarterly meeting with the board"}));
    EXPECT_TRUE(recent("this evening").empty());
}

TEST_F(MemoryTest, RecentWithoutWindowListsNewestFirstUpToLimit) {
    auto r = host.call("memory_recent", R"({"limit":2})");
    EXPECT_EQ(texts(r, "memories"), (std::vector<std::string>{"Budget meeting moved to Monday",
                                                              "Dentist appointment, next one in six months"}));
    EXPECT_EQ(field(r, "window").at("description"), "any time");
}

TEST_F(MemoryTest, BadWindowsTimestampsAndQueriesAreExplained) {
    auto phrase = host.call("memory_recent", R"({"when":"a fortnight back"})");
    ASSERT_FALSE(phrase.ok);
    EXPECT_EQ(phrase.error.code, "INVALID_TIME_WINDOW");
    EXPECT_THAT(phrase.error.message, HasSubstr("last week"));
    EXPECT_FALSE(phrase.error.suggestions.empty());

    auto reversed = host.call("memory_recent", R"({"since":"2026-11-21","until":"2026-11-20"})");
    ASSERT_FALSE(reversed.ok);
    EXPECT_EQ(reversed.error.code, "INVALID_TIME_WINDOW");

    for (const auto& [skill, args] : std::vector<std::pair<std::string, std::string>>{
             {"memory_capture", R"({"text":"x","timestamp":"yesterday-ish"})"},
             {"memory_search", R"({"query":"x","since":"20261121"})"},
             {"memory_recent", R"({"now":"noon"})"}}) {
        auto r = host.call(skill, args);
        ASSERT_FALSE(r.ok) << skill;
        EXPECT_EQ(r.error.code, "INVALID_TIMESTAMP") << skill;
    }

    auto query = host.call("memory_search", R"({"query":"\"(*)\""})");
    ASSERT_FALSE(query.ok);
    EXPECT_EQ(query.error.code, "INVALID_QUERY");
}

TEST_F(MemoryTest, QueryTextIsNeverFtsSyntax) {
    // Operators and quotes in user text are searched as words, never parsed as an FTS5 query.
    auto r = host.call("memory_search", R"({"query":"NEAR(dinner \"Sam\" OR) AND *"})");
    EXPECT_EQ(texts(r, "results"), (std::vector<std::string>{"Late dinner with Sam"}));
}

TEST_F(MemoryTest, UsersHaveSeparateMemories) {
    capture("Bob's private note about meeting", "note", "2026-11-21T10:00:00+01:00", "[]", "bob");
    auto bob = host.call("memory_search", R"({"query":"meeting"})", "bob");
    EXPECT_EQ(texts(bob, "results"), (std::vector<std::string>{"Bob's private note about meeting"}));
    auto alice = host.call("memory_search", R"({"query":"private"})", "alice");
    EXPECT_TRUE(texts(alice, "results").empty());
    EXPECT_EQ(texts(host.call("memory_recent", "{}", "carol"), "memories").size(), 0u);
}

}  // namespace
}  // namespace skillhost::testing
