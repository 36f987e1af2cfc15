// `skillhost serve` over loopback: authentication, the skills API, the error contract, metrics.
#include "daemon_process.hpp"
#include "db/backend_connection.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <vector>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;
namespace json = boost::json;

class ServeApi : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        DaemonSetup setup;
        setup.policy_yaml = "global:\n  ask: [\"task_create\"]\n";
        setup.server_yaml = "  max_body_bytes: 4096\n";
        daemon_ = new DaemonProcess(setup);
        daemon_->start();
    }
    static void TearDownTestSuite() {
        delete daemon_;
        daemon_ = nullptr;
    }
    static DaemonProcess& d() { return *daemon_; }
    static inline DaemonProcess* daemon_ = nullptr;
};

TEST_F(ServeApi, RequestsWithoutAValidTokenAre401WithTheReason) {
    auto none = d().get("/v1/skills", "");
    EXPECT_EQ(none.status, 401);
    EXPECT_EQ(none.error_code(), "AUTH_MISSING");
    EXPECT_EQ(none.headers["www-authenticate"], "Bearer realm=\"skillhost\"");

    auto wrong = http_request(d().port(), RequestSpec{"GET", "/v1/skills", "", "not-a-token", {}});
    EXPECT_EQ(wrong.status, 401);
    EXPECT_EQ(wrong.error_code(), "AUTH_INVALID");

    auto malformed =
        http_request(d().port(), RequestSpec{"GET", "/v1/skills", "", "", {{"Authorization", "Basic abc"}}});
    EXPECT_EQ(malformed.status, 401);
    EXPECT_EQ(malformed.error_code(), "AUTH_MALFORMED");
}

TEST_F(ServeApi, EachTokenActsAsItsUserWithTheirRoleAndMode) {
    for (const auto& [user, role, mode] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"owner", "owner", "agent"}, {"alice", "standard", "agent"}, {"eve", "guest", "emulation"}}) {
        auto me = d().get("/v1/whoami", user);
        ASSERT_EQ(me.status, 200) << me.body;
        EXPECT_EQ(me.json().at("user_id").as_string(), user);
        EXPECT_EQ(me.json().at("role").as_string(), role);
        EXPECT_EQ(me.json().at("mode").as_string(), mode);
    }
}

TEST_F(ServeApi, TheSkillListNamesEachPluginsIsolationAndPermissions) {
    auto listed = d().get("/v1/skills", "owner");
    ASSERT_EQ(listed.status, 200) << listed.body;
    const json::value body = listed.json();
    std::map<std::string, json::object> plugins;
    for (const auto& p : body.at("plugins").as_array()) plugins[std::string(p.at("name").as_string())] = p.as_object();
    ASSERT_TRUE(plugins.count("echo")) << listed.body;
    EXPECT_EQ(plugins["echo"].at("isolation").as_string(), "process") << "third-party plugins run isolated";
    EXPECT_TRUE(plugins["echo"].at("permissions").at("workspace").is_string());
    EXPECT_TRUE(plugins["echo"].at("sandbox").is_object());
    EXPECT_EQ(plugins["echo"].at("supervision").at("crashes").to_number<int>(), 0);
    ASSERT_TRUE(plugins.count("fs")) << listed.body;
    EXPECT_EQ(plugins["fs"].at("isolation").as_string(), "in_process") << "built-ins run in the host";
    EXPECT_FALSE(plugins["fs"].contains("sandbox"));
}

TEST_F(ServeApi, HealthReadinessAndMetricsNeedNoToken) {
    EXPECT_EQ(d().get("/healthz", "").status, 200);
    auto ready = d().get("/readyz", "");
    EXPECT_EQ(ready.status, 200) << ready.body;
    EXPECT_TRUE(ready.json().at("ready").as_bool());
    EXPECT_TRUE(ready.json().at("checks").at("database").at("ok").as_bool());
    auto metrics = d().get("/metrics", "");
    EXPECT_EQ(metrics.status, 200);
    EXPECT_THAT(metrics.headers["content-type"], HasSubstr("text/plain; version=0.0.4"));
}

