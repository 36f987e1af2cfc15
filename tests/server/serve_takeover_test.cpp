// Two `skillhost serve` daemons on one PostgreSQL database behind a round-robin proxy, as a team
// deploys them. The daemon driving a run is killed with SIGKILL at each point of a step (while it
// plans the step, inside the step's skill call after its effect, while it plans the next step);
// once its lease expires the other daemon takes the run over, runs an interrupted call again with
// the same idempotency key (the plugin recognises it and does nothing twice), never repeats a step
// whose result was saved, and finishes the run, which the client follows through the proxy alone.
// A daemon stopped with SIGSTOP while it is the elected sweeper and drives a run holds nothing
// hostage: the other is elected once its election expires and takes the run over. On SQLite one
// daemon killed at the same points and started again resumes the run without repeating an effect.
#include "daemon_process.hpp"
#include "db/postgres_connection.hpp"
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

// Where the daemon driving the run stops: the model holds its answer (it creates <ledger>/planning)
// or the ledger holds inside the call after its effect (<ledger>/inside), until <ledger>/release.
enum class KillPoint { planning_the_step, inside_the_call, planning_the_next_step };

// Both daemons get the same script, keyed by the step the planner is asked for, so whichever
// instance plans a step answers it the same way: step 1 records "one", step 2 records "two", step 3
// responds; the daemon holds at `at` of step 2.
std::string script(const fs::path& ledger, KillPoint at) {
    json::array entries;
    const auto entry = [&](const std::string& match, const std::string& response, bool hold) {
        json::object o{{"role", "orchestrator"}, {"match", match}, {"response", response}};
        if (hold) o["hold"] = ledger.string();
        entries.push_back(std::move(o));
    };
    entry("This is step 3 of", R"({"thought":"both effects are recorded","respond":true,"response_style":"default"})",
          at == KillPoint::planning_the_next_step);
    entry("This is step 2 of", effect(ledger, "two", at == KillPoint::inside_the_call),
          at == KillPoint::planning_the_step);
    entry("This is step 1 of", effect(ledger, "one", false), false);
    return json::serialize(entries);  // JSON is YAML
}

