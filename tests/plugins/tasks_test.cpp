// The tasks plugin through the real loader and executor.
#include "plugins/builtin_host.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <thread>

namespace skillhost::testing {
namespace {

namespace json = boost::json;
using ::testing::Contains;
using ::testing::HasSubstr;

class TasksTest : public ::testing::Test {
protected:
    BuiltinHost host;

    std::int64_t create(const std::string& args, const std::string& user = "alice") {
        auto r = host.call("task_create", args, user);
        EXPECT_TRUE(r.ok) << output_text(r);
        return r.ok ? field(r, "task").at("id").as_int64() : 0;
    }
    std::vector<std::string> titles(const exec::SkillResult& r) {
        std::vector<std::string> out;
        for (const auto& t : field(r, "tasks").as_array()) out.emplace_back(t.at("title").as_string());
        return out;
    }
};

TEST_F(TasksTest, CreatedTaskIsListedWithAllItsFields) {
    auto r = host.call(
        "task_create",
        R"({"title":"Submit report","notes":"Q3 numbers","priority":"high","tags":["Work"," finance "],"due":"2026-12-01"})");
    ASSERT_TRUE(r.ok) << output_text(r);
    const auto& task = field(r, "task").as_object();
    EXPECT_GE(task.at("id").as_int64(), 1);
    EXPECT_EQ(task.at("status"), "open");
    EXPECT_EQ(task.at("priority"), "high");
    EXPECT_EQ(task.at("tags"), (json::array{"work", "finance"}));
    EXPECT_EQ(task.at("due"), "2026-12-01");
    EXPECT_THAT(std::string(task.at("created").as_string()),
                ::testing::MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"));

    auto list = host.call("task_list", "{}");
    ASSERT_TRUE(list.ok) << output_text(list);
    EXPECT_EQ(field(list, "count"), 1);
    EXPECT_EQ(field(list, "tasks").as_array().at(0).at("notes"), "Q3 numbers");
}

// A run's step retried after a crash (or an approval, or an HTTP retry) carries the same key: the
// task is created once and the retry answers with it.
TEST_F(TasksTest, ARetriedCreateWithTheSameIdempotencyKeyCreatesOneTask) {
    auto first = host.call_with_key("task_create", R"({"title":"Call the dentist"})", "run-1:3");
    ASSERT_TRUE(first.ok) << output_text(first);
    EXPECT_TRUE(field(first, "created").as_bool());
    auto retry = host.call_with_key("task_create", R"({"title":"Call the dentist"})", "run-1:3");
    ASSERT_TRUE(retry.ok) << output_text(retry);
    EXPECT_EQ(field(retry, "task").at("id"), field(first, "task").at("id"));
    EXPECT_FALSE(field(retry, "created").as_bool()) << "the retry created nothing";
    auto other_step = host.call_with_key("task_create", R"({"title":"Call the dentist"})", "run-1:4");
    ASSERT_TRUE(other_step.ok) << output_text(other_step);
    EXPECT_NE(field(other_step, "task").at("id"), field(first, "task").at("id"));

    auto listed = host.call("task_list", "{}");
    ASSERT_TRUE(listed.ok) << output_text(listed);
    EXPECT_EQ(field(listed, "tasks").as_array().size(), 2u) << output_text(listed);
    // Without a retry key (a one-off direct call) each call creates.
    create(R"({"title":"Call the dentist"})");
    create(R"({"title":"Call the dentist"})");
    auto all = host.call("task_list", "{}");
    EXPECT_EQ(field(all, "tasks").as_array().size(), 4u);
}

// An update or a delete retried with its key (its instance died after the change, before the run
// saved the result) changes nothing again and answers what the first attempt answered: the fields
// it changed, the task it deleted (not TASK_NOT_FOUND).
TEST_F(TasksTest, ARetriedUpdateOrDeleteWithTheSameKeyAnswersTheFirstResult) {
    const std::string id = std::to_string(create(R"({"title":"Call the dentist"})"));
    auto done = host.call_with_key("task_update", R"({"id":)" + id + R"(,"status":"done"})", "run-2:1");
    ASSERT_TRUE(done.ok) << output_text(done);
    EXPECT_EQ(field(done, "changed"), (json::array{"status"}));
    auto reopened = host.call("task_update", R"({"id":)" + id + R"(,"status":"open"})");
    ASSERT_TRUE(reopened.ok) << output_text(reopened);
    auto retried = host.call_with_key("task_update", R"({"id":)" + id + R"(,"status":"done"})", "run-2:1");
    ASSERT_TRUE(retried.ok) << output_text(retried);
    EXPECT_EQ(output_text(retried), output_text(done));
    auto after = host.call("task_list", "{}");
    EXPECT_EQ(field(after, "tasks").as_array().at(0).at("status"), "open") << "the retry changed nothing";

    auto deleted = host.call_with_key("task_delete", R"({"id":)" + id + "}", "run-2:2");
    ASSERT_TRUE(deleted.ok) << output_text(deleted);
    auto again = host.call_with_key("task_delete", R"({"id":)" + id + "}", "run-2:2");
    ASSERT_TRUE(again.ok) << output_text(again);
    EXPECT_EQ(output_text(again), output_text(deleted));
    auto other = host.call_with_key("task_delete", R"({"id":)" + id + "}", "run-2:3");
    EXPECT_FALSE(other.ok) << "a new key deletes again: the task is gone";
}

TEST_F(TasksTest, ListFiltersAndHidesFinishedTasksUnlessAsked) {
    create(R"({"title":"Alpha","priority":"low","tags":["home"]})");
    auto beta = create(R"({"title":"Beta","priority":"high","tags":["work"]})");
    auto gamma = create(R"({"title":"Gamma","tags":["work"]})");
    ASSERT_TRUE(host.call("task_update", "{\"id\":" + std::to_string(gamma) + ",\"status\":\"done\"}").ok);
    ASSERT_TRUE(host.call("task_update", "{\"id\":" + std::to_string(beta) + ",\"status\":\"in_progress\"}").ok);

    EXPECT_EQ(titles(host.call("task_list", "{}")), (std::vector<std::string>{"Beta", "Alpha"}));
    EXPECT_EQ(titles(host.call("task_list", R"({"include_completed":true})")),
              (std::vector<std::string>{"Beta", "Alpha", "Gamma"}));
    EXPECT_EQ(titles(host.call("task_list", R"({"status":"done"})")), (std::vector<std::string>{"Gamma"}));
    EXPECT_EQ(titles(host.call("task_list", R"({"tag":"WORK"})")), (std::vector<std::string>{"Beta"}));
    EXPECT_EQ(titles(host.call("task_list", R"({"priority":"low"})")), (std::vector<std::string>{"Alpha"}));
    auto limited = host.call("task_list", R"({"include_completed":true,"limit":1})");
    EXPECT_EQ(field(limited, "count"), 1);
    EXPECT_EQ(field(limited, "total"), 3);
    EXPECT_EQ(field(limited, "truncated"), true);
}

TEST_F(TasksTest, FindRanksTitleMatchesAboveNotesMatches) {
    create(R"({"title":"Buy milk","notes":"for the quarterly report meeting"})");
    create(R"({"title":"Write quarterly report","tags":["work"]})");
    create(R"({"title":"Call the plumber"})");
    auto r = host.call("task_find", R"({"query":"quarterly report"})");
    ASSERT_TRUE(r.ok) << output_text(r);
    EXPECT_EQ(titles(r), (std::vector<std::string>{"Write quarterly report", "Buy milk"}));
    const auto& best = field(r, "tasks").as_array().at(0).as_object();
    EXPECT_GT(best.at("score").to_number<double>(), field(r, "tasks").as_array().at(1).at("score").to_number<double>());
    EXPECT_EQ(best.at("matched"), json::array{"title"});
    EXPECT_EQ(titles(host.call("task_find", R"({"query":"work"})")),
              (std::vector<std::string>{"Write quarterly report"}));
}

TEST_F(TasksTest, FindWithoutWordsIsInvalidQuery) {
    auto r = host.call("task_find", R"({"query":"?!"})");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.code, "INVALID_QUERY");
    EXPECT_THAT(r.error.suggestions, Contains(HasSubstr("task_list")));
}

TEST_F(TasksTest, UpdateChangesFieldsAndRecordsCompletion) {
    auto id = create(R"({"title":"Draft","due":"2026-12-01","tags":["a"]})");
    auto r = host.call("task_update", "{\"id\":" + std::to_string(id) +
                                          R"(,"title":"Final","status":"Completed","tags":["b","c"],"due":""})");
    ASSERT_TRUE(r.ok) << output_text(r);
    const auto& task = field(r, "task").as_object();
    EXPECT_EQ(task.at("title"), "Final");
    EXPECT_EQ(task.at("status"), "done");
    EXPECT_TRUE(task.at("completed").is_string());
    EXPECT_TRUE(task.at("due").is_null());
    EXPECT_EQ(task.at("tags"), (json::array{"b", "c"}));
    EXPECT_EQ(field(r, "changed"), (json::array{"title", "status", "tags", "due"}));

    auto reopened = host.call("task_update", "{\"id\":" + std::to_string(id) + R"(,"status":"open"})");
    ASSERT_TRUE(reopened.ok);
    EXPECT_TRUE(field(reopened, "task").at("completed").is_null());
}

TEST_F(TasksTest, UnknownIdIsTaskNotFoundWithLookupHints) {
    for (const char* skill : {"task_update", "task_delete"}) {
        auto r = host.call(
            skill, std::string(R"({"id":4242)") + (std::string(skill) == "task_update" ? R"(,"title":"x"})" : "}"));
        ASSERT_FALSE(r.ok) << skill;
        EXPECT_EQ(r.error.code, "TASK_NOT_FOUND") << skill;
        EXPECT_THAT(r.error.message, HasSubstr("4242"));
        EXPECT_EQ(r.error.details.at("id"), 4242);
        EXPECT_THAT(r.error.suggestions, Contains(HasSubstr("task_find")));
        EXPECT_THAT(r.error.suggestions, Contains(HasSubstr("task_list")));
    }
}

TEST_F(TasksTest, InvalidStatusListsTheValidOnesAndChangesNothing) {
    auto id = create(R"({"title":"Keep me"})");
    auto r = host.call("task_update", "{\"id\":" + std::to_string(id) + R"(,"status":"someday","title":"Changed"})");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.code, "INVALID_STATUS");
    for (const char* s : {"open", "in_progress", "done", "cancelled"}) EXPECT_THAT(r.error.message, HasSubstr(s));
    EXPECT_EQ(r.error.details.at("valid_statuses"), (json::array{"open", "in_progress", "done", "cancelled"}));
    EXPECT_EQ(titles(host.call("task_list", "{}")), (std::vector<std::string>{"Keep me"}));