TEST_F(ServeApi, SkillsListedAreThoseTheUserMaySeeInTheirMode) {
    auto alice = d().get("/v1/skills", "alice");
    ASSERT_EQ(alice.status, 200) << alice.body;
    const auto alice_body = alice.json();
    std::vector<std::string> ids;
    for (const auto& s : alice_body.at("skills").as_array()) ids.emplace_back(s.at("id").as_string());
    EXPECT_THAT(ids, ::testing::IsSupersetOf({"task_create", "fs_write", "echo", "add"}));

    auto eve = d().get("/v1/skills", "eve");  // emulation: read-only skills only
    ASSERT_EQ(eve.status, 200);
    const auto eve_body = eve.json();
    for (const auto& s : eve_body.at("skills").as_array()) EXPECT_TRUE(s.at("read_only").as_bool()) << s;

    auto one = d().get("/v1/skills/add", "alice");
    ASSERT_EQ(one.status, 200);
    EXPECT_EQ(one.json().at("id").as_string(), "add");

    // What a mode hides stays hidden: no listing of everything, no schema of a hidden skill.
    EXPECT_EQ(d().get("/v1/skills?all=true", "eve").status, 403);
    EXPECT_EQ(d().get("/v1/catalog?all=true", "alice").status, 403);
    EXPECT_EQ(d().get("/v1/skills/fs_write", "eve").status, 404);
    EXPECT_EQ(d().get("/v1/skills/fs_write", "alice").status, 200);
    EXPECT_EQ(d().get("/v1/skills?all=true", "owner").status, 200);

    auto missing = d().get("/v1/skills/no_such_skill", "alice");
    EXPECT_EQ(missing.status, 404);
    EXPECT_EQ(missing.error_code(), "SKILL_NOT_FOUND");
}

TEST_F(ServeApi, CatalogComesInEveryFormat) {
    auto openai = d().get("/v1/catalog?format=openai", "alice");
    ASSERT_EQ(openai.status, 200);
    EXPECT_TRUE(openai.json().is_array());
    EXPECT_EQ(openai.json().as_array().at(0).at("type").as_string(), "function");
    auto text = d().get("/v1/catalog?format=text", "alice");
    EXPECT_EQ(text.status, 200);
    EXPECT_THAT(text.headers["content-type"], HasSubstr("text/plain"));
    EXPECT_THAT(text.body, HasSubstr("task_list"));
    auto bad = d().get("/v1/catalog?format=yaml", "alice");
    EXPECT_EQ(bad.status, 400);
    EXPECT_EQ(bad.error_code(), "INVALID_QUERY");
    auto unknown = d().get("/v1/catalog?colour=red", "alice");
    EXPECT_EQ(unknown.status, 400);
    EXPECT_THAT(unknown.body, HasSubstr("colour"));
}

TEST_F(ServeApi, ASkillCallReturnsItsResultOrItsError) {
    auto sum = d().post("/v1/skills/add/call", R"({"args":{"a":19,"b":23}})", "alice");
    ASSERT_EQ(sum.status, 200) << sum.body;
    EXPECT_TRUE(sum.json().at("ok").as_bool());
    EXPECT_EQ(sum.json().at("result").at("sum").to_number<int>(), 42);

    auto failed = d().post("/v1/skills/fail/call", R"({"args":{"reason":"api"}})", "owner");
    ASSERT_EQ(failed.status, 200) << failed.body;  // the call ran; its result is the error
    EXPECT_FALSE(failed.json().at("ok").as_bool());
    EXPECT_EQ(failed.error_code(), "ECHO_FAILED");
}

TEST_F(ServeApi, BadRequestBodiesAre400NamingTheField) {
    auto not_json = d().post("/v1/skills/add/call", "{nope", "alice");
    EXPECT_EQ(not_json.status, 400);
    EXPECT_EQ(not_json.error_code(), "BODY_NOT_JSON");

    auto array = d().post("/v1/skills/add/call", "[1,2]", "alice");
    EXPECT_EQ(array.status, 400);
    EXPECT_EQ(array.error_code(), "BODY_NOT_OBJECT");

    auto unknown = d().post("/v1/skills/add/call", R"({"arguments":{"a":1,"b":2}})", "alice");
    EXPECT_EQ(unknown.status, 400);
    EXPECT_EQ(unknown.error_code(), "UNKNOWN_FIELD");
    EXPECT_EQ(unknown.json().at("error").at("details").at("field").as_string(), "arguments");

    auto wrong_type = d().post("/v1/skills/add/call", R"({"args":[1,2]})", "alice");
    EXPECT_EQ(wrong_type.status, 400);
    EXPECT_EQ(wrong_type.error_code(), "FIELD_WRONG_TYPE");
    EXPECT_EQ(wrong_type.json().at("error").at("details").at("field").as_string(), "args");

    auto bad_args = d().post("/v1/skills/add/call", R"({"args":{"a":"one","b":2}})", "alice");
    EXPECT_EQ(bad_args.status, 400);
    EXPECT_EQ(bad_args.error_code(), "INVALID_ARGS");

    auto missing_goal = d().post("/v1/runs", R"({"mode":"agent"})", "alice");
    EXPECT_EQ(missing_goal.status, 400);
    EXPECT_EQ(missing_goal.error_code(), "FIELD_MISSING");
    EXPECT_EQ(missing_goal.json().at("error").at("details").at("field").as_string(), "goal");

    auto bad_mode = d().post("/v1/runs", R"({"goal":"hi","mode":"turbo"})", "alice");
    EXPECT_EQ(bad_mode.status, 400);
    EXPECT_EQ(bad_mode.json().at("error").at("details").at("field").as_string(), "mode");
}

