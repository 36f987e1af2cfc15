// `ask`, `runs list`, `runs show` and `guide` from a shell, with the builtin model, a fresh home and
// demo data created with `call`.
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <set>
#include <sstream>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;

class CliOperator : public ::testing::Test {
protected:
    ProcessResult run(std::vector<std::string> args) {
        args.insert(args.begin(), SKILLHOST_OPERATOR_PROBE);
        return run_process(args, {{"SKILLHOST_HOME", home.path().string()}, {"SKILLHOST_CONFIG", ""}});
    }
    // A configuration whose owner has trust `suggest`: every write asks first, so `ask` pauses at
    // task_create. Returns the --config path.
    std::string suggest_trust_config() {
        write_file(etc / "skillhost.yaml", "plugin_dirs: []\n");
        write_file(etc / "users.yaml", "users:\n  - {id: owner, role: owner, trust: suggest}\n");
        return (etc / "skillhost.yaml").string();
    }
    TempDir home{"skillhost-cli-operator"};
    TempDir etc{"skillhost-cli-operator-etc"};
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

// A completion a skill asks for during a run (conversational_response asks the persona model) is
// audited under that run, like the operator's own model calls.
TEST_F(CliOperator, EveryModelCallOfARunIsAuditedUnderTheRun) {
    auto json = run({"ask", "Hello there, how are you today?", "--json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const std::string id(boost::json::parse(json.out).at("id").as_string());
    auto audited = run({"audit", "tail", "--kind", "llm_call", "--json"});
    ASSERT_EQ(audited.exit_code, 0) << audited.err;
    std::set<std::string> roles;
    std::istringstream lines(audited.out);
    for (std::string line; std::getline(lines, line);) {
        const auto record = boost::json::parse(line).as_object();
        roles.insert(std::string(record.at("role").as_string()));
        EXPECT_EQ(record.at("run_id").as_string(), id) << line;
        EXPECT_EQ(record.at("user").as_string(), "owner") << line;
    }
    EXPECT_TRUE(roles.count("orchestrator")) << audited.out;
    EXPECT_TRUE(roles.count("persona")) << "no completion made by a skill: " << audited.out;
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
    const std::string config = suggest_trust_config();

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

TEST_F(CliOperator, RunsResumeSaysWhyARunCannotContinue) {
    const std::string config = suggest_trust_config();
    auto asked = run({"ask", "Create a task to call the dentist", "--json", "--config", config});
    auto paused = boost::json::parse(asked.out).as_object();
    ASSERT_EQ(paused.at("status"), "awaiting_approval") << asked.out << asked.err;
    const std::string id(paused.at("id").as_string());
    const std::string approval(paused.at("approval_id").as_string());

    // Still pending: resuming says so and how to resolve it.
    auto early = run({"runs", "resume", id, "--config", config});
    EXPECT_NE(early.exit_code, 0);
    EXPECT_THAT(early.err, HasSubstr("APPROVAL_STILL_PENDING"));
    EXPECT_THAT(early.err, HasSubstr("skillhost approvals approve " + approval));

    // Rejecting resumes the run (it answers without the action); a second resume is refused.
    auto rejected = run({"approvals", "reject", approval, "--reason", "not now", "--json", "--config", config});
    ASSERT_EQ(rejected.exit_code, 0) << rejected.out << rejected.err;
    auto again = run({"runs", "resume", id, "--json", "--config", config});
    EXPECT_NE(again.exit_code, 0);
    EXPECT_THAT(again.out + again.err, HasSubstr("RUN_NOT_AWAITING_APPROVAL"));
    auto missing = run({"runs", "resume", "run-0000000000000000"});
    EXPECT_NE(missing.exit_code, 0);
    EXPECT_THAT(missing.err, HasSubstr("RUN_NOT_FOUND"));
    EXPECT_THAT(run({"call", "task_list", "--config", config}).out, ::testing::Not(HasSubstr("dentist")));
}

TEST_F(CliOperator, TokenCreateListRevokeStoresOnlyTheHash) {
    auto created = run({"token", "create", "--label", "ci", "--json"});
    ASSERT_EQ(created.exit_code, 0) << created.err;
    auto token = boost::json::parse(created.out).as_object();
    const std::string secret(token.at("token").as_string());
    const std::string id(token.at("id").as_string());
    EXPECT_EQ(secret.rfind("shk_", 0), 0u) << secret;
    EXPECT_EQ(token.at("user_id"), "owner");
    EXPECT_EQ(id.size(), 12u);

    auto plain = run({"token", "create", "--label", "laptop"});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(plain.out.rfind("shk_", 0), 0u) << "stdout carries only the token: " << plain.out;
    EXPECT_THAT(plain.err, HasSubstr("shown only now"));

    auto listed = run({"token", "list", "--json"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    bool listed_with_label = false;
    const auto tokens = boost::json::parse(listed.out);
    for (const auto& t : tokens.at("tokens").as_array())
        listed_with_label = listed_with_label || (t.at("id") == id.c_str() && t.at("label") == "ci");
    EXPECT_TRUE(listed_with_label) << listed.out;
    EXPECT_THAT(listed.out, ::testing::Not(HasSubstr(secret)));

    auto unknown_user = run({"token", "create", "--user", "mallory"});
    EXPECT_NE(unknown_user.exit_code, 0);
    EXPECT_THAT(unknown_user.err, HasSubstr("USER_NOT_FOUND"));
    auto short_id = run({"token", "revoke", "abc"});
    EXPECT_NE(short_id.exit_code, 0);
    EXPECT_THAT(short_id.err, HasSubstr("INVALID_TOKEN_ID"));

    auto revoked = run({"token", "revoke", id, "--json"});
    ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
    EXPECT_EQ(boost::json::parse(revoked.out).at("revoked"), 1);
    auto twice = run({"token", "revoke", id});
    EXPECT_NE(twice.exit_code, 0);
    EXPECT_THAT(twice.err, HasSubstr("TOKEN_NOT_FOUND"));
    auto after = run({"token", "list"});
    EXPECT_THAT(after.out, ::testing::Not(HasSubstr(id)));
    EXPECT_THAT(after.out, HasSubstr("laptop"));
}

TEST_F(CliOperator, DemoSeedFillsTheHomeOnceUnlessForced) {
    auto seeded = run({"demo", "seed", "--json"});
    ASSERT_EQ(seeded.exit_code, 0) << seeded.out << seeded.err;
    auto summary = boost::json::parse(seeded.out).as_object();
    EXPECT_EQ(summary.at("user"), "owner");
    const auto tasks = summary.at("tasks").as_int64();
    EXPECT_GT(tasks, 0);
    EXPECT_GT(summary.at("memories").as_int64(), 0);
    EXPECT_GT(summary.at("files").as_int64(), 0);
    EXPECT_TRUE(std::filesystem::is_directory(std::string(summary.at("workspace").as_string())));

    auto listed = run({"call", "task_list"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    // The seeding calls went through the pipeline like any other: the audit log has them, and its
    // filters (a skill glob, a kind) find them and nothing else.
    auto audited = run({"audit", "tail", "--skill", "task_*", "--kind", "skill_call", "-n", "1000", "--json"});
    ASSERT_EQ(audited.exit_code, 0) << audited.err;
    EXPECT_THAT(audited.out, HasSubstr("task_create"));
    EXPECT_THAT(audited.out, ::testing::Not(HasSubstr("memory_capture")));
    auto memories = run({"audit", "tail", "--skill", "memory_*", "--json"});
    EXPECT_THAT(memories.out, HasSubstr("memory_capture"));
    EXPECT_THAT(memories.out, ::testing::Not(HasSubstr("task_create")));
    auto again = run({"demo", "seed"});
    EXPECT_NE(again.exit_code, 0);
    EXPECT_THAT(again.err, HasSubstr("DEMO_ALREADY_SEEDED"));
    EXPECT_THAT(again.err, HasSubstr("--force"));
    auto forced = run({"demo", "seed", "--force", "--json"});
    ASSERT_EQ(forced.exit_code, 0) << forced.err;
    EXPECT_EQ(boost::json::parse(forced.out).at("tasks").as_int64(), tasks);
}

// Two processes writing one home at once (the task store, the audit log, skillhost.db): every
// write of each lands, none is lost or torn.
TEST_F(CliOperator, TwoProcessesWritingOneHomeLoseNothing) {
    constexpr int per_process = 12;
    auto writer = [this](char who) {
        std::vector<ProcessResult> results;
        for (int i = 0; i < per_process; ++i)
            results.push_back(run({"call", "task_create", "--args",
                                   std::string(R"({"title":"task )") + who + std::to_string(i) + R"("})"}));
        return results;
    };
    auto a = std::async(std::launch::async, writer, 'a');
    auto b = std::async(std::launch::async, writer, 'b');
    for (auto* results : {&a, &b})
        for (const auto& r : results->get()) ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

    auto listed = run({"call", "task_list", "--json"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    for (char who : {'a', 'b'})
        for (int i = 0; i < per_process; ++i)
            EXPECT_THAT(listed.out, HasSubstr("\"task " + std::string(1, who) + std::to_string(i) + "\"")) << who << i;
    auto audited = run({"audit", "tail", "--skill", "task_create", "--kind", "skill_call", "-n", "1000", "--json"});
    ASSERT_EQ(audited.exit_code, 0) << audited.err;
    std::size_t lines = 0;
    for (std::size_t at = 0; (at = audited.out.find('\n', at)) != std::string::npos; ++at) ++lines;
    EXPECT_EQ(lines, 2u * per_process) << audited.out;
}

}  // namespace
}  // namespace skillhost::testing