    auto listed = host.call("task_list", R"({"status":"someday"})");
    ASSERT_FALSE(listed.ok);
    EXPECT_EQ(listed.error.code, "INVALID_STATUS");
}

TEST_F(TasksTest, BadDueDateAndEmptyUpdateAreRejected) {
    auto bad_due = host.call("task_create", R"({"title":"x","due":"next tuesday"})");
    ASSERT_FALSE(bad_due.ok);
    EXPECT_EQ(bad_due.error.code, "INVALID_DUE_DATE");
    auto id = create(R"({"title":"x","due":"2026-12-01T17:00:00+01:00"})");
    auto nothing = host.call("task_update", "{\"id\":" + std::to_string(id) + "}");
    ASSERT_FALSE(nothing.ok);
    EXPECT_EQ(nothing.error.code, "NOTHING_TO_UPDATE");
    auto list = host.call("task_list", "{}");
    EXPECT_EQ(field(list, "tasks").as_array().at(0).at("due"), "2026-12-01T17:00:00+01:00");
}

TEST_F(TasksTest, DeleteRemovesTheTaskOnce) {
    auto id = create(R"({"title":"Temporary"})");
    auto r = host.call("task_delete", "{\"id\":" + std::to_string(id) + "}");
    ASSERT_TRUE(r.ok) << output_text(r);
    EXPECT_EQ(field(r, "task").at("title"), "Temporary");
    EXPECT_EQ(field(host.call("task_list", R"({"include_completed":true})"), "count"), 0);
    auto again = host.call("task_delete", "{\"id\":" + std::to_string(id) + "}");
    ASSERT_FALSE(again.ok);
    EXPECT_EQ(again.error.code, "TASK_NOT_FOUND");
}

TEST_F(TasksTest, UsersNeverSeeEachOthersTasks) {
    auto alice_id = create(R"({"title":"Alice's secret plan"})", "alice");
    create(R"({"title":"Bob's errand"})", "bob");
    EXPECT_EQ(titles(host.call("task_list", "{}", "alice")), (std::vector<std::string>{"Alice's secret plan"}));
    EXPECT_EQ(titles(host.call("task_list", "{}", "bob")), (std::vector<std::string>{"Bob's errand"}));
    EXPECT_EQ(field(host.call("task_find", R"({"query":"secret plan"})", "bob"), "count"), 0);
    // Ids are per user: the same id names Bob's own task for Bob, never Alice's.
    auto r = host.call("task_delete", "{\"id\":" + std::to_string(alice_id) + "}", "bob");
    ASSERT_TRUE(r.ok) << output_text(r);
    EXPECT_EQ(field(r, "task").at("title"), "Bob's errand");
    EXPECT_EQ(titles(host.call("task_list", "{}", "alice")), (std::vector<std::string>{"Alice's secret plan"}));
    // Kept in the host's storage (per plugin and user), no longer in a file of the data directory.
    EXPECT_FALSE(std::filesystem::exists(host.users_dir() / "alice" / "plugins" / "tasks" / "tasks.db"));
    EXPECT_FALSE(std::filesystem::exists(host.users_dir() / "bob" / "plugins" / "tasks" / "tasks.db"));
}

TEST_F(TasksTest, ConcurrentCreatesFromTwoThreadsAllLandWithDistinctIds) {
    constexpr int kPerThread = 20;
    std::vector<std::int64_t> ids[2];
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                auto r =
                    host.call("task_create", "{\"title\":\"thread " + std::to_string(t) + " task " + std::to_string(i) +
                                                 "\",\"tags\":[\"t" + std::to_string(t) + "\"]}");
                if (r.ok)
                    ids[t].push_back(field(r, "task").at("id").as_int64());
                else
                    ADD_FAILURE() << output_text(r);
            }
        });
    for (auto& th : threads) th.join();
    std::set<std::int64_t> all(ids[0].begin(), ids[0].end());
    all.insert(ids[1].begin(), ids[1].end());
    EXPECT_EQ(all.size(), 2u * kPerThread);
    auto list = host.call("task_list", R"({"limit":500})");
    EXPECT_EQ(field(list, "total"), 2 * kPerThread);
    EXPECT_EQ(field(host.call("task_list", R"({"tag":"t1","limit":500})"), "count"), kPerThread);
}

}  // namespace
}  // namespace skillhost::testing