TEST_F(ServeApi, ARunMayNarrowTheUsersModeButNeverWidenIt) {
    auto widened = d().post("/v1/runs", R"({"goal":"Write a note","mode":"agent"})", "eve");
    EXPECT_EQ(widened.status, 403) << widened.body;
    EXPECT_EQ(widened.error_code(), "MODE_NOT_ALLOWED");
    EXPECT_EQ(widened.json().at("error").at("details").at("step").as_string(), "mode");
}

TEST_F(ServeApi, PolicyRefusalsAre403WithTheStepThatDecided) {
    auto refused = d().post("/v1/skills/fs_write/call", R"({"args":{"path":"x.txt","content":"hi"}})", "eve");
    ASSERT_EQ(refused.status, 403) << refused.body;
    EXPECT_EQ(refused.error_code(), "MODE_FORBIDS");
    EXPECT_EQ(refused.json().at("error").at("details").at("step").as_string(), "visibility");
}

TEST_F(ServeApi, UnknownEndpointsAre404AndWrongMethods405) {
    auto nowhere = d().get("/v1/nowhere", "alice");
    EXPECT_EQ(nowhere.status, 404);
    EXPECT_EQ(nowhere.error_code(), "NOT_FOUND");
    auto wrong = http_request(d().port(), RequestSpec{"DELETE", "/v1/skills", "", DaemonProcess::token("alice"), {}});
    EXPECT_EQ(wrong.status, 405);
    EXPECT_EQ(wrong.headers["allow"], "GET");
    auto run = d().get("/v1/runs/run-doesnotexist", "alice");
    EXPECT_EQ(run.status, 404);
    EXPECT_EQ(run.error_code(), "RUN_NOT_FOUND");
    auto approval = d().get("/v1/approvals/apr-doesnotexist", "alice");
    EXPECT_EQ(approval.status, 404);
}

TEST_F(ServeApi, OversizedBodiesAre413) {
    const std::string big = R"({"args":{"text":")" + std::string(8000, 'x') + "\"}}";
    auto r = d().post("/v1/skills/echo/call", big, "alice");
    EXPECT_EQ(r.status, 413);
    EXPECT_EQ(r.error_code(), "BODY_TOO_LARGE");
    EXPECT_EQ(d().get("/healthz", "").status, 200);  // and the server carries on
}

TEST_F(ServeApi, ApprovalRequiredIs202AndResolvingTwiceIs409) {
    auto queued = d().post("/v1/skills/task_create/call", R"({"args":{"title":"water the plants"}})", "alice");
    ASSERT_EQ(queued.status, 202) << queued.body;
    EXPECT_EQ(queued.error_code(), "APPROVAL_REQUIRED");
    const std::string id(queued.json().at("approval_id").as_string());

    auto mine = d().get("/v1/approvals", "alice");
    ASSERT_EQ(mine.status, 200);
    EXPECT_THAT(mine.body, HasSubstr(id));
    auto others = d().get("/v1/approvals/" + id, "eve");  // not hers: not found for her
    EXPECT_EQ(others.status, 404);

    auto approved = d().post("/v1/approvals/" + id + "/approve", "", "owner");
    ASSERT_EQ(approved.status, 200) << approved.body;
    EXPECT_EQ(approved.json().at("approval").at("state").as_string(), "executed");
    EXPECT_TRUE(approved.json().at("call").at("ok").as_bool());

    auto again = d().post("/v1/approvals/" + id + "/approve", "", "owner");
    EXPECT_EQ(again.status, 409) << again.body;
    EXPECT_EQ(again.error_code(), "APPROVAL_ALREADY_RESOLVED");

    auto reject_without_reason = d().post("/v1/approvals/" + id + "/reject", "{}", "owner");
    EXPECT_EQ(reject_without_reason.status, 400);
    EXPECT_EQ(reject_without_reason.error_code(), "FIELD_MISSING");
}

