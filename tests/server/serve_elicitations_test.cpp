// A skill's question to a user no front end can ask during the call: over the real daemon
// (loopback HTTP) and the real CLI, on a SQLite home and on PostgreSQL. The call stops with
// ELICITATION_REQUIRED (202, like an approval), the user answers through /v1/elicitations or
// `skillhost elicitations answer`, and the skill runs again with the answer, exactly once.
#include "daemon_process.hpp"
#include "support/postgres_server.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;
namespace json = boost::json;

class ServeElicitations : public OnEachBackend {
protected:
    void SetUp() override {
        OnEachBackend::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        DaemonSetup setup;
        if (GetParam() == db::StorageBackend::postgres)
            setup.extra_yaml = "storage:\n  backend: postgres\n  url: \"" + postgres_url + "\"\n";
        daemon = std::make_unique<DaemonProcess>(setup);
        // The `rich` fixture's rich_elicit asks for a name (required, minLength 1), a color (red or
        // green, default red) and a count (integer 1..10), and returns what it was told.
        const std::filesystem::path rich = std::filesystem::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "rich";
        for (const auto& entry : std::filesystem::directory_iterator(rich))
            if (entry.is_regular_file())
                std::filesystem::copy_file(entry.path(), daemon->plugins_dir() / entry.path().filename());
        daemon->start();
    }

    // Calls rich_elicit as `user` over the API and returns the question's id.
    std::string ask(std::string_view user = "alice") {
        auto paused = daemon->post("/v1/skills/rich_elicit/call", "{}", user);
        EXPECT_EQ(paused.status, 202) << paused.body;
        EXPECT_EQ(paused.error_code(), "ELICITATION_REQUIRED") << paused.body;
        if (paused.status != 202) return {};
        const json::value body = paused.json();
        EXPECT_EQ(body.at("error").at("details").at("message").as_string(), "Who is asking?");
        return std::string(body.at("elicitation_id").as_string());
    }

    HttpResult answer(const std::string& id, const std::string& body, std::string_view user = "alice") {
        return daemon->post("/v1/elicitations/" + id, body, user);
    }

    std::unique_ptr<DaemonProcess> daemon;
};

SKILLHOST_ON_EACH_BACKEND(ServeElicitations);

TEST_P(ServeElicitations, ACallStopsAtTheQuestionAndRunsAgainWithTheAnswerOnce) {
    const std::string id = ask();
    ASSERT_FALSE(id.empty());

    auto listed = daemon->get("/v1/elicitations", "alice");
    ASSERT_EQ(listed.status, 200) << listed.body;
    ASSERT_EQ(listed.json().at("elicitations").as_array().size(), 1u) << listed.body;
    auto shown = daemon->get("/v1/elicitations/" + id, "alice");
    ASSERT_EQ(shown.status, 200) << shown.body;
    EXPECT_EQ(shown.json().at("state").as_string(), "pending");
    EXPECT_EQ(shown.json().at("requestedSchema").at("required").as_array().at(0).as_string(), "name");

    auto answered = answer(id, R"({"action":"accept","content":{"name":"Ada","color":"green","count":3}})");
    ASSERT_EQ(answered.status, 200) << answered.body;
    const json::value body = answered.json();
    EXPECT_EQ(body.at("elicitation").at("state").as_string(), "completed") << answered.body;
    EXPECT_EQ(body.at("call").at("ok").as_bool(), true) << answered.body;
    EXPECT_EQ(json::serialize(body.at("call").at("result")),
              R"({"action":"accept","content":{"name":"Ada","color":"green","count":3}})");

    auto twice = answer(id, R"({"action":"decline"})");
    EXPECT_EQ(twice.status, 409) << twice.body;
    EXPECT_EQ(twice.error_code(), "ELICITATION_ALREADY_ANSWERED") << twice.body;
    EXPECT_EQ(daemon->get("/v1/elicitations/" + id, "alice").json().at("state").as_string(), "completed");

    // Declining reaches the skill too: it decides what a refusal means.
    const std::string declined = ask();
    auto refusal = answer(declined, R"({"action":"decline"})");
    ASSERT_EQ(refusal.status, 200) << refusal.body;
    EXPECT_EQ(json::serialize(refusal.json().at("call").at("result")), R"({"action":"decline","content":{}})");

    // asked, answered, completed in the audit log, for each question.
    auto audit = daemon->get("/v1/audit?kind=elicitation&limit=100");
    ASSERT_EQ(audit.status, 200) << audit.body;
    const json::value records = audit.json();  // kept alive while its records are read
    std::vector<std::string> transitions;
    for (const auto& record : records.at("records").as_array())
        if (record.at("elicitation_id").as_string() == id)
            transitions.emplace_back(record.at("transition").as_string());
    EXPECT_EQ(transitions, (std::vector<std::string>{"asked", "answered", "completed"}));
}

