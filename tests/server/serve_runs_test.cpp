// Operator runs through `skillhost serve`: live event streams, approval from a second client
// resuming a streamed run, cancellation, guidance, readiness with a model down, graceful shutdown.
#include "daemon_process.hpp"
#include "db/backend_connection.hpp"
#include "store/run_store.hpp"
#include "support/subprocess.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <future>
#include <stdexcept>
#include <thread>

namespace skillhost::testing {
namespace {

using ::testing::HasSubstr;
namespace json = boost::json;

std::string act(const std::string& tool, const std::string& args) {
    return json::serialize(json::object{{"thought", "use " + tool},
                                        {"action", json::object{{"tool", tool}, {"args", json::parse(args)}}}});
}
std::string respond() {
    return R"({"thought":"the data answers the goal","respond":true,"response_style":"default"})";
}

// A script for the orchestrator role only (the other roles stay on the built-in model).
DaemonSetup scripted(const std::vector<std::string>& replies) {
    DaemonSetup setup;
    setup.models_yaml = "models:\n  script: {backend: scripted, script: script.yaml}\nroles:\n  orchestrator: script\n";
    json::array entries;
    for (const auto& r : replies) entries.push_back(json::object{{"role", "orchestrator"}, {"response", r}});
    setup.script_yaml = json::serialize(entries);  // JSON is YAML
    return setup;
}

json::value wait_for_status(DaemonProcess& d, const std::string& id, const std::string& status,
                            std::string_view user = "alice") {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    json::value last;
    while (std::chrono::steady_clock::now() < deadline) {
        auto r = d.get("/v1/runs/" + id, user);
        if (r.status == 200) {
            last = r.json();
            if (last.at("status").as_string() == status) return last;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "run " << id << " never became " << status << "; last: " << json::serialize(last);
    return last;
}

TEST(ServeRuns, AScriptedRunStreamsEveryEventFromStartToCompletion) {
    DaemonProcess d(scripted({act("task_list", "{}"), respond()}));
    d.start();
    SseStream stream(d.port(), RequestSpec{"POST",
                                           "/v1/runs",
                                           R"({"goal":"Which tasks are still open in my task list?"})",
                                           DaemonProcess::token("alice"),
                                           {}});
    ASSERT_EQ(stream.status(), 200) << stream.body_text();
    EXPECT_THAT(stream.headers().at("content-type"), HasSubstr("text/event-stream"));
    auto first = stream.next();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->name, "run");
    const std::string id(first->json().at("run_id").as_string());
    EXPECT_EQ(stream.headers().at("x-run-id"), id);

    std::vector<std::string> names;
    std::optional<SseEvent> end;
    while (auto e = stream.next()) {
        names.push_back(e->name);
        if (e->name == "end") {
            end = e;
            break;
        }
    }
    ASSERT_TRUE(end) << "stream ended without an end event; saw " << ::testing::PrintToString(names) << "\n" << d.log();
    EXPECT_THAT(names, ::testing::IsSupersetOf({"thought", "action", "observation"}));
    EXPECT_EQ(end->json().at("status").as_string(), "completed") << end->data;
    EXPECT_FALSE(stream.next(std::chrono::seconds(5)));  // the server closes the stream after `end`
    EXPECT_TRUE(stream.ended());

    auto stored = d.get("/v1/runs/" + id, "alice");
    ASSERT_EQ(stored.status, 200);
    EXPECT_EQ(stored.json().at("status").as_string(), "completed");
    EXPECT_EQ(d.get("/v1/runs/" + id, "eve").status, 404);  // not hers
    auto listed = d.get("/v1/runs", "alice");
    EXPECT_THAT(listed.body, HasSubstr(id));
    EXPECT_THAT(d.get("/metrics", "").body, HasSubstr("skillhost_runs{status=\"completed\"} 1"));
}

TEST(ServeRuns, ApprovingFromASecondClientResumesTheRunTheFirstIsStreaming) {
    DaemonSetup setup;  // the built-in model plans task_create; policy asks before it runs
    setup.policy_yaml = "global:\n  ask: [\"task_create\"]\n";
    DaemonProcess d(setup);
    d.start();
    SseStream stream(
        d.port(),
        RequestSpec{
            "POST", "/v1/runs", R"({"goal":"Create a task to call the dentist"})", DaemonProcess::token("alice"), {}});
    ASSERT_EQ(stream.status(), 200);
    auto paused = stream.next_named("status");
    ASSERT_TRUE(paused) << d.log();
    EXPECT_EQ(paused->json().at("status").as_string(), "awaiting_approval");
    const std::string approval(paused->json().at("approval_id").as_string());
    const std::string run_id(paused->json().at("run_id").as_string());

    // A second watcher attaches while the run waits.
    SseStream watcher(d.port(),
                      RequestSpec{"GET", "/v1/runs/" + run_id + "/events", "", DaemonProcess::token("alice"), {}});
    ASSERT_EQ(watcher.status(), 200);

    auto approved = d.post("/v1/approvals/" + approval + "/approve", "", "owner");
    ASSERT_EQ(approved.status, 200) << approved.body;
    EXPECT_TRUE(approved.json().at("run").at("resumed").as_bool());

    auto observation = stream.next_named("observation");
    ASSERT_TRUE(observation);
    EXPECT_THAT(observation->data, HasSubstr("task_create"));
    auto end = stream.next_named("end");
    ASSERT_TRUE(end) << d.log();
    EXPECT_EQ(end->json().at("status").as_string(), "completed") << end->data;
    auto watcher_end = watcher.next_named("end");
    ASSERT_TRUE(watcher_end);
    EXPECT_EQ(watcher_end->json().at("status").as_string(), "completed");

    auto tasks = d.post("/v1/skills/task_list/call", "{}", "alice");
    EXPECT_THAT(tasks.body, HasSubstr("call the dentist"));
}

TEST(ServeRuns, AStreamedRunApprovedFromTheCliStillEndsItsStream) {
    DaemonSetup setup;
    setup.policy_yaml = "global:\n  ask: [\"task_create\"]\n";
    DaemonProcess d(setup);
    d.start();
    SseStream stream(
        d.port(),
        RequestSpec{
            "POST", "/v1/runs", R"({"goal":"Create a task to call the dentist"})", DaemonProcess::token("alice"), {}});
    auto paused = stream.next_named("status");
    ASSERT_TRUE(paused) << d.log();
    const std::string approval(paused->json().at("approval_id").as_string());
    // Another process (the CLI) approves and resumes the run; the daemon's stream must still end.
    auto cli = run_process({SKILLHOST_BINARY, "approvals", "approve", approval, "--config",
                            (d.etc() / "skillhost.yaml").string(), "--home", d.home().string()});
    ASSERT_EQ(cli.exit_code, 0) << cli.out << cli.err;
    auto end = stream.next_named("end");
    ASSERT_TRUE(end) << d.log();
    EXPECT_EQ(end->json().at("status").as_string(), "completed") << end->data;
}

// Starts alice's run "Create a task to call the dentist" (task_create needs approval under the
// setup's policy) and waits until it pauses. Its id and the approval's.
std::pair<std::string, std::string> start_dentist_run_paused(DaemonProcess& d) {
    auto started = d.post("/v1/runs", R"({"goal":"Create a task to call the dentist"})", "alice");
    EXPECT_EQ(started.status, 202) << started.body;
    if (started.status != 202) return {};
    std::string id(started.json().at("run_id").as_string());
    auto paused = wait_for_status(d, id, "awaiting_approval");
    const auto* approval = paused.is_object() ? paused.as_object().if_contains("approval_id") : nullptr;
    return {id, approval && approval->is_string() ? std::string(approval->as_string()) : std::string()};
}

TEST(ServeRuns, RejectingResumesTheRunWithTheRefusal) {
    DaemonSetup setup;
    setup.policy_yaml = "global:\n  ask: [\"task_create\"]\n";
    DaemonProcess d(setup);
    d.start();
    const auto [id, approval] = start_dentist_run_paused(d);
    ASSERT_FALSE(approval.empty());
    auto rejected = d.post("/v1/approvals/" + approval + "/reject", R"({"reason":"not today"})", "owner");
    ASSERT_EQ(rejected.status, 200) << rejected.body;
    auto done = wait_for_status(d, id, "completed");
    EXPECT_THAT(json::serialize(done), HasSubstr("not today"));
    auto tasks = d.post("/v1/skills/task_list/call", "{}", "alice");
    EXPECT_THAT(tasks.body, ::testing::Not(HasSubstr("dentist")));
}

// A run whose approval ended without anyone resuming it (here: it expired behind the daemon's back)
// is not left waiting on nothing: POST /v1/runs/{id}/resume continues it with that outcome as its
// step's observation (on PostgreSQL the daemon's sweeper may do it first); what cannot be resumed
// is refused and changes nothing.
TEST(ServeRuns, ARunWhoseApprovalEndedWithoutResumingItIsResumedThroughTheApi) {
    DaemonSetup setup = scripted({act("task_create", R"({"title":"call the dentist"})"), respond()});
    setup.policy_yaml = "global:\n  ask: [\"task_create\"]\n";
    DaemonProcess d(setup);
    d.start();
    const auto [id, approval] = start_dentist_run_paused(d);
    ASSERT_FALSE(approval.empty());

    auto pending = d.post("/v1/runs/" + id + "/resume", "", "alice");
    EXPECT_EQ(pending.status, 409) << pending.body;
    EXPECT_EQ(pending.error_code(), "APPROVAL_STILL_PENDING");
    EXPECT_EQ(d.post("/v1/runs/run-that-does-not-exist/resume", "", "alice").error_code(), "RUN_NOT_FOUND");

    {
        auto db = db::BackendConnection::open(d.storage());
        ASSERT_TRUE(db.ok()) << db.error().message;
        auto expired = (*db)->run("expiring an approval", "UPDATE pending_decisions SET state = 'expired' WHERE id = ?",
                                  {approval});
        ASSERT_TRUE(expired.ok()) << expired.error().message;
    }
    auto resumed = d.post("/v1/runs/" + id + "/resume", "", "alice");
    if (d.storage().backend == db::StorageBackend::sqlite) {
        EXPECT_EQ(resumed.status, 202) << resumed.body;
    } else if (resumed.status != 202) {
        // The sweeper resumed it first.
        EXPECT_THAT(resumed.error_code(), ::testing::AnyOf("RUN_NOT_RESUMABLE", "RUN_BUSY")) << resumed.body;
    }
    auto done = wait_for_status(d, id, "completed");
    EXPECT_EQ(done.at("steps").at(0).at("observation").at("error").at("code").as_string(), "APPROVAL_EXPIRED")
        << json::serialize(done);
    auto tasks = d.post("/v1/skills/task_list/call", "{}", "alice");
    EXPECT_THAT(tasks.body, ::testing::Not(HasSubstr("dentist")));

    auto finished = d.post("/v1/runs/" + id + "/resume", "", "alice");
    EXPECT_EQ(finished.status, 409) << finished.body;
    EXPECT_EQ(finished.error_code(), "RUN_NOT_RESUMABLE");
    EXPECT_EQ(d.get("/v1/runs/" + id, "alice").json().at("status").as_string(), "completed");
}

TEST(ServeRuns, CancellingAWorkingRunStopsItAndAFinishedOneIs409) {
    DaemonProcess d(scripted({act("sleep", R"({"ms":900})"), act("sleep", R"({"ms":900})"), respond()}));
    d.start();
    auto started = d.post("/v1/runs", R"({"goal":"Sleep a while, then sleep again and tell me about it"})", "alice");
    ASSERT_EQ(started.status, 202) << started.body;
    const std::string id(started.json().at("run_id").as_string());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto cancel = d.post("/v1/runs/" + id + "/cancel", "", "alice");
    ASSERT_EQ(cancel.status, 200) << cancel.body;
    EXPECT_TRUE(cancel.json().at("cancel_requested").as_bool());
    auto done = wait_for_status(d, id, "cancelled");
    EXPECT_EQ(done.at("error").at("code").as_string(), "RUN_CANCELLED");
    auto again = d.post("/v1/runs/" + id + "/cancel", "", "alice");
    EXPECT_EQ(again.status, 409);
    EXPECT_EQ(again.error_code(), "RUN_ALREADY_FINISHED");
}

TEST(ServeRuns, TooManyConcurrentRunsPerUserIs429) {
    DaemonSetup setup = scripted({act("sleep", R"({"ms":900})"), respond()});
    setup.server_yaml = "  max_runs_per_user: 1\n";
    DaemonProcess d(setup);
    d.start();
    auto first = d.post("/v1/runs", R"({"goal":"Sleep for a while please and report back"})", "alice");
    ASSERT_EQ(first.status, 202) << first.body;
    auto second = d.post("/v1/runs", R"({"goal":"And another one"})", "alice");
    EXPECT_EQ(second.status, 429) << second.body;
    EXPECT_EQ(second.error_code(), "TOO_MANY_RUNS");
    EXPECT_EQ(d.post("/v1/skills/noop/call", "{}", "owner").status, 200);  // other work goes on
}

TEST(ServeRuns, AStuckRunIsGuidedThroughTheApi) {
    DaemonProcess d(scripted({act("fs_read", R"({"path":"a.txt"})"), act("fs_read", R"({"path":"b.txt"})"),
                              act("fs_read", R"({"path":"c.txt"})"), act("task_list", "{}"), respond()}));
    d.start();
    auto started = d.post("/v1/runs", R"({"goal":"Read my notes files and tell me what they say"})", "alice");
    ASSERT_EQ(started.status, 202);
    const std::string id(started.json().at("run_id").as_string());
    wait_for_status(d, id, "needs_guidance");
    auto empty = d.post("/v1/runs/" + id + "/guidance", R"({"text":"  "})", "alice");
    EXPECT_EQ(empty.status, 400);
    EXPECT_EQ(empty.error_code(), "GUIDANCE_EMPTY");
    SseStream stream(d.port(), RequestSpec{"POST",
                                           "/v1/runs/" + id + "/guidance",
                                           R"({"text":"Look at the task list instead"})",
                                           DaemonProcess::token("alice"),
                                           {}});
    ASSERT_EQ(stream.status(), 200) << stream.body_text();
    auto end = stream.next_named("end");
    ASSERT_TRUE(end) << d.log();
    EXPECT_EQ(end->json().at("status").as_string(), "completed") << end->data;
    auto again = d.post("/v1/runs/" + id + "/guidance", R"({"text":"more"})", "alice");
    EXPECT_EQ(again.status, 409);
    EXPECT_EQ(again.error_code(), "RUN_NOT_WAITING_FOR_GUIDANCE");
}

TEST(ServeRuns, AModeSwitchBeforeGuidanceAppliesToTheResumedRunsCalls) {
    DaemonProcess d(scripted({act("fs_read", R"({"path":"a.txt"})"), act("fs_read", R"({"path":"b.txt"})"),
                              act("fs_read", R"({"path":"c.txt"})"),
                              act("task_create", R"({"title":"after guidance"})"), respond()}));
    d.start();
    auto started = d.post("/v1/runs", R"({"goal":"Read my notes files and tell me what they say"})", "alice");
    ASSERT_EQ(started.status, 202) << started.body;
    const std::string id(started.json().at("run_id").as_string());
    wait_for_status(d, id, "needs_guidance");
    auto switched = d.cli({"mode", "set", "emulation", "--user", "alice"});
    ASSERT_EQ(switched.exit_code, 0) << switched.err;
    auto guided = d.post("/v1/runs/" + id + "/guidance", R"({"text":"Write it down as a task"})", "alice");
    ASSERT_EQ(guided.status, 202) << guided.body;
    // However the run ends, the planner's task_create must not have run in emulation mode.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::string status;
    while (std::chrono::steady_clock::now() < deadline) {
        auto r = d.get("/v1/runs/" + id, "alice");
        status = r.status == 200 ? std::string(r.json().at("status").as_string()) : "";
        if (status == "completed" || status == "failed") break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(status == "completed" || status == "failed") << status << "\n" << d.log();
    auto tasks = d.post("/v1/skills/task_list/call", "{}", "alice");
    EXPECT_THAT(tasks.body, ::testing::Not(HasSubstr("after guidance")));
}

TEST(ServeRuns, ALongGoalIsRefusedWithItsLimitAndTheDaemonStaysHealthy) {
    DaemonProcess d;
    write_file(d.etc() / "operator.yaml", "max_goal_chars: 60\n");
    d.start();
    const std::string huge = "{\"goal\":" + json::serialize(json::value("\"" + std::string(100'000, 'a'))) + "}";
    auto refused = d.post("/v1/runs", huge, "alice");
    EXPECT_EQ(refused.status, 413) << refused.body;
    EXPECT_EQ(refused.error_code(), "GOAL_TOO_LONG");
    EXPECT_EQ(refused.json().at("error").at("details").at("max_goal_chars").to_number<int>(), 60);
    EXPECT_EQ(d.get("/healthz", "").status, 200);

    SseStream streamed(
        d.port(),
        RequestSpec{"POST", "/v1/runs", huge, DaemonProcess::token("alice"), {{"Accept", "text/event-stream"}}});
    EXPECT_EQ(streamed.status(), 413);
    auto longer =
        d.post("/v1/runs", R"({"goal":"Create a task to call the dentist tomorrow morning at nine o'clock"})", "alice");
    EXPECT_EQ(longer.error_code(), "GOAL_TOO_LONG");
    auto fits = d.post("/v1/runs", R"({"goal":"Which tasks are still open?"})", "alice");
    EXPECT_EQ(fits.status, 202) << fits.body;

    auto ask = d.cli({"ask", "\"" + std::string(100'000, 'a'), "--user", "alice"});
    EXPECT_NE(ask.exit_code, 0);
    EXPECT_NE(ask.exit_code, -1) << "ask crashed: signal " << ask.signal;
    EXPECT_THAT(ask.err, HasSubstr("GOAL_TOO_LONG"));
    EXPECT_EQ(d.get("/healthz", "").status, 200);
}

// Writes `version` as the version of `plugin` that run `id`'s steps called (empty: none), behind
// every process's back; returns the version recorded before.
std::string record_plugin_version(const db::StorageLocation& storage, const std::string& id, const std::string& plugin,
                                  const std::string& version) {
    auto db = db::BackendConnection::open(storage);
    if (!db) throw std::runtime_error(db.error().message);
    auto found = (*db)->run("reading a run", "SELECT record FROM runs WHERE id = ?", {id});
    if (!found || found->size() != 1) throw std::runtime_error("run " + id + " is not in the database");
    json::value record = json::parse(found->text(0, 0));
    json::value& stored = record.as_object()["plugin_versions"];
    if (!stored.is_object()) stored = json::object();
    json::object& versions = stored.as_object();
    std::string before;
    if (const auto* v = versions.if_contains(plugin)) before = std::string(v->as_string());
    if (version.empty())
        versions.erase(plugin);
    else
        versions[plugin] = version;
    if (!(*db)->run("rewriting a run", "UPDATE runs SET record = ? WHERE id = ?", {json::serialize(record), id}))
        throw std::runtime_error("cannot rewrite run " + id);
    return before;
}

TEST(ServeRuns, ARunOfAKilledDaemonIsInterruptedAndResumesFromItsLastSavedStep) {
    DaemonSetup setup = scripted({act("sleep", R"({"ms":5000,"started_file":"STARTED"})"), respond()});
    DaemonProcess d(setup);
    // Inside echo's own data directory: the isolated plugin may write nowhere else.
    const auto started_file = d.home() / "users" / "alice" / "plugins" / "echo" / "sleep-started";
    // The script names the file relative to nothing; give it the absolute path.
    std::string script = setup.script_yaml;
    script.replace(script.find("STARTED"), 7, started_file.string());
    write_file(d.etc() / "script.yaml", script);
    d.start();
    auto started = d.post("/v1/runs", R"({"goal":"Sleep a while and tell me about it"})", "alice");
    ASSERT_EQ(started.status, 202) << started.body;
    const std::string id(started.json().at("run_id").as_string());
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!std::filesystem::exists(started_file) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(std::filesystem::exists(started_file)) << d.log();
    d.process().signal(SIGKILL);  // mid-skill: the run is `running` in the database
    d.process().wait(std::chrono::seconds(10));
    std::filesystem::remove(started_file);

    // Had a step of the run called another version of echo, this host would not continue it. Written
    // while no daemon runs: on PostgreSQL a daemon resumes interrupted runs by itself (that is how an
    // instance takes over the run of one that died), and this version is what keeps it from it here.
    const std::string own_version = record_plugin_version(d.storage(), id, "echo", "0.0.0-of-another-instance");
    d.start();
    auto after = d.get("/v1/runs/" + id, "alice");
    ASSERT_EQ(after.status, 200) << after.body;
    EXPECT_EQ(after.json().at("status").as_string(), "interrupted") << after.body;
    // The daemon found its predecessor dead at once (no waiting out a lease); on PostgreSQL it may
    // already have tried to resume the run and recorded why it could not.
    EXPECT_THAT(d.log(), HasSubstr("run " + id + " was being driven by a process that stopped"));
    EXPECT_THAT(std::string(after.json().at("error").at("code").as_string()),
                ::testing::AnyOf("RUN_INTERRUPTED", "RUN_PLUGIN_VERSION_MISSING"));
    auto refused = d.cli({"runs", "resume", id});
    EXPECT_NE(refused.exit_code, 0);
    EXPECT_THAT(refused.err + refused.out, HasSubstr("RUN_PLUGIN_VERSION_MISSING"));
    EXPECT_THAT(refused.err + refused.out, HasSubstr("0.0.0-of-another-instance"));
    EXPECT_EQ(d.get("/v1/runs/" + id, "alice").json().at("error").at("code").as_string(), "RUN_PLUGIN_VERSION_MISSING");

    // With the versions this host has, `runs resume` continues it from its last saved step.
    EXPECT_EQ(d.stop(), 0) << d.log();
    record_plugin_version(d.storage(), id, "echo", own_version);
    auto resumed = d.cli({"runs", "resume", id, "--json"});
    EXPECT_EQ(resumed.exit_code, 0) << resumed.err << resumed.out;
    d.start();
    EXPECT_EQ(d.get("/v1/runs/" + id, "alice").json().at("status").as_string(), "completed");
    // The versions its steps called are in the record now, for the next instance that resumes it.
    auto runs = store::RunStore::open(d.storage());
    ASSERT_TRUE(runs.ok()) << runs.error().message;
    auto completed = (*runs)->get(id);
    ASSERT_TRUE(completed.ok());
    EXPECT_TRUE(completed->plugin_versions.contains("echo"));
    auto again = d.cli({"runs", "resume", id});
    EXPECT_NE(again.exit_code, 0);
    EXPECT_THAT(again.err + again.out, HasSubstr("RUN_NOT_AWAITING_APPROVAL"));
}

TEST(ServeRuns, WithTheModelDownReadinessSaysWhyAndRunsFailAsResources) {
    DaemonSetup setup;
    setup.models_yaml =
        "models:\n  down: {backend: ollama, model: nothing, base_url: \"http://127.0.0.1:9\", retries: 0, timeouts: "
        "{connect_ms: 500}}\n"
        "roles:\n  orchestrator: down\n  classifier: down\n";
    DaemonProcess d(setup);
    d.start();
    auto ready = d.get("/readyz", "");
    EXPECT_EQ(ready.status, 503) << ready.body;
    EXPECT_FALSE(ready.json().at("ready").as_bool());
    const auto roles = ready.json().at("checks").at("models").at("roles").as_array();
    bool orchestrator_named = false;
    for (const auto& r : roles) {
        if (r.at("role").as_string() != "orchestrator") continue;
        orchestrator_named = true;
        EXPECT_FALSE(r.at("reachable").as_bool());
        EXPECT_THAT(json::serialize(r), HasSubstr("HTTP_UNREACHABLE"));
    }
    EXPECT_TRUE(orchestrator_named) << ready.body;
    EXPECT_EQ(d.get("/healthz", "").status, 200);  // alive, just not ready

    auto started = d.post("/v1/runs", R"({"goal":"Which tasks are open and which are overdue?"})", "alice");
    ASSERT_EQ(started.status, 202) << started.body;  // a failing run is not an HTTP error
    auto failed = wait_for_status(d, std::string(started.json().at("run_id").as_string()), "failed");
    EXPECT_THAT(json::serialize(failed.at("error")), HasSubstr("LLM_"));
}

TEST(ServeShutdown, SigtermLetsInFlightRequestsFinishThenExitsCleanly) {
    DaemonProcess d;
    d.start();
    // Inside echo's own data directory: the isolated plugin may write nowhere else.
    const auto started_file = d.home() / "users" / "alice" / "plugins" / "echo" / "sleep-started";
    json::object body{{"args", {{"ms", 800}, {"started_file", started_file.string()}}}};
    auto in_flight = std::async(std::launch::async, [&d, text = json::serialize(body)] {
        return d.post("/v1/skills/sleep/call", text, "alice");
    });
    // SIGTERM once the skill is running (it creates the file), not after a guessed delay.
    for (int i = 0; i < 6000 && !std::filesystem::exists(started_file); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(std::filesystem::exists(started_file)) << d.log();
    d.process().signal(SIGTERM);
    auto answer = in_flight.get();
    EXPECT_EQ(answer.status, 200) << answer.body;
    EXPECT_EQ(answer.json().at("result").at("slept_ms").to_number<int>(), 800);
    EXPECT_EQ(d.process().wait(std::chrono::seconds(20)), 0);
    EXPECT_THAT(d.log(), HasSubstr("SIGTERM"));
    EXPECT_THROW(d.get("/healthz", ""), std::exception);  // nobody listens any more
}

TEST(ServeShutdown, SighupRescansAndHotReloadShowsInTheCatalogAndMetrics) {
    DaemonSetup setup;
    setup.echo_fixture = false;
    DaemonProcess d(setup);
    d.start();
    auto before = d.get("/v1/skills", "alice");
    EXPECT_THAT(before.body, ::testing::Not(HasSubstr("\"noop\"")));
    const auto source = std::filesystem::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "echo";
    const auto staging = d.home() / "staging";
    std::filesystem::create_directories(staging);
    std::vector<std::filesystem::path> manifests;
    for (const auto& e : std::filesystem::directory_iterator(source)) {
        if (!e.is_regular_file()) continue;
        std::filesystem::copy_file(e.path(), staging / e.path().filename());
    }
    for (const auto& e : std::filesystem::directory_iterator(staging)) {
        if (e.path().extension() == ".yaml")
            manifests.push_back(e.path());
        else
            std::filesystem::rename(e.path(), d.plugins_dir() / e.path().filename());
    }
    for (const auto& m : manifests) std::filesystem::rename(m, d.plugins_dir() / m.filename());
    d.process().signal(SIGHUP);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    bool seen = false;
    while (!seen && std::chrono::steady_clock::now() < deadline) {
        seen = d.get("/v1/skills", "alice").body.find("\"noop\"") != std::string::npos;
        if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(seen) << d.log();
    EXPECT_EQ(d.post("/v1/skills/noop/call", "{}", "alice").status, 200);
    auto metrics = d.get("/metrics", "").body;
    EXPECT_THAT(metrics, HasSubstr("skillhost_catalog_version 2"));
    EXPECT_THAT(metrics, ::testing::ContainsRegex("skillhost_catalog_reloads_total [1-9]"));
}

// A request still running when shutdown_grace is over does not keep the daemon: its call is
// cancelled and the daemon stops, cleanly, long before the skill would have finished.
TEST(ServeShutdown, WorkStillRunningAfterTheGracePeriodDoesNotKeepTheDaemon) {
    DaemonSetup setup;
    setup.server_yaml = "  shutdown_grace_ms: 300\n";
    DaemonProcess d(setup);
    d.start();
    // Inside echo's own data directory: the isolated plugin may write nowhere else.
    const auto started_file = d.home() / "users" / "alice" / "plugins" / "echo" / "sleep-started";
    json::object body{{"args", {{"ms", 60000}, {"started_file", started_file.string()}}}, {"timeout_ms", 120000}};
    auto in_flight = std::async(std::launch::async, [&d, text = json::serialize(body)] {
        try {
            return d.post("/v1/skills/sleep/call", text, "alice").body;
        } catch (const std::exception&) {
            return std::string();  // the connection closed without an answer
        }
    });
    for (int i = 0; i < 6000 && !std::filesystem::exists(started_file); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(std::filesystem::exists(started_file)) << d.log();
    const auto signalled = std::chrono::steady_clock::now();
    d.process().signal(SIGTERM);
    EXPECT_EQ(d.process().wait(std::chrono::seconds(90)), 0) << d.log();
    EXPECT_LT(std::chrono::steady_clock::now() - signalled, std::chrono::seconds(55)) << "it waited for the 60 s skill";
    EXPECT_THAT(d.log(), HasSubstr("waiting up to"));
    EXPECT_THAT(d.log(), HasSubstr("serve: stopped"));
    // The call was cancelled at the end of the grace period: the client hears so, or the
    // connection closes; it never gets the 60 s skill's result.
    const std::string answer = in_flight.get();
    if (!answer.empty()) {
        const auto result = json::parse(answer).as_object();
        EXPECT_FALSE(result.at("ok").as_bool()) << answer;
        EXPECT_EQ(result.at("error").at("code").as_string(), "CANCELLED") << answer;
    }
    EXPECT_THAT(d.log(), HasSubstr("cancelling 1 request(s) still running after the grace period"));
}

}  // namespace
}  // namespace skillhost::testing
