// Two `skillhost serve` daemons on one PostgreSQL database behind a round-robin proxy, as a team
// deploys them. The daemon driving a run is killed with SIGKILL while it is inside a step's skill
// call; once its lease expires the other daemon takes the run over, runs the interrupted step
// again with the same idempotency key (the plugin recognises it and does nothing twice) and
// finishes the run, which the client follows through the proxy alone.
#include "daemon_process.hpp"
#include "round_robin_proxy.hpp"
#include "support/postgres_server.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace skillhost::testing {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string effect(const fs::path& ledger, const std::string& note, bool hold) {
    json::object args{{"ledger", ledger.string()}, {"note", note}};
    if (hold) args["hold"] = true;
    return json::serialize(json::object{{"thought", "record " + note},
                                        {"action", json::object{{"tool", "record_effect"}, {"args", args}}}});
}

// Both daemons get the same script, keyed by the step the planner is asked for, so whichever
// instance plans a step answers it the same way: step 1 records "one", step 2 records "two" and
// holds inside the call, step 3 responds.
std::string script(const fs::path& ledger) {
    json::array entries;
    const auto entry = [&](const std::string& match, const std::string& response) {
        entries.push_back(json::object{{"role", "orchestrator"}, {"match", match}, {"response", response}});
    };
    entry("This is step 3 of", R"({"thought":"both effects are recorded","respond":true,"response_style":"default"})");
    entry("This is step 2 of", effect(ledger, "two", true));
    entry("This is step 1 of", effect(ledger, "one", false));
    return json::serialize(entries);  // JSON is YAML
}

DaemonSetup takeover_setup(const std::string& url, const fs::path& ledger, std::string policy_yaml = {}) {
    DaemonSetup setup;
    setup.policy_yaml = std::move(policy_yaml);
    setup.models_yaml = "models:\n  script: {backend: scripted, script: script.yaml}\nroles:\n  orchestrator: script\n";
    setup.script_yaml = script(ledger);
    // A short lease, so the takeover happens within seconds of the kill.
    setup.extra_yaml = "storage:\n  backend: postgres\n  url: \"" + url +
                       "\"\n  lease_ttl_ms: 1500\n  lease_heartbeat_ms: 300\n  sweep_interval_ms: 200\n"
                       "isolation:\n  plugins:\n    ledger: in_process\n";
    return setup;
}

void install_ledger_plugin(DaemonProcess& daemon) {
    const fs::path source = fs::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "ledger";
    for (const auto& entry : fs::directory_iterator(source))
        if (entry.is_regular_file()) fs::copy_file(entry.path(), daemon.plugins_dir() / entry.path().filename());
}

// Lines of a ledger file, split into words.
std::vector<std::vector<std::string>> lines_of(const fs::path& file) {
    std::vector<std::vector<std::string>> lines;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::vector<std::string> fields;
        for (std::string word; words >> word;) fields.push_back(word);
        if (!fields.empty()) lines.push_back(std::move(fields));
    }
    return lines;
}

// Waits for `file` to appear: the plugin creates it from inside the call. Fails after a minute.
bool wait_for_file(const fs::path& file) {
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (!fs::exists(file)) {
        if (std::chrono::steady_clock::now() > give_up) return false;
        std::this_thread::sleep_for(10ms);
    }
    return true;
}

// Two daemons on one fresh database, the ledger plugin installed in both, behind the proxy.
class ServeTakeover : public ::testing::Test {
protected:
    void start(const std::string& url, const std::string& policy_yaml = {}) {
        for (auto& daemon : instances) {
            daemon = std::make_unique<DaemonProcess>(takeover_setup(url, ledger, policy_yaml));
            install_ledger_plugin(*daemon);
            daemon->start();
        }
        proxy =
            std::make_unique<RoundRobinProxy>(std::vector<std::uint16_t>{instances[0]->port(), instances[1]->port()});
    }
    // Waits until the ledger plugin signals it is inside a held call, then kills that daemon with
    // SIGKILL. Sets `killed`, `survivor` and `driver` (the killed pid).
    void kill_the_daemon_inside_a_call() {
        ASSERT_TRUE(wait_for_file(ledger / "inside")) << instances[0]->log() << instances[1]->log();
        std::ifstream(ledger / "inside") >> driver;
        for (auto& daemon : instances) (daemon->process().pid() == driver ? killed : survivor) = daemon.get();
        ASSERT_NE(killed, nullptr) << "the call ran in pid " << driver << ", which is neither daemon";
        ASSERT_EQ(::kill(driver, SIGKILL), 0);
        killed->process().wait(30s);
    }
    HttpResult through(const std::string& method, const std::string& target, const std::string& body = {}) {
        return http_request(proxy->port(), RequestSpec{method, target, body, DaemonProcess::token("owner"), {}});
    }

    TempDir ledger_dir{"skillhost-ledger"};
    const fs::path ledger = ledger_dir.path();
    std::unique_ptr<DaemonProcess> instances[2];
    std::unique_ptr<RoundRobinProxy> proxy;
    DaemonProcess* killed = nullptr;
    DaemonProcess* survivor = nullptr;
    pid_t driver = 0;
};