TEST_P(ServeElicitations, AnswersThatBreakTheFormAreRefusedNamingTheField) {
    const std::string id = ask();
    ASSERT_FALSE(id.empty());
    const std::pair<std::string, std::string> wrong[] = {
        {R"({"action":"accept","content":{"count":3}})", "name"},
        {R"({"action":"accept","content":{"name":"Ada","color":"blue"}})", "color"},
        {R"({"action":"accept","content":{"name":"Ada","count":"3"}})", "count"},
        {R"({"action":"accept","content":{"name":"Ada","count":2.5}})", "count"},
        {R"({"action":"accept","content":{"name":["Ada"]}})", "name"},
        {R"({"action":"accept","content":{"name":"Ada","admin":true}})", "admin"},
        {R"({"action":"accept","content":"Ada"})", "content"},
        {R"({"action":"decline","content":{"name":"Ada"}})", "content"},
        {R"({"action":"maybe"})", "action"},
        {R"({"content":{"name":"Ada"}})", "action"},
    };
    for (const auto& [body, field] : wrong) {
        auto refused = answer(id, body);
        EXPECT_EQ(refused.status, 400) << body << " -> " << refused.body;
        if (refused.status != 400) continue;
        EXPECT_EQ(refused.json().at("error").at("details").at("field").as_string(), field) << refused.body;
    }
    auto extra = answer(id, R"({"action":"accept","content":{"name":"Ada"},"also":1})");
    EXPECT_EQ(extra.status, 400) << extra.body;
    auto oversized = answer(id, R"({"action":"accept","content":{"name":")" + std::string(70 * 1024, 'x') + R"("}})");
    EXPECT_TRUE(oversized.status == 400 || oversized.status == 413)
        << oversized.status << " " << oversized.body.substr(0, 300);
    auto not_json = answer(id, "name=Ada");
    EXPECT_EQ(not_json.status, 400) << not_json.body;
    // None of them counted: the question still waits and takes a good answer.
    EXPECT_EQ(daemon->get("/v1/elicitations/" + id, "alice").json().at("state").as_string(), "pending");
    // The listing filters by the question's own state words, and a word it has not is refused
    // naming them (an approval's `approved`, or `rejected`, which a question never is).
    auto answered = daemon->get("/v1/elicitations?state=answered", "owner");
    ASSERT_EQ(answered.status, 200) << answered.body;
    EXPECT_TRUE(answered.json().at("elicitations").as_array().empty()) << answered.body;
    for (const char* word : {"approved", "rejected"}) {
        auto refused = daemon->get(std::string("/v1/elicitations?state=") + word, "owner");
        EXPECT_EQ(refused.status, 400) << refused.body;
        EXPECT_EQ(refused.error_code(), "INVALID_QUERY");
        EXPECT_THAT(refused.body, HasSubstr("pending, answered, completed, failed, expired, or all")) << refused.body;
    }
    auto good = answer(id, R"({"action":"accept","content":{"name":"Ada"}})");
    ASSERT_EQ(good.status, 200) << good.body;
    EXPECT_EQ(good.json().at("call").at("result").at("content").at("name").as_string(), "Ada");
}

TEST_P(ServeElicitations, UsersSeeAndAnswerOnlyTheirOwnQuestionsOwnersSeeAll) {
    const std::string id = ask("alice");
    ASSERT_FALSE(id.empty());
    auto peek = daemon->get("/v1/elicitations/" + id, "eve");
    EXPECT_EQ(peek.status, 404) << peek.body;
    EXPECT_EQ(peek.error_code(), "ELICITATION_NOT_FOUND");
    auto hijack = answer(id, R"({"action":"accept","content":{"name":"Eve"}})", "eve");
    EXPECT_EQ(hijack.status, 404) << hijack.body;
    auto eve_list = daemon->get("/v1/elicitations?state=all", "eve");
    ASSERT_EQ(eve_list.status, 200) << eve_list.body;
    EXPECT_TRUE(eve_list.json().at("elicitations").as_array().empty()) << eve_list.body;
    EXPECT_EQ(daemon->get("/v1/elicitations?user=alice", "eve").status, 403);
    auto owner_list = daemon->get("/v1/elicitations", "owner");
    ASSERT_EQ(owner_list.status, 200);
    EXPECT_THAT(owner_list.body, HasSubstr(id));
    EXPECT_EQ(daemon->get("/v1/elicitations/" + id, "alice").json().at("state").as_string(), "pending");

    // A token that may only approve cannot answer (the answer makes the skill run again).
    const std::string approver = daemon->create_token("alice", "approve");
    auto scoped = daemon->post_with("/v1/elicitations/" + id, R"({"action":"decline"})", approver);
    EXPECT_EQ(scoped.status, 403) << scoped.body;
    EXPECT_EQ(scoped.error_code(), "MISSING_SCOPE");
}