// Both listings of pending decisions read their query alike and say what is wrong with it.
TEST_F(ServeApi, ApprovalAndQuestionListingsRefuseABadQueryAlikeNamingWhatIsWrong) {
    for (const std::string listing : {"/v1/approvals", "/v1/elicitations"}) {
        auto bad_state = d().get(listing + "?state=sideways", "alice");
        EXPECT_EQ(bad_state.status, 400) << listing << ": " << bad_state.body;
        EXPECT_EQ(bad_state.error_code(), "INVALID_QUERY") << bad_state.body;
        EXPECT_THAT(bad_state.body, HasSubstr("pending")) << "the error does not list the states";
        EXPECT_THAT(bad_state.body, HasSubstr("sideways"));

        auto someone_else = d().get(listing + "?user=bob", "alice");
        EXPECT_EQ(someone_else.status, 403) << listing << ": " << someone_else.body;
        EXPECT_EQ(d().get(listing + "?user=alice&state=all", "alice").status, 200);
        EXPECT_EQ(d().get(listing + "?user=bob&state=all", "owner").status, 200);

        auto too_many = d().get(listing + "?limit=5000", "alice");
        EXPECT_EQ(too_many.status, 400) << listing << ": " << too_many.body;
        auto unknown = d().get(listing + "?colour=red", "alice");
        EXPECT_EQ(unknown.status, 400) << listing << ": " << unknown.body;
    }
}

TEST_F(ServeApi, MetricsCountCallsPerSkillWithLatencyHistograms) {
    ASSERT_EQ(d().post("/v1/skills/noop/call", "{}", "alice").status, 200);
    ASSERT_EQ(d().post("/v1/skills/noop/call", "{}", "alice").status, 200);
    auto m = d().get("/metrics", "").body;
    EXPECT_THAT(m, HasSubstr("skillhost_skill_calls_total{skill=\"noop\",outcome=\"ok\"} 2"));
    EXPECT_THAT(m, HasSubstr("skillhost_skill_call_duration_seconds_count{skill=\"noop\"} 2"));
    EXPECT_THAT(m, HasSubstr("skillhost_skill_call_duration_seconds_bucket{skill=\"noop\",le=\"+Inf\"} 2"));
    EXPECT_THAT(
        m, HasSubstr("skillhost_http_requests_total{method=\"POST\",route=\"/v1/skills/{id}/call\",status=\"200\"}"));
    EXPECT_THAT(m, HasSubstr("skillhost_catalog_version 1"));
    EXPECT_THAT(m, HasSubstr("# TYPE skillhost_approvals_pending gauge"));
    EXPECT_THAT(m, HasSubstr("# TYPE skillhost_llm_call_duration_seconds histogram"));
}

TEST_F(ServeApi, AuditQueryShowsOnlyYourOwnRecordsUnlessOwner) {
    ASSERT_EQ(d().post("/v1/skills/add/call", R"({"args":{"a":1,"b":1}})", "alice").status, 200);
    auto mine = d().get("/v1/audit?kind=skill_call&skill=add", "alice");
    ASSERT_EQ(mine.status, 200) << mine.body;
    const auto records = mine.json().at("records").as_array();
    ASSERT_FALSE(records.empty());
    for (const auto& r : records) EXPECT_EQ(r.at("user").as_string(), "alice") << r;
    auto theirs = d().get("/v1/audit?user=alice", "eve");
    EXPECT_EQ(theirs.status, 403);
    auto bad = d().get("/v1/audit?kind=everything", "owner");
    EXPECT_EQ(bad.status, 400);
}

TEST(ServeErrors, SomethingUnexpectedIsA500WithACorrelationIdThatIsAlsoLogged) {
    DaemonProcess d;
    d.start();
    auto started = d.post("/v1/skills/noop/call", "{}", "alice");
    ASSERT_EQ(started.status, 200);
    // Damage the run store behind the server's back: a run record that is not JSON.
    auto db = db::BackendConnection::open(d.storage());
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto inserted = (*db)->run("damaging a run record",
                               "INSERT INTO runs (id, user_id, status, goal, created_ms, updated_ms, record) "
                               "VALUES ('run-broken', 'alice', 'completed', 'x', 1, 1, '{not json')",
                               {});
    ASSERT_TRUE(inserted.ok()) << inserted.error().message;

    auto r = d.get("/v1/runs", "alice");
    ASSERT_EQ(r.status, 500) << r.body;
    const std::string id(r.json().at("error").at("details").at("correlation_id").as_string());
    EXPECT_EQ(id.rfind("req-", 0), 0u);
    EXPECT_THAT(r.json().at("error").at("message").as_string().c_str(), HasSubstr(id));
    EXPECT_THAT(d.log(), HasSubstr(id));
    EXPECT_THAT(d.log(), HasSubstr("RUN_RECORD_INVALID"));
    EXPECT_EQ(d.get("/healthz", "").status, 200);  // and it keeps serving
}