DaemonSetup takeover_setup(const std::string& url, const fs::path& ledger, std::string policy_yaml = {},
                           KillPoint at = KillPoint::inside_the_call) {
    DaemonSetup setup;
    setup.policy_yaml = std::move(policy_yaml);
    setup.models_yaml = "models:\n  script: {backend: scripted, script: script.yaml}\nroles:\n  orchestrator: script\n";
    setup.script_yaml = script(ledger, at);
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
    void start(const std::string& url, const std::string& policy_yaml = {}, KillPoint at = KillPoint::inside_the_call) {
        for (auto& daemon : instances) start_one(daemon, url, policy_yaml, at);
        start_proxy();
    }
    void start_one(std::unique_ptr<DaemonProcess>& daemon, const std::string& url, const std::string& policy_yaml = {},
                   KillPoint at = KillPoint::inside_the_call) {
        daemon = std::make_unique<DaemonProcess>(takeover_setup(url, ledger, policy_yaml, at));
        install_ledger_plugin(*daemon);
        daemon->start();
    }
    void start_proxy() {
        proxy =
            std::make_unique<RoundRobinProxy>(std::vector<std::uint16_t>{instances[0]->port(), instances[1]->port()});
    }
    // Waits until the model (`planning`) or the ledger plugin (`inside`) signals that the daemon
    // driving the run holds there, then sends that daemon `signal` (SIGKILL: and waits for it to
    // end; the held request is then released for the survivor). Sets `killed`, `survivor` and
    // `driver` (the signalled pid).
    void stop_the_daemon_at(const std::string& signal_file, int signal = SIGKILL) {
        ASSERT_TRUE(wait_for_file(ledger / signal_file)) << instances[0]->log() << instances[1]->log();
        std::ifstream(ledger / signal_file) >> driver;
        for (auto& daemon : instances) (daemon->process().pid() == driver ? killed : survivor) = daemon.get();
        ASSERT_NE(killed, nullptr) << "the request ran in pid " << driver << ", which is neither daemon";
        ASSERT_EQ(::kill(driver, signal), 0);
        if (signal != SIGKILL) return;
        killed->process().wait(30s);
        { std::ofstream(ledger / "release") << "go\n"; }
    }
    void kill_the_daemon_inside_a_call() { stop_the_daemon_at("inside"); }
    // Approves `approval_id` through the proxy and kills the daemon executing it inside the call
    // (the approval's answer never comes).
    void approve_and_kill_the_executor(const std::string& approval_id) {
        std::thread approver([&] {
            try {
                (void)through("POST", "/v1/approvals/" + approval_id + "/approve");
            } catch (const std::exception&) {
                // the connection ends with the daemon
            }
        });
        kill_the_daemon_inside_a_call();
        approver.join();
    }
    // Polls through the proxy (or `direct`, when the proxy may pick a stopped daemon) until the run
    // has left running, interrupted and `also_waiting`; its record.
    json::value wait_until_ended(const std::string& id, DaemonProcess* direct = nullptr,
                                 const std::string& also_waiting = "running") {
        json::value run;
        const auto give_up = std::chrono::steady_clock::now() + 90s;
        for (;;) {
            auto shown = direct ? direct->get("/v1/runs/" + id) : through("GET", "/v1/runs/" + id);
            EXPECT_EQ(shown.status, 200) << shown.body;
            if (shown.status != 200) return run;
            run = shown.json();
            const std::string status(run.at("status").as_string());
            if (status != "running" && status != "interrupted" && status != also_waiting) return run;
            if (std::chrono::steady_clock::now() > give_up) {
                ADD_FAILURE() << "the run was never finished: " << json::serialize(run) << "\n" << survivor->log();
                return run;
            }
            std::this_thread::sleep_for(20ms);
        }
    }
    // logged_kinds() once the log holds the run's `end` (logged a moment after the record is saved
    // ended; bounded).
    std::map<std::string, int> logged_kinds_after_end(const std::string& url, const std::string& id) {
        auto kinds = logged_kinds(url, id);
        for (int i = 0; i < 3000 && !kinds.count("end"); ++i) {
            std::this_thread::sleep_for(20ms);
            kinds = logged_kinds(url, id);
        }
        return kinds;
    }
    // How many events of each kind the run's shared event log holds.
    std::map<std::string, int> logged_kinds(const std::string& url, const std::string& id) {
        std::map<std::string, int> kinds;
        auto db = db::PgConnection::open(url);
        EXPECT_TRUE(db.ok()) << db.error().message;
        if (!db) return kinds;
        auto rows = db->query("SELECT kind FROM run_events WHERE run_id = $1", {id});
        EXPECT_TRUE(rows.ok()) << rows.error().message;
        if (!rows) return kinds;
        for (int row = 0; row < rows->rows(); ++row) ++kinds[rows->text(row, 0)];
        return kinds;
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
    // One end in the shared log, by the instance that finished the run; step 2's action twice (the
    // killed daemon's and the retry), step 1's once.
    const auto kinds = logged_kinds_after_end(url, id);
    EXPECT_EQ(kinds.count("end") ? kinds.at("end") : 0, 1) << survivor->log();
    EXPECT_EQ(kinds.count("action") ? kinds.at("action") : 0, 3);
}

// Killed while it plans a step (before that step's call) or while it plans the next one (after a
// call returned): the survivor calls no finished step again, and every effect happens once.
class ServeTakeoverAtEachPoint : public ServeTakeover {
protected:
    void kill_at_and_finish(KillPoint at) {
        SKILLHOST_POSTGRES_DATABASE(url);
        start(url, {}, at);
        auto started = through("POST", "/v1/runs", R"({"goal":"record the two effects"})");
        ASSERT_EQ(started.status, 202) << started.body;
        const std::string id(started.json().at("run_id").as_string());
        stop_the_daemon_at(at == KillPoint::inside_the_call ? "inside" : "planning");
        if (HasFatalFailure()) return;
        const json::value run = wait_until_ended(id);
        ASSERT_EQ(run.at("status").as_string(), "completed") << json::serialize(run) << "\n" << survivor->log();

        // Each effect once: step 1 by the killed daemon, step 2 by the killed daemon when it was
        // killed after planning it, else by the survivor.
        const auto effects = lines_of(ledger / "effects.log");
        std::map<std::string, std::string> by_key;  // key -> pid
        for (const auto& line : effects) EXPECT_TRUE(by_key.emplace(line.at(0), line.at(2)).second) << line.at(0);
        const std::string killed_pid = std::to_string(driver);
        const std::string survivor_pid = std::to_string(survivor->process().pid());
        EXPECT_EQ(by_key, (std::map<std::string, std::string>{
                              {id + ":1", killed_pid},
                              {id + ":2", at == KillPoint::planning_the_step ? survivor_pid : killed_pid}}));
        // No finished step was called again: its saved result is what the survivor went on from.
        EXPECT_FALSE(fs::exists(ledger / "replays.log")) << survivor->log();
        const auto& steps = run.at("steps").as_array();
        ASSERT_GE(steps.size(), 2u) << json::serialize(run);
        for (int i = 0; i < 2; ++i)
            EXPECT_EQ(json::serialize(steps[i]).find("retried"), std::string::npos) << json::serialize(steps[i]);
        const auto kinds = logged_kinds_after_end(url, id);
        EXPECT_EQ(kinds.count("end") ? kinds.at("end") : 0, 1);
        EXPECT_EQ(kinds.count("action") ? kinds.at("action") : 0, 2);
    }
};

TEST_F(ServeTakeoverAtEachPoint, KilledWhilePlanningAStepItsEarlierStepIsNotCalledAgain) {
    kill_at_and_finish(KillPoint::planning_the_step);
}

TEST_F(ServeTakeoverAtEachPoint, KilledWhilePlanningTheNextStepTheStepThatReturnedIsNotCalledAgain) {
    kill_at_and_finish(KillPoint::planning_the_next_step);
}

// A run waits on an approval whose executing daemon is killed inside the call: the survivor marks
// the approval failed (never re-running it) and resumes the run by itself with that outcome as the
// step's observation, so the run is not left waiting on nothing.
TEST_F(ServeTakeover, ARunWhoseApprovedCallDiedWithItsDaemonResumesWithTheFailure) {
    SKILLHOST_POSTGRES_DATABASE(url);
    start(url, "global:\n  ask: [\"record_effect\"]\n");
    auto started = through("POST", "/v1/runs", R"({"goal":"record the two effects"})");
    ASSERT_EQ(started.status, 202) << started.body;
    const std::string id(started.json().at("run_id").as_string());
    // Waits until the run waits on an approval other than `previous`; its id.
    const auto next_approval = [&](const std::string& previous) {
        const auto give_up = std::chrono::steady_clock::now() + 90s;
        for (;;) {
            auto shown = through("GET", "/v1/runs/" + id);
            if (shown.status == 200 && shown.json().at("status").as_string() == "awaiting_approval" &&
                shown.json().at("approval_id").as_string() != previous)
                return std::string(shown.json().at("approval_id").as_string());
            if (std::chrono::steady_clock::now() > give_up) {
                ADD_FAILURE() << "the run never waited for a new approval: " << shown.body;
                return std::string();
            }
            std::this_thread::sleep_for(20ms);
        }
    };
    const std::string first = next_approval("");
    ASSERT_FALSE(first.empty());
    auto approved = through("POST", "/v1/approvals/" + first + "/approve");
    ASSERT_EQ(approved.status, 200) << approved.body;
    const std::string second = next_approval(first);
    ASSERT_FALSE(second.empty());
    approve_and_kill_the_executor(second);
    if (HasFatalFailure()) return;

    const json::value run = wait_until_ended(id, nullptr, "awaiting_approval");
    ASSERT_EQ(run.at("status").as_string(), "completed") << json::serialize(run) << "\n" << survivor->log();
    const auto& steps = run.at("steps").as_array();
    ASSERT_GE(steps.size(), 2u) << json::serialize(run);
    EXPECT_FALSE(steps[1].at("observation").at("success").as_bool()) << json::serialize(steps[1]);
    EXPECT_EQ(through("GET", "/v1/approvals/" + second).json().at("state").as_string(), "failed");
    // Each approved call had its effect once, in the daemon that executed it; none ran again.
    std::map<std::string, int> by_key;
    for (const auto& line : lines_of(ledger / "effects.log")) ++by_key[line.at(0)];
    EXPECT_EQ(by_key, (std::map<std::string, int>{{first, 1}, {second, 1}}));
    EXPECT_FALSE(fs::exists(ledger / "replays.log"));
    const auto kinds = logged_kinds_after_end(url, id);
    EXPECT_EQ(kinds.count("end") ? kinds.at("end") : 0, 1);
}

// The elected sweeper is stopped (SIGSTOP: its connections stay open) while it drives a run inside
// a call: the other daemon is elected once that election expires, takes the run over and finishes
// it. Continued (SIGCONT), the stopped daemon finds its lease gone: it writes nothing more of the
// run, neither to the run record nor to the shared event log.
TEST_F(ServeTakeover, AStoppedSweeperDrivingARunHoldsNoTakeoverHostage) {
    SKILLHOST_POSTGRES_DATABASE(url);
    auto db = db::PgConnection::open(url);
    ASSERT_TRUE(db.ok()) << db.error().message;
    const auto sweeper = [&]() -> std::string {
        auto row = db->query("SELECT owner FROM run_leases WHERE run_id = 'sweeper:leases' AND owner IS NOT NULL");
        EXPECT_TRUE(row.ok()) << row.error().message;
        return row && row->rows() == 1 ? row->text(0, 0) : std::string();
    };
    // The first daemon is elected before the second starts, and stays elected while it sweeps.
    start_one(instances[0], url);
    std::string elected;
    for (int i = 0; i < 3000 && elected.empty(); ++i) {
        elected = sweeper();
        if (elected.empty()) std::this_thread::sleep_for(20ms);
    }
    ASSERT_FALSE(elected.empty()) << instances[0]->log();
    start_one(instances[1], url);

    auto started = instances[0]->post("/v1/runs", R"({"goal":"record the two effects"})");
    ASSERT_EQ(started.status, 202) << started.body;
    const std::string id(started.json().at("run_id").as_string());
    stop_the_daemon_at("inside", SIGSTOP);
    if (HasFatalFailure()) return;
    ASSERT_EQ(killed, instances[0].get());

    const json::value run = wait_until_ended(id, survivor);
    EXPECT_EQ(run.at("status").as_string(), "completed") << json::serialize(run) << "\n" << survivor->log();
    EXPECT_NE(sweeper(), elected);
    const auto before = logged_kinds_after_end(url, id);

    // Woken up, the stopped daemon stops the run's call (its lease is gone) and says so only in its
    // own log; a clean stop afterwards waits for that.
    ASSERT_EQ(::kill(driver, SIGCONT), 0);
    EXPECT_EQ(killed->stop(), 0) << killed->log();
    EXPECT_EQ(logged_kinds(url, id), before);
    EXPECT_EQ(before.count("end") ? before.at("end") : 0, 1);
    auto shown = survivor->get("/v1/runs/" + id);
    ASSERT_EQ(shown.status, 200) << shown.body;
    EXPECT_EQ(shown.json().at("status").as_string(), "completed");
    // Step 1 and step 2's effect happened once each, in the stopped daemon; the survivor's call of
    // step 2 with the same key was recognised as a retry.
    const auto effects = lines_of(ledger / "effects.log");
    ASSERT_EQ(effects.size(), 2u);
    for (const auto& line : effects) EXPECT_EQ(line.at(2), std::to_string(driver));
    const auto replays = lines_of(ledger / "replays.log");
    ASSERT_EQ(replays.size(), 1u);
    EXPECT_EQ(replays[0].at(0), id + ":2");
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
    approve_and_kill_the_executor(id);
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

// One daemon on SQLite (no leases, no sweeper), killed at each point of a step, started again on
// its home and the run resumed by hand: a call with effects is in the record before it runs and its
// result as soon as it returns, so no finished step is called again and the interrupted one is
// called again with its key (the plugin recognises it).
class ServeRestartOnSqlite : public ::testing::TestWithParam<KillPoint> {};

TEST_P(ServeRestartOnSqlite, AResumedRunRepeatsNoEffectWhereverItsDaemonWasKilled) {
    const KillPoint at = GetParam();
    TempDir ledger_dir{"skillhost-ledger"};
    const fs::path ledger = ledger_dir.path();
    DaemonSetup setup;
    setup.models_yaml = "models:\n  script: {backend: scripted, script: script.yaml}\nroles:\n  orchestrator: script\n";
    setup.script_yaml = script(ledger, at);
    setup.extra_yaml = "isolation:\n  plugins:\n    ledger: in_process\n";
    DaemonProcess daemon(setup);
    install_ledger_plugin(daemon);
    daemon.start();

    auto started = daemon.post("/v1/runs", R"({"goal":"record the two effects"})");
    ASSERT_EQ(started.status, 202) << started.body;
    const std::string id(started.json().at("run_id").as_string());
    const fs::path held = ledger / (at == KillPoint::inside_the_call ? "inside" : "planning");
    ASSERT_TRUE(wait_for_file(held)) << daemon.log();
    ASSERT_EQ(::kill(daemon.process().pid(), SIGKILL), 0);
    daemon.process().wait(30s);
    { std::ofstream(ledger / "release") << "go\n"; }

    daemon.start();
    auto shown = daemon.get("/v1/runs/" + id);
    ASSERT_EQ(shown.status, 200) << shown.body;
    EXPECT_EQ(shown.json().at("status").as_string(), "interrupted") << shown.body;
    auto resumed = daemon.post("/v1/runs/" + id + "/resume", "");
    ASSERT_EQ(resumed.status, 202) << resumed.body;
    json::value run;
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    for (;;) {
        run = daemon.get("/v1/runs/" + id).json();
        // Interrupted until the resumed run's thread has claimed it.
        if (run.at("status").as_string() != "running" && run.at("status").as_string() != "interrupted") break;
        ASSERT_LT(std::chrono::steady_clock::now(), give_up) << json::serialize(run) << "\n" << daemon.log();
        std::this_thread::sleep_for(20ms);
    }
    ASSERT_EQ(run.at("status").as_string(), "completed") << json::serialize(run) << "\n" << daemon.log();

    // Each effect once; only a call the kill cut short was called again, with its own key.
    std::map<std::string, int> by_key;
    for (const auto& line : lines_of(ledger / "effects.log")) ++by_key[line.at(0)];
    EXPECT_EQ(by_key, (std::map<std::string, int>{{id + ":1", 1}, {id + ":2", 1}}));
    std::vector<std::string> replayed;
    for (const auto& line : lines_of(ledger / "replays.log")) replayed.push_back(line.at(0));
    EXPECT_EQ(replayed,
              at == KillPoint::inside_the_call ? std::vector<std::string>{id + ":2"} : std::vector<std::string>{})
        << json::serialize(run);
    const auto& steps = run.at("steps").as_array();
    ASSERT_GE(steps.size(), 2u) << json::serialize(run);
    EXPECT_EQ(steps[0].at("observation").at("raw").at("done").as_string(), "one");
    EXPECT_EQ(steps[1].at("observation").at("raw").at("done").as_string(), "two");
}

INSTANTIATE_TEST_SUITE_P(EachPoint, ServeRestartOnSqlite,
                         ::testing::Values(KillPoint::planning_the_step, KillPoint::inside_the_call,
                                           KillPoint::planning_the_next_step),
                         [](const auto& point) {
                             switch (point.param) {
                                 case KillPoint::planning_the_step: return std::string("PlanningTheStep");
                                 case KillPoint::inside_the_call: return std::string("InsideTheCall");
                                 case KillPoint::planning_the_next_step: return std::string("PlanningTheNextStep");
                             }
                             return std::string("Unknown");
                         });

}  // namespace
}  // namespace skillhost::testing