TEST_P(ServeElicitations, TwoConcurrentAnswersRunTheSkillOnce) {
    for (int round = 0; round < 5; ++round) {
        const std::string id = ask();
        ASSERT_FALSE(id.empty());
        std::atomic<bool> go{false};
        HttpResult results[2];
        std::thread racers[2];
        for (int i = 0; i < 2; ++i) {
            racers[i] = std::thread([&, i] {
                while (!go.load()) std::this_thread::yield();
                results[i] = answer(id, R"({"action":"accept","content":{"name":"racer)" + std::to_string(i) + R"("}})",
                                    i == 0 ? "alice" : "owner");
            });
        }
        go = true;
        for (auto& t : racers) t.join();
        const int ok = (results[0].status == 200) + (results[1].status == 200);
        ASSERT_EQ(ok, 1) << results[0].body << "\n" << results[1].body;
        const HttpResult& loser = results[0].status == 200 ? results[1] : results[0];
        EXPECT_EQ(loser.status, 409) << loser.body;
        EXPECT_EQ(loser.error_code(), "ELICITATION_ALREADY_ANSWERED");
    }
    // Five questions, five runs after an answer: the audit log has one completion per question.
    auto audit = daemon->get("/v1/audit?kind=elicitation&limit=1000");
    ASSERT_EQ(audit.status, 200);
    const json::value records = audit.json();
    int completed = 0;
    for (const auto& record : records.at("records").as_array())
        completed += record.at("transition").as_string() == "completed";
    EXPECT_EQ(completed, 5);
}

TEST_P(ServeElicitations, TheCliPrintsTheQuestionAndAnswersIt) {
    auto call = daemon->cli({"call", "rich_elicit", "--user", "alice"});
    EXPECT_EQ(call.exit_code, 1) << call.out << call.err;
    const std::string said = call.out + call.err;
    EXPECT_THAT(said, HasSubstr("ELICITATION_REQUIRED"));
    EXPECT_THAT(said, HasSubstr("Who is asking?"));
    EXPECT_THAT(said, HasSubstr("name (string, required)"));
    EXPECT_THAT(said, HasSubstr("one of red, green"));
    EXPECT_THAT(said, HasSubstr("skillhost elicitations answer eli-"));

    auto listed = daemon->cli({"elicitations", "list", "--user", "alice", "--json"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    const json::value list = json::parse(listed.out);
    ASSERT_EQ(list.at("elicitations").as_array().size(), 1u) << listed.out;
    const std::string id(list.at("elicitations").as_array().at(0).at("id").as_string());

    auto shown = daemon->cli({"elicitations", "show", id, "--user", "alice"});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_THAT(shown.out, HasSubstr("count (integer)"));

    auto bad = daemon->cli(
        {"elicitations", "answer", id, "--user", "alice", "--field", "name=Ada", "--field", "count=eleven", "--json"});
    EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
    const json::value refused = json::parse(bad.out);
    EXPECT_EQ(refused.at("error").at("code").as_string(), "INVALID_ELICITATION_ANSWER");
    EXPECT_EQ(refused.at("error").at("details").at("field").as_string(), "count");

    auto answered =
        daemon->cli({"elicitations", "answer", id, "--user", "alice", "--field", "name=Ada", "--field", "count=7"});
    ASSERT_EQ(answered.exit_code, 0) << answered.out << answered.err;
    EXPECT_THAT(answered.out, HasSubstr("Ada"));
    EXPECT_THAT(answered.out, HasSubstr("7"));

    // The daemon sees the answer the CLI gave: one queue for both front ends.
    EXPECT_EQ(daemon->get("/v1/elicitations/" + id, "alice").json().at("state").as_string(), "completed");
    auto again = daemon->cli({"elicitations", "answer", id, "--user", "alice", "--cancel", "--json"});
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_THAT(again.out, HasSubstr("ELICITATION_ALREADY_ANSWERED"));

    auto content = daemon->cli({"elicitations", "answer", ask(), "--user", "alice", "--content", R"({"name":"Bo"})"});
    EXPECT_EQ(content.exit_code, 0) << content.out << content.err;
    EXPECT_THAT(content.out, HasSubstr("Bo"));

    auto help = daemon->cli({"elicitations", "answer", "--help"});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_THAT(help.out, HasSubstr("--field"));
    EXPECT_THAT(help.out, HasSubstr("--decline"));
}

}  // namespace
}  // namespace skillhost::testing