TEST(ServeOwnerToken, FirstStartCreatesAnOwnerOnlyTokenFileAndSaysWhere) {
    DaemonSetup setup;
    DaemonProcess d(setup);
    // No owner token in users.yaml for this test.
    write_file(d.etc() / "users.yaml", "users:\n  - {id: boss, role: owner, trust: bounded_auto}\n");
    d.start();
    const auto file = d.home() / "owner.token";
    ASSERT_TRUE(std::filesystem::exists(file)) << d.log();
    struct stat st {};
    ASSERT_EQ(::stat(file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    std::string token;
    std::ifstream(file) >> token;
    auto me = http_request(d.port(), RequestSpec{"GET", "/v1/whoami", "", token, {}});
    ASSERT_EQ(me.status, 200) << me.body;
    EXPECT_EQ(me.json().at("user_id").as_string(), "boss");
    EXPECT_THAT(d.log(), HasSubstr(file.string()));
    EXPECT_EQ(d.stop(), 0);

    // The second start keeps it.
    d.start();
    std::string again;
    std::ifstream(file) >> again;
    EXPECT_EQ(again, token);
    EXPECT_EQ(http_request(d.port(), RequestSpec{"GET", "/v1/whoami", "", token, {}}).status, 200);
}

TEST_F(ServeApi, OversizedHeadersAre431AndTheServerCarriesOn) {
    // 64 KiB is the server's header limit; twenty 4 KB headers go past it.
    RequestSpec spec{"GET", "/v1/skills", "", DaemonProcess::token("alice"), {}};
    for (int i = 0; i < 20; ++i) spec.headers.emplace_back("X-Padding-" + std::to_string(i), std::string(4000, 'h'));
    auto r = http_request(d().port(), spec);
    EXPECT_EQ(r.status, 431) << r.body;
    EXPECT_EQ(r.error_code(), "HEADERS_TOO_LARGE");
    EXPECT_EQ(d().get("/healthz", "").status, 200);
}

// A call runs on the handler's own thread; when its plugin ignores the deadline, the executor's
// watcher answers TIMEOUT through the server while that thread is still inside the plugin, and the
// server keeps answering other requests meanwhile.
TEST(ServeApiTimeouts, AHungPluginIsAnsweredTimeoutAtItsDeadline) {
    DaemonSetup setup;
    setup.server_yaml = "  handler_threads: 4\n";  // two of them may run calls themselves
    DaemonProcess daemon(setup);
    const std::filesystem::path hangs = std::filesystem::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "hangs";
    for (const char* file : {"hangs.yaml", "libhangs.so"})
        std::filesystem::copy_file(hangs / file, daemon.plugins_dir() / file);
    daemon.start();
    const auto started = std::chrono::steady_clock::now();
    // The plugin sleeps 5 s whatever it is told; the call's deadline is 100 ms.
    auto late = daemon.post("/v1/skills/forever/call", R"({"args":{"ms":5000},"timeout_ms":100})");
    const auto took = std::chrono::steady_clock::now() - started;
    ASSERT_EQ(late.status, 200) << late.body;
    EXPECT_EQ(late.json().at("ok"), false);
    EXPECT_EQ(late.error_code(), "TIMEOUT") << late.body;
    EXPECT_LT(took, std::chrono::milliseconds(4000)) << "the answer waited for the hung plugin";
    // Several at once, more than the handler threads that may run calls themselves: all answered.
    std::vector<std::thread> callers;
    std::atomic<int> timeouts{0};
    for (int i = 0; i < 6; ++i)
        callers.emplace_back([&] {
            auto r = daemon.post("/v1/skills/forever/call", R"({"args":{"ms":3000},"timeout_ms":100})");
            if (r.status == 200 && r.error_code() == "TIMEOUT") ++timeouts;
        });
    for (auto& t : callers) t.join();
    EXPECT_EQ(timeouts.load(), 6);
    auto sum = daemon.post("/v1/skills/add/call", R"({"args":{"a":1,"b":2}})");
    ASSERT_EQ(sum.status, 200) << sum.body;
    EXPECT_EQ(sum.json().at("result").at("sum"), 3);
}

}  // namespace
}  // namespace skillhost::testing
