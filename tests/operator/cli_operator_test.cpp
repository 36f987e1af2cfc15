// `ask`, `runs list`, `runs show` and `guide` from a shell, with the builtin model, a fresh home and
// demo data created with `call`.
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;

class CliOperator : public ::testing::Test {
protected:
    ProcessResult run(std::vector<std::string> args) {
        args.insert(args.begin(), SKILLHOST_OPERATOR_PROBE);
        return run_process(args, {{"SKILLHOST_HOME", home.path().string()}, {"SKILLHOST_CONFIG", ""}});
    }
    TempDir home{"skillhost-cli-operator"};
};

TEST_F(CliOperator, AskAnswersFromTheTaskListAndTheRunIsListed) {
    auto created = run({"call", "task_create", "--args", R"({"title":"Water the plants"})"});
    ASSERT_EQ(created.exit_code, 0) << created.err;

    auto asked = run({"ask", "What tasks do I have?"});
    ASSERT_EQ(asked.exit_code, 0) << asked.err;
    EXPECT_THAT(asked.out, HasSubstr("Water the plants"));

    auto json = run({"ask", "What tasks do I have?", "--json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    auto record = boost::json::parse(json.out).as_object();
    EXPECT_EQ(record.at("status"), "completed");
    EXPECT_EQ(record.at("verbatim"), true);
    const std::string id(record.at("id").as_string());

    auto listed = run({"runs", "list"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_THAT(listed.out, HasSubstr(id));
    EXPECT_THAT(listed.out, HasSubstr("completed"));

    auto shown = run({"runs", "show", id});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_THAT(shown.out, HasSubstr("action: task_list"));
    EXPECT_THAT(shown.out, HasSubstr("Water the plants"));

    // Every model call is in the audit log with its role and backend.
    auto audited = run({"audit", "tail", "--kind", "llm_call", "--json"});
    ASSERT_EQ(audited.exit_code, 0) << audited.err;
    EXPECT_THAT(audited.out, HasSubstr("\"role\":\"orchestrator\""));
    EXPECT_THAT(audited.out, HasSubstr("\"backend\":\"builtin\""));
}

TEST_F(CliOperator, HistoryTurnsGoIntoTheRunOldestFirst) {
    auto json = run({"ask", "What tasks do I have?", "--json", "--history", "User: hello", "--history",
                     "Assistant: Hi! How can I help?"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    auto record = boost::json::parse(json.out).as_object();
    EXPECT_EQ(record.at("history"), (boost::json::array{"User: hello", "Assistant: Hi! How can I help?"}));
}

TEST_F(CliOperator, StreamPrintsEventsOnStderrAndKeepsStdoutForTheAnswer) {
    auto asked = run({"ask", "Create a task to call the dentist", "--stream"});
    ASSERT_EQ(asked.exit_code, 0) << asked.err;
    EXPECT_THAT(asked.err, HasSubstr("[action] task_create"));
    EXPECT_THAT(asked.err, HasSubstr("[completion]"));
    EXPECT_THAT(asked.out, ::testing::Not(HasSubstr("[action]")));
    auto tasks = run({"call", "task_list"});
    EXPECT_THAT(tasks.out, HasSubstr("dentist"));
}

TEST_F(CliOperator, ApprovingAPausedActionResumesTheRunToItsAnswer) {
    // At trust `suggest` every write asks first, so the run pauses at task_create.
    TempDir etc{"skillhost-cli-operator-etc"};
    write_file(etc / "skillhost.yaml", "plugin_dirs: []\n");
    write_file(etc / "users.yaml", "users:\n  - {id: owner, role: owner, trust: suggest}\n");
    const std::string config = (etc / "skillhost.yaml").string();

    auto asked = run({"ask", "Create a task to call the dentist", "--json", "--config", config});
    auto paused = boost::json::parse(asked.out).as_object();
    ASSERT_EQ(paused.at("status"), "awaiting_approval") << asked.out << asked.err;
    const std::string approval(paused.at("approval_id").as_string());
    EXPECT_THAT(run({"call", "task_list", "--config", config}).out, ::testing::Not(HasSubstr("dentist")));

    auto approved = run({"approvals", "approve", approval, "--json", "--config", config});
    ASSERT_EQ(approved.exit_code, 0) << approved.out << approved.err;
    auto out = boost::json::parse(approved.out).as_object();
    EXPECT_EQ(out.at("approval").at("state"), "executed");
    ASSERT_TRUE(out.contains("run")) << approved.out;
    EXPECT_EQ(out.at("run").at("status"), "completed") << approved.out;
    EXPECT_EQ(out.at("run").at("id"), paused.at("id"));
    EXPECT_THAT(run({"call", "task_list", "--config", config}).out, HasSubstr("dentist"));
}

TEST_F(CliOperator, ErrorsSayWhatToDo) {
    auto missing = run({"runs", "show", "run-0000000000000000"});
    EXPECT_NE(missing.exit_code, 0);
    EXPECT_THAT(missing.err, HasSubstr("RUN_NOT_FOUND"));
    EXPECT_THAT(missing.err, HasSubstr("skillhost runs list"));
    auto guided = run({"guide", "run-0000000000000000", "try the docs folder"});
    EXPECT_NE(guided.exit_code, 0);
    EXPECT_THAT(guided.err, HasSubstr("RUN_NOT_FOUND"));
    auto bad_mode = run({"ask", "hi", "--mode", "dreaming"});
    EXPECT_NE(bad_mode.exit_code, 0);
    EXPECT_THAT(bad_mode.err, HasSubstr("INVALID_MODE"));
}

}  // namespace
}  // namespace skillhost::testing