TEST_F(ServeTakeover, ARunWhoseDaemonIsKilledMidStepIsFinishedByTheOtherWithoutRepeatingAnEffect) {
    SKILLHOST_POSTGRES_DATABASE(url);
    start(url);

    auto started = through("POST", "/v1/runs", R"({"goal":"record the two effects"})");
    ASSERT_EQ(started.status, 202) << started.body;
    const std::string id(started.json().at("run_id").as_string());

    // The daemon driving the run is inside step 2's call, after its effect: kill it there.
    kill_the_daemon_inside_a_call();
    if (HasFatalFailure()) return;

    // Through the proxy only (it stops sending to the dead daemon), until the run has ended.
    json::value run;
    const auto give_up = std::chrono::steady_clock::now() + 90s;
    for (;;) {
        auto shown = through("GET", "/v1/runs/" + id);
        ASSERT_EQ(shown.status, 200) << shown.body;
        run = shown.json();
        const std::string status(run.at("status").as_string());
        if (status != "running" && status != "interrupted") break;
        ASSERT_LT(std::chrono::steady_clock::now(), give_up)
            << "the run was never finished: " << json::serialize(run) << "\n"
            << survivor->log();
        std::this_thread::sleep_for(20ms);
    }
    ASSERT_EQ(run.at("status").as_string(), "completed") << json::serialize(run) << "\n" << survivor->log();
    EXPECT_FALSE(run.at("answer").as_string().empty());

    // Every effect happened exactly once: step 1 and step 2 on the killed daemon.
    const auto effects = lines_of(ledger / "effects.log");
    std::map<std::string, int> by_key;
    for (const auto& line : effects) ++by_key[line.at(0)];
    EXPECT_EQ(by_key, (std::map<std::string, int>{{id + ":1", 1}, {id + ":2", 1}}));
    for (const auto& line : effects) EXPECT_EQ(line.at(2), std::to_string(driver)) << line.at(0);
    // Step 2 was called again by the survivor with the same key, and recognised as a retry.
    const auto replays = lines_of(ledger / "replays.log");
    ASSERT_EQ(replays.size(), 1u);
    EXPECT_EQ(replays[0].at(0), id + ":2");
    EXPECT_EQ(replays[0].at(1), std::to_string(survivor->process().pid()));

    // The record shows two steps with their results, the second marked as retried after the takeover.
    const auto& steps = run.at("steps").as_array();
    ASSERT_GE(steps.size(), 2u) << json::serialize(run);
    EXPECT_EQ(steps[0].at("observation").at("raw").at("done").as_string(), "one");
    EXPECT_EQ(steps[1].at("observation").at("raw").at("done").as_string(), "two");
    EXPECT_TRUE(steps[1].at("observation").at("raw").at("replayed").as_bool());
    EXPECT_NE(json::serialize(steps[1].at("warnings")).find("retried"), std::string::npos) << json::serialize(steps[1]);
    EXPECT_EQ(run.at("plugin_versions").at("ledger").as_string(), "1.0.0");
    EXPECT_GT(proxy->forwarded_to(0) + proxy->forwarded_to(1), 2u);
}

// An approved call whose daemon dies inside it is never run again: the instance elected to sweep
// sees the dead daemon's announcement lapse and marks the approval failed (interrupted), while the
// survivor keeps serving every request through the proxy.
TEST_F(ServeTakeover, AnApprovedCallWhoseDaemonIsKilledInsideItIsMarkedInterruptedByTheOther) {
    SKILLHOST_POSTGRES_DATABASE(url);
    start(url, "global:\n  ask: [\"record_effect\"]\n");

    const std::string args =
        json::serialize(json::object{{"ledger", ledger.string()}, {"note", "approved"}, {"hold", true}});
    auto queued = through("POST", "/v1/skills/record_effect/call", R"({"args":)" + args + "}");
    ASSERT_EQ(queued.status, 202) << queued.body;
    const std::string id(queued.json().at("approval_id").as_string());

    // The approval's answer never comes: the daemon executing it is killed inside the call.
    std::thread approver([&] {
        try {
            (void)through("POST", "/v1/approvals/" + id + "/approve");
        } catch (const std::exception&) {
            // the connection ends with the daemon
        }
    });
    kill_the_daemon_inside_a_call();
    approver.join();
    if (HasFatalFailure()) return;

    json::value approval;
    const auto give_up = std::chrono::steady_clock::now() + 90s;
    for (;;) {
        auto shown = through("GET", "/v1/approvals/" + id);
        ASSERT_EQ(shown.status, 200) << shown.body;
        approval = shown.json();
        if (approval.at("state").as_string() != "approved") break;
        ASSERT_LT(std::chrono::steady_clock::now(), give_up)
            << "the approval stayed approved: " << json::serialize(approval) << "\n"
            << survivor->log();
        std::this_thread::sleep_for(20ms);
    }
    EXPECT_EQ(approval.at("state").as_string(), "failed") << json::serialize(approval);
    EXPECT_EQ(approval.at("reason").as_string(),
              "interrupted: the host stopped while executing; re-request the action");
    // It had its effect once, on the killed daemon, and nobody ran it again.
    const auto effects = lines_of(ledger / "effects.log");
    ASSERT_EQ(effects.size(), 1u);
    EXPECT_EQ(effects[0].at(0), id);
    EXPECT_EQ(effects[0].at(2), std::to_string(driver));
    EXPECT_FALSE(fs::exists(ledger / "replays.log"));
    auto again = through("POST", "/v1/approvals/" + id + "/approve");
    EXPECT_EQ(again.status, 409) << again.body;
    EXPECT_EQ(again.error_code(), "APPROVAL_ALREADY_RESOLVED") << again.body;
}

}  // namespace
}  // namespace skillhost::testing
