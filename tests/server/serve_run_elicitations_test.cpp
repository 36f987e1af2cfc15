// An operator run whose step's skill asks its user a question, over the real daemon (loopback HTTP,
// SSE) and the real CLI, on a SQLite home and on PostgreSQL: the run pauses awaiting_input with an
// `input_required` event, answering the question runs the step again with the answer and resumes
// the run, which answers from what the skill returned. Declining reaches the skill; a run cancelled
// while it waits closes its question; nobody but the run's user (or an owner) may answer.
#include "daemon_process.hpp"
#include "support/postgres_server.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;
namespace json = boost::json;

constexpr const char* kGoal = "Find out who is asking and tell me what they said";

class ServeRunElicitations : public OnEachBackend {
protected:
    void SetUp() override { start_daemon(); }

    void start_daemon(std::string policy_yaml = {}) {
        OnEachBackend::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        DaemonSetup setup;
        setup.policy_yaml = std::move(policy_yaml);
        if (GetParam() == db::StorageBackend::postgres)
            setup.extra_yaml = "storage:\n  backend: postgres\n  url: \"" + postgres_url + "\"\n";
        // The orchestrator calls rich_elicit, then responds once the step's observation holds the
        // answer (`match` finds it in the planner's prompt), in the daemon and in a CLI process alike.
        setup.models_yaml =
            "models:\n  script: {backend: scripted, script: script.yaml}\nroles:\n  orchestrator: script\n";
        const std::string respond = R"({"thought":"the answer is in","respond":true,"response_style":"default"})";
        const std::string act = R"({"thought":"ask the user","action":{"tool":"rich_elicit","args":{}}})";
        json::array script;
        for (const char* seen : {"lovelace", "decline", "elicitation_expired"})
            script.push_back(json::object{{"role", "orchestrator"}, {"match", seen}, {"response", respond}});
        script.push_back(json::object{{"role", "orchestrator"}, {"response", act}});
        setup.script_yaml = json::serialize(script);  // JSON is YAML
        daemon = std::make_unique<DaemonProcess>(setup);
        const std::filesystem::path rich = std::filesystem::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "rich";
        for (const auto& entry : std::filesystem::directory_iterator(rich))
            if (entry.is_regular_file())
                std::filesystem::copy_file(entry.path(), daemon->plugins_dir() / entry.path().filename());
        daemon->start();
    }

