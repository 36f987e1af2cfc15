// `skillhost serve`'s limits against exhaustion, as a client meets them: /readyz answered from a
// cache without internal paths, the ceiling on a client's timeout_ms, GET /v1/audit reading only
// the page it returns, and the audit trail of refused calls and model calls.
#include "daemon_process.hpp"
#include "support/loopback_server.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace json = boost::json;

TEST(ServeLimits, ReadyzProbesModelsOncePerCachePeriodAndShowsNoPaths) {
    llm::testing::LoopbackServer model(
        [](const llm::testing::RecordedRequest&, llm::testing::Connection& c) { c.respond(200, "{\"models\":[]}"); });
    DaemonSetup setup;
    setup.models_yaml = "models:\n  remote: {backend: ollama, model: m, base_url: \"" + model.url() +
                        "\", retries: 0}\nroles:\n  orchestrator: remote\n";
    setup.server_yaml = "  readiness_cache_ms: 600000\n";
    DaemonProcess d(setup);
    d.start();
    for (int i = 0; i < 20; ++i) {
        auto ready = d.get("/readyz", "");
        ASSERT_EQ(ready.status, 200) << ready.body;
        EXPECT_THAT(ready.body, Not(HasSubstr(d.home().string())));
        EXPECT_THAT(ready.body, Not(HasSubstr("skillhost.db")));
    }
    std::size_t probes = 0;
    for (const auto& r : model.requests()) probes += r.target == "/api/tags" ? 1 : 0;
    EXPECT_EQ(probes, 1u) << "each /readyz probed the model server";
}

TEST(ServeLimits, ReadyzErrorsNameNoServerAddress) {
    DaemonSetup setup;
    setup.models_yaml =
        "models:\n  down: {backend: ollama, model: nothing, base_url: \"http://127.0.0.1:9\", retries: 0, timeouts: "
        "{connect_ms: 500}}\nroles:\n  orchestrator: down\n";
    DaemonProcess d(setup);
    d.start();
    auto ready = d.get("/readyz", "");
    EXPECT_EQ(ready.status, 503) << ready.body;
    EXPECT_THAT(ready.body, HasSubstr("HTTP_UNREACHABLE"));
    EXPECT_THAT(ready.body, Not(HasSubstr("127.0.0.1:9")));
    EXPECT_THAT(ready.body, Not(HasSubstr(d.home().string())));
}

TEST(ServeLimits, AClientTimeoutAboveTheConfiguredMaximumIsRefused) {
    DaemonSetup setup;
    setup.server_yaml = "  max_call_timeout_ms: 5000\n";
    DaemonProcess d(setup);
    d.start();
    auto refused = d.post("/v1/skills/echo/call", R"({"args":{"text":"hi"},"timeout_ms":3600000})", "alice");
    EXPECT_EQ(refused.status, 400) << refused.body;
    EXPECT_EQ(refused.error_code(), "FIELD_OUT_OF_RANGE");
    EXPECT_THAT(refused.body, HasSubstr("5000"));
    auto shorter = d.post("/v1/skills/echo/call", R"({"args":{"text":"hi"},"timeout_ms":4000})", "alice");
    EXPECT_EQ(shorter.status, 200) << shorter.body;
}

std::string audit_line(const std::string& ts, int n) {
    return json::serialize(
               json::object{{"ts", ts}, {"kind", "skill_call"}, {"user", "alice"}, {"skill", "echo"}, {"n", n}}) +
           "\n";
}

// The page comes from the end of the newest files: an old day file is not read at all (its broken
// line would be reported as a problem if it were), and the page is capped by the configuration.
TEST(ServeLimits, AuditQueriesReadOnlyThePageTheyReturn) {
    DaemonSetup setup;
    setup.server_yaml = "  audit_page_limit: 5\n";
    DaemonProcess d(setup);
    const auto dir = d.home() / "audit";
    std::filesystem::create_directories(dir);
    {
        std::ofstream old(dir / "2020-01-01.jsonl");
        old << "this line is not JSON\n" << audit_line("2020-01-01T00:00:00.000Z", -1);
        std::ofstream recent(dir / "2020-01-02.jsonl");
        for (int i = 0; i < 50; ++i) recent << audit_line("2020-01-02T00:00:" + std::to_string(10 + i) + ".000Z", i);
        recent << "{\"ts\":\"2020-01-02T00:01:00.000Z\",\"kind\":\"skill_ca";  // still being written
    }
    d.start();
    auto too_many = d.get("/v1/audit?limit=6&user=alice", "owner");
    EXPECT_EQ(too_many.status, 400) << too_many.body;
    EXPECT_THAT(too_many.body, HasSubstr("5"));

    auto page = d.get("/v1/audit?limit=5&user=alice&since=2020-01-01T00:00:00Z", "owner");
    ASSERT_EQ(page.status, 200) << page.body;
    const json::value body = page.json();
    const auto& records = body.at("records").as_array();
    ASSERT_EQ(records.size(), 5u) << page.body;
    for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(records[i].at("n").as_int64(), static_cast<std::int64_t>(45 + i));
    EXPECT_TRUE(page.json().at("more").as_bool());
    EXPECT_TRUE(page.json().at("problems").as_array().empty()) << page.body;

    // A since inside the newest file stops the search there; everything after it fits the page.
    auto recent = d.get("/v1/audit?user=alice&since=2020-01-02T00:00:57Z", "owner");
    ASSERT_EQ(recent.status, 200) << recent.body;
    EXPECT_EQ(recent.json().at("records").as_array().size(), 3u) << recent.body;
    EXPECT_FALSE(recent.json().at("more").as_bool());
}

TEST(ServeLimits, ModelCallsAreAuditedWithTheirUserAndRun) {
    DaemonSetup setup;
    setup.models_yaml = "models:\n  script: {backend: scripted, script: script.yaml}\nroles:\n  orchestrator: script\n";
    setup.script_yaml = json::serialize(json::array{
        json::object{{"role", "orchestrator"},
                     {"response", R"({"thought":"nothing to look up","respond":true,"response_style":"default"})"}}});
    DaemonProcess d(setup);
    d.start();
    auto started = d.post("/v1/runs", R"({"goal":"say hello"})", "alice");
    ASSERT_EQ(started.status, 202) << started.body;
    const std::string run_id(started.json().at("run_id").as_string());
    const auto planned = [](const json::array& records) {
        for (const auto& r : records)
            if (r.at("role").as_string() == "orchestrator") return true;
        return false;
    };
    json::array records;
    for (int attempt = 0; attempt < 500 && !planned(records); ++attempt) {
        auto audit = d.get("/v1/audit?kind=llm_call", "owner");
        ASSERT_EQ(audit.status, 200) << audit.body;
        records = audit.json().at("records").as_array();
        if (!planned(records)) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_FALSE(records.empty());
    // Every model call names its user; the operator's own calls also name the run (a plugin's
    // completion request knows its user, not the run that called the skill).
    std::size_t operator_calls = 0;
    for (const auto& r : records) {
        EXPECT_EQ(r.at("user").as_string(), "alice") << json::serialize(r);
        if (r.at("role").as_string() != "orchestrator") continue;
        ++operator_calls;
        EXPECT_EQ(r.at("run_id").as_string(), run_id) << json::serialize(r);
    }
    EXPECT_GE(operator_calls, 1u) << json::serialize(records);
}

}  // namespace
}  // namespace skillhost::testing