    json::value wait_for_status(const std::string& id, const std::string& status) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        json::value last;
        while (std::chrono::steady_clock::now() < deadline) {
            auto r = daemon->get("/v1/runs/" + id, "alice");
            if (r.status == 200) {
                last = r.json();
                if (last.at("status").as_string() == status) return last;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        ADD_FAILURE() << "run " << id << " never became " << status << "; last: " << json::serialize(last) << "\n"
                      << daemon->log();
        return last;
    }

    // Starts a run for alice and waits until it waits for her answer; returns {run id, elicitation id}.
    std::pair<std::string, std::string> start_waiting_run() {
        auto started = daemon->post("/v1/runs", json::serialize(json::object{{"goal", kGoal}}), "alice");
        EXPECT_EQ(started.status, 202) << started.body;
        if (started.status != 202) return {};
        const std::string id(started.json().at("run_id").as_string());
        const json::value paused = wait_for_status(id, "awaiting_input");
        const auto* question = paused.as_object().if_contains("elicitation_id");
        EXPECT_TRUE(question && question->is_string()) << json::serialize(paused);
        if (!question || !question->is_string()) return {};
        return {id, std::string(question->as_string())};
    }

    HttpResult answer(const std::string& id, const std::string& body, std::string_view user = "alice") {
        return daemon->post("/v1/elicitations/" + id, body, user);
    }

    std::unique_ptr<DaemonProcess> daemon;
};

SKILLHOST_ON_EACH_BACKEND(ServeRunElicitations);

TEST_P(ServeRunElicitations, ARunWaitsForTheAnswerOnItsStreamAndFinishesWithIt) {
    SseStream stream(
        daemon->port(),
        RequestSpec{
            "POST", "/v1/runs", json::serialize(json::object{{"goal", kGoal}}), DaemonProcess::token("alice"), {}});
    ASSERT_EQ(stream.status(), 200) << stream.body_text();
    auto asked = stream.next_named("input_required");
    ASSERT_TRUE(asked) << daemon->log();
    const json::value event = asked->json();
    const json::value& data = event.at("data");
    const std::string question(data.at("elicitation_id").as_string());
    const std::string run_id(event.at("run_id").as_string());
    EXPECT_EQ(data.at("message").as_string(), "Who is asking?");
    EXPECT_EQ(data.at("tool").as_string(), "rich_elicit");
    EXPECT_EQ(data.at("requestedSchema").at("required").as_array().at(0).as_string(), "name");
    auto paused = stream.next_named("status");
    ASSERT_TRUE(paused) << daemon->log();
    EXPECT_EQ(paused->json().at("status").as_string(), "awaiting_input");
    EXPECT_EQ(paused->json().at("elicitation_id").as_string(), question);

    auto stored = daemon->get("/v1/runs/" + run_id, "alice");
    ASSERT_EQ(stored.status, 200);
    EXPECT_EQ(stored.json().at("status").as_string(), "awaiting_input");
    EXPECT_EQ(stored.json().at("elicitation_id").as_string(), question);
    auto listed = daemon->get("/v1/runs?status=awaiting_input", "alice");
    EXPECT_THAT(listed.body, HasSubstr(run_id));
    auto shown = daemon->get("/v1/elicitations/" + question, "alice");
    ASSERT_EQ(shown.status, 200) << shown.body;
    EXPECT_EQ(shown.json().at("requested_by").as_string(), "run:" + run_id) << shown.body;

    // Someone else may neither see nor answer it; the run keeps waiting.
    auto hijack = answer(question, R"({"action":"accept","content":{"name":"Eve"}})", "eve");
    EXPECT_EQ(hijack.status, 404) << hijack.body;
    EXPECT_EQ(daemon->get("/v1/runs/" + run_id, "alice").json().at("status").as_string(), "awaiting_input");

    auto answered = answer(question, R"({"action":"accept","content":{"name":"Ada Lovelace","count":3}})");
    ASSERT_EQ(answered.status, 200) << answered.body;
    const json::value resolution = answered.json();
    EXPECT_EQ(resolution.at("elicitation").at("state").as_string(), "completed") << answered.body;
    EXPECT_EQ(resolution.at("call").at("result").at("content").at("name").as_string(), "Ada Lovelace");
    EXPECT_EQ(resolution.at("run").at("run_id").as_string(), run_id);
    EXPECT_TRUE(resolution.at("run").at("resumed").as_bool()) << answered.body;

    auto observation = stream.next_named("observation");
    ASSERT_TRUE(observation) << daemon->log();
    EXPECT_THAT(observation->data, HasSubstr("Ada Lovelace"));
    auto end = stream.next_named("end");
    ASSERT_TRUE(end) << daemon->log();
    const json::value done = end->json();
    EXPECT_EQ(done.at("status").as_string(), "completed") << end->data;
    EXPECT_THAT(std::string(done.at("answer").as_string()), HasSubstr("Ada Lovelace")) << end->data;
    EXPECT_FALSE(done.as_object().contains("elicitation_id")) << end->data;
    // The step ran again with the answer: its observation is what the skill returned then.
    const json::array& steps = done.at("steps").as_array();
    ASSERT_FALSE(steps.empty());
    bool observed = false;
    for (const auto& step : steps) {
        const auto* obs = step.as_object().if_contains("observation");
        if (!obs || !obs->is_object()) continue;
        const auto* raw = obs->as_object().if_contains("raw");
        if (raw && raw->is_object() && raw->as_object().contains("action")) {
            EXPECT_EQ(raw->at("action").as_string(), "accept");
            EXPECT_EQ(raw->at("content").at("name").as_string(), "Ada Lovelace");
            observed = true;
        }
    }
    EXPECT_TRUE(observed) << end->data;

    // Answered once: the question is settled and a second answer changes nothing.
    auto twice = answer(question, R"({"action":"decline"})");
    EXPECT_EQ(twice.status, 409) << twice.body;
    EXPECT_EQ(daemon->get("/v1/runs/" + run_id, "alice").json().at("status").as_string(), "completed");
}

TEST_P(ServeRunElicitations, DecliningResumesTheRunWithTheDecline) {
    const auto [run_id, question] = start_waiting_run();
    ASSERT_FALSE(question.empty());
    auto declined = answer(question, R"({"action":"decline"})");
    ASSERT_EQ(declined.status, 200) << declined.body;
    EXPECT_EQ(json::serialize(declined.json().at("call").at("result")), R"({"action":"decline","content":{}})");
    const json::value done = wait_for_status(run_id, "completed");
    EXPECT_THAT(json::serialize(done.at("steps")), HasSubstr(R"("action":"decline")"));
    EXPECT_THAT(json::serialize(done.at("answer")), ::testing::Not(HasSubstr("Lovelace")));
}

TEST_P(ServeRunElicitations, ACancelledRunClosesItsQuestionAndALaterAnswerIsRefused) {
    const auto [run_id, question] = start_waiting_run();
    ASSERT_FALSE(question.empty());
    auto cancelled = daemon->post("/v1/runs/" + run_id + "/cancel", "", "alice");
    ASSERT_EQ(cancelled.status, 200) << cancelled.body;
    EXPECT_EQ(daemon->get("/v1/runs/" + run_id, "alice").json().at("status").as_string(), "cancelled");

    auto late = answer(question, R"({"action":"accept","content":{"name":"Ada Lovelace"}})");
    EXPECT_EQ(late.status, 409) << late.body;
    EXPECT_EQ(late.error_code(), "RUN_NOT_AWAITING_INPUT") << late.body;
    EXPECT_THAT(late.body, HasSubstr("cancelled"));
    // Closed, not left pending: no later answer runs the skill for a run that is gone.
    auto shown = daemon->get("/v1/elicitations/" + question, "alice");
    ASSERT_EQ(shown.status, 200) << shown.body;
    EXPECT_EQ(shown.json().at("state").as_string(), "failed") << shown.body;
    EXPECT_EQ(shown.json().at("answer").at("action").as_string(), "cancel") << shown.body;
    auto again = answer(question, R"({"action":"decline"})");
    EXPECT_EQ(again.status, 409) << again.body;
    EXPECT_EQ(daemon->get("/v1/runs/" + run_id, "alice").json().at("status").as_string(), "cancelled");
}

TEST_P(ServeRunElicitations, TheCliRunAsksAndTheCliAnswerResumesIt) {
    auto asked = daemon->cli({"ask", kGoal, "--user", "alice", "--json"});
    EXPECT_EQ(asked.exit_code, 1) << asked.out << asked.err;
    const json::value run = json::parse(asked.out);
    ASSERT_EQ(run.at("status").as_string(), "awaiting_input") << asked.out << asked.err;
    const std::string run_id(run.at("id").as_string());
    const std::string question(run.at("elicitation_id").as_string());

    auto said = daemon->cli({"runs", "show", run_id});
    EXPECT_THAT(said.out + said.err, HasSubstr("skillhost elicitations answer " + question));

    auto stranger = daemon->cli({"elicitations", "answer", question, "--user", "eve", "--decline", "--json"});
    EXPECT_EQ(stranger.exit_code, 1) << stranger.out << stranger.err;
    EXPECT_THAT(stranger.out, HasSubstr("ELICITATION_NOT_FOUND"));

    auto answered = daemon->cli(
        {"elicitations", "answer", question, "--user", "alice", "--field", "name=Ada Lovelace", "--field", "count=2"});
    ASSERT_EQ(answered.exit_code, 0) << answered.out << answered.err;
    EXPECT_THAT(answered.out, HasSubstr("Resumed run " + run_id));
    EXPECT_THAT(answered.out, HasSubstr("Ada Lovelace"));
    // The daemon sees the run the CLI finished: one store for both.
    auto stored = daemon->get("/v1/runs/" + run_id, "alice");
    ASSERT_EQ(stored.status, 200) << stored.body;
    EXPECT_EQ(stored.json().at("status").as_string(), "completed") << stored.body;
    EXPECT_THAT(std::string(stored.json().at("answer").as_string()), HasSubstr("Ada Lovelace"));
}

// Questions that expire a moment after they are asked.
class ServeRunElicitationsExpiring : public ServeRunElicitations {
protected:
    void SetUp() override { start_daemon("approvals:\n  ttl: 1s\n"); }
};

SKILLHOST_ON_EACH_BACKEND(ServeRunElicitationsExpiring);

TEST_P(ServeRunElicitationsExpiring, AQuestionNobodyAnsweredIsAFailedObservationNeverAnInventedAnswer) {
    const auto [run_id, question] = start_waiting_run();
    ASSERT_FALSE(question.empty());
    std::string state;
    for (int i = 0; i < 600 && state != "expired"; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        state = std::string(daemon->get("/v1/elicitations/" + question, "alice").json().at("state").as_string());
    }
    ASSERT_EQ(state, "expired");
    auto late = answer(question, R"({"action":"accept","content":{"name":"Ada Lovelace"}})");
    EXPECT_EQ(late.status, 409) << late.body;
    EXPECT_THAT(late.body, HasSubstr("expired"));

    auto resumed = daemon->cli({"runs", "resume", run_id, "--json"});
    ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
    const json::value run = json::parse(resumed.out);
    EXPECT_EQ(run.at("status").as_string(), "completed");
    const json::value& observation = run.at("steps").as_array().at(0).at("observation");
    EXPECT_FALSE(observation.at("success").as_bool());
    EXPECT_EQ(observation.at("error").at("code").as_string(), "ELICITATION_EXPIRED");
    EXPECT_THAT(json::serialize(run), ::testing::Not(HasSubstr("Lovelace")));
}

}  // namespace
}  // namespace skillhost::testing
