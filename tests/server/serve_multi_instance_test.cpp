// Two `skillhost serve` daemons on one PostgreSQL database behind a round-robin load balancer (the
// test's own proxy, no sticky sessions): an event stream served by one instance follows a run the
// other executes and resumes after Last-Event-ID; an MCP session initialized through one is used
// through the other; the built-in tasks plugin keeps one task list for both (skillhost.storage/1);
// and a daemon rides out a restart of the database server.
#include "daemon_process.hpp"
#include "plugins/old_plugin_files.hpp"
#include "round_robin_proxy.hpp"
#include "support/postgres_server.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

namespace skillhost::testing {
namespace {

namespace json = boost::json;

std::string act(const std::string& tool, const std::string& args) {
    return json::serialize(json::object{{"thought", "use " + tool},
                                        {"action", json::object{{"tool", tool}, {"args", json::parse(args)}}}});
}

// Both instances on `url`, the orchestrator scripted: three sleeps (so the run is still working
// while the other instance attaches), then the answer.
DaemonSetup instance_setup(const std::string& url) {
    DaemonSetup setup;
    setup.models_yaml = "models:\n  script: {backend: scripted, script: script.yaml}\nroles:\n  orchestrator: script\n";
    json::array entries;
    for (int i = 0; i < 3; ++i)
        entries.push_back(json::object{{"role", "orchestrator"}, {"response", act("sleep", R"({"ms":400})")}});
    entries.push_back(json::object{
        {"role", "orchestrator"},
        {"response", R"({"thought":"the data answers the goal","respond":true,"response_style":"default"})"}});
    setup.script_yaml = json::serialize(entries);
    setup.extra_yaml = "storage:\n  backend: postgres\n  url: \"" + url + "\"\n";
    setup.server_yaml = "  readiness_cache_ms: 0\n";
    return setup;
}

class ServeMultiInstance : public ::testing::Test {
protected:
    void SetUp() override {
        SKILLHOST_POSTGRES_DATABASE(url);
        a = std::make_unique<DaemonProcess>(instance_setup(url));
        b = std::make_unique<DaemonProcess>(instance_setup(url));
        a->start();
        b->start();
        proxy = std::make_unique<RoundRobinProxy>(std::vector<std::uint16_t>{a->port(), b->port()});
    }
    // Sends nothing through the proxy; only lines its next connection up with instance `index`.
    void next_goes_to(std::size_t index) {
        if (proxy->next_backend() != index)
            (void)http_request(proxy->port(), RequestSpec{"GET", "/healthz", "", "", {}});
        ASSERT_EQ(proxy->next_backend(), index);
    }
    RequestSpec events_of(const std::string& run_id, const std::string& last_id = "") const {
        RequestSpec spec{"GET", "/v1/runs/" + run_id + "/events", "", DaemonProcess::token("alice"), {}};
        if (!last_id.empty()) spec.headers.emplace_back("Last-Event-ID", last_id);
        return spec;
    }
    std::unique_ptr<DaemonProcess> a;
    std::unique_ptr<DaemonProcess> b;
    std::unique_ptr<RoundRobinProxy> proxy;
};

struct Seen {
    std::vector<std::string> names;
    std::vector<long long> ids;
};

// Reads until `end` (or `stop_after` events): records names and numeric ids.
void read_events(SseStream& stream, Seen& seen, std::size_t stop_after = SIZE_MAX) {
    std::size_t read = 0;
    while (read < stop_after) {
        auto event = stream.next(std::chrono::seconds(30));
        if (!event) return;
        ++read;
        seen.names.push_back(event->name);
        seen.ids.push_back(stream.last_id().empty() ? -1 : std::stoll(stream.last_id()));
        if (event->name == "end") return;
    }
}

TEST_F(ServeMultiInstance, AStreamOnOneInstanceFollowsARunExecutingOnTheOtherAndResumesAfterLastEventId) {
    next_goes_to(0);
    auto started = http_request(
        proxy->port(),
        RequestSpec{"POST", "/v1/runs", R"({"goal":"sleep three times"})", DaemonProcess::token("alice"), {}});
    ASSERT_EQ(started.status, 202) << started.body;
    const std::string run_id(started.json().at("run_id").as_string());

    // The next connection goes to instance B, which does not execute the run.
    ASSERT_EQ(proxy->next_backend(), 1u);
    Seen first;
    {
        SseStream stream(proxy->port(), events_of(run_id));
        ASSERT_EQ(stream.status(), 200) << stream.body_text();
        read_events(stream, first, 4);  // then the client loses its connection
    }
    ASSERT_EQ(first.names.size(), 4u) << b->log();
    EXPECT_EQ(first.names.front(), "run");
    const std::string last_id = std::to_string(first.ids.back());

    // Reconnecting continues after the last id; B again, so the rest also comes from A's appends
    // that B hears of (LISTEN/NOTIFY) while the run is still working.
    next_goes_to(1);
    Seen rest;
    {
        SseStream stream(proxy->port(), events_of(run_id, last_id));
        ASSERT_EQ(stream.status(), 200) << stream.body_text();
        read_events(stream, rest);
    }
    ASSERT_FALSE(rest.names.empty()) << a->log() << b->log();
    EXPECT_EQ(rest.names.back(), "end") << a->log();

    // Together: every event once, numbered 1, 2, 3, ... in order, thoughts, actions and observations
    // of all three steps, then the end.
    std::vector<long long> ids = first.ids;
    ids.insert(ids.end(), rest.ids.begin(), rest.ids.end());
    for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], static_cast<long long>(i + 1)) << "event " << i;
    std::vector<std::string> names = first.names;
    names.insert(names.end(), rest.names.begin(), rest.names.end());
    EXPECT_EQ(std::count(names.begin(), names.end(), "observation"), 3) << ::testing::PrintToString(names);
    EXPECT_EQ(std::count(names.begin(), names.end(), "end"), 1);

    // The run executed on A only: B's own store record says completed all the same.
    auto record = b->get("/v1/runs/" + run_id, "alice");
    ASSERT_EQ(record.status, 200) << record.body;
    EXPECT_EQ(record.json().at("status").as_string(), "completed");

    // A finished run replays whole from the log on either instance, and a malformed id is refused.
    for (DaemonProcess* instance : {a.get(), b.get()}) {
        SseStream replay(instance->port(), events_of(run_id, "0"));
        Seen again;
        read_events(replay, again);
        EXPECT_EQ(again.ids, ids);
        auto bad = http_request(instance->port(), events_of(run_id, "12abc"));
        EXPECT_EQ(bad.status, 400) << bad.body;
        EXPECT_EQ(bad.error_code(), "INVALID_LAST_EVENT_ID");
    }
}

// The tasks plugin on two daemons sharing one PostgreSQL: one task list with one set of ids, the
// same through either instance (the divergence of issue 34: B's task 16 was another task than A's).
// The two daemons of ServeMultiInstance, called directly.
class ServeSharedTasks : public ServeMultiInstance {
protected:
    static json::object call(DaemonProcess& d, const std::string& skill, const std::string& args) {
        auto answer = d.post("/v1/skills/" + skill + "/call", R"({"args":)" + args + "}", "alice");
        EXPECT_EQ(answer.status, 200) << skill << " " << args << ": " << answer.body;
        return answer.status == 200 ? answer.json().as_object() : json::object{};
    }
    static json::object task_of(const json::object& answer) {
        if (!answer.contains("result")) return {};
        return answer.at("result").at("task").as_object();
    }
    static std::vector<std::pair<std::int64_t, std::string>> listed(DaemonProcess& d) {
        std::vector<std::pair<std::int64_t, std::string>> out;
        auto answer = call(d, "task_list", R"({"include_completed":true,"limit":500})");
        if (!answer.contains("result")) return out;
        for (const auto& t : answer.at("result").at("tasks").as_array())
            out.emplace_back(t.at("id").as_int64(), std::string(t.at("title").as_string()));
        return out;
    }
    static std::filesystem::path tasks_dir(DaemonProcess& d) {
        return d.home() / "users" / "alice" / "plugins" / "tasks";
    }
};

TEST_F(ServeSharedTasks, ATaskCreatedThroughOneInstanceIsListedChangedAndDeletedThroughTheOtherByItsId) {
    std::vector<std::int64_t> ids;
    for (const char* title : {"Renew the passport", "Water the plants", "Call the dentist"}) {
        const auto task = task_of(call(*a, "task_create", std::string(R"({"title":")") + title + "\"}"));
        ASSERT_TRUE(task.contains("id"));
        ids.push_back(task.at("id").as_int64());
    }
    EXPECT_EQ(listed(*b), listed(*a));
    ASSERT_EQ(listed(*b).size(), 3u);

    // Through B: task ids[1] is A's "Water the plants", changed and then deleted there.
    const std::string id = std::to_string(ids[1]);
    auto updated = call(*b, "task_update", R"({"id":)" + id + R"(,"status":"done"})");
    EXPECT_EQ(task_of(updated).at("title"), "Water the plants");
    auto through_a = call(*a, "task_list", R"({"status":"done"})");
    ASSERT_TRUE(through_a.contains("result"));
    ASSERT_EQ(through_a.at("result").at("tasks").as_array().size(), 1u);
    EXPECT_EQ(through_a.at("result").at("tasks").at(0).at("id"), ids[1]);
    // A delete needs alice's approval: queued through A (as a run planned there), approved through B,
    // which executes it on the same task, the one A meant.
    auto queued = a->post("/v1/skills/task_delete/call", R"({"args":{"id":)" + id + "}}", "alice");
    ASSERT_EQ(queued.status, 202) << queued.body;
    const std::string approval(queued.json().at("approval_id").as_string());
    auto approved = b->post("/v1/approvals/" + approval + "/approve", "", "owner");
    ASSERT_EQ(approved.status, 200) << approved.body;
    EXPECT_NE(approved.body.find("Water the plants"), std::string::npos) << approved.body;
    const auto after = listed(*a);
    ASSERT_EQ(after.size(), 2u);
    for (const auto& [task_id, title] : after) EXPECT_NE(task_id, ids[1]) << title;
    EXPECT_EQ(listed(*b), after);
    auto again = call(*a, "task_update", R"({"id":)" + id + R"(,"title":"x"})");
    ASSERT_TRUE(again.contains("error")) << json::serialize(again);
    EXPECT_EQ(again.at("error").at("code"), "TASK_NOT_FOUND");

    // Ids never collide across instances: B's next task takes a new id.
    const auto fourth = task_of(call(*b, "task_create", R"({"title":"Through B"})"));
    EXPECT_EQ(fourth.at("id"), ids.back() + 1);
    EXPECT_EQ(listed(*a), listed(*b));
    // Nothing of it is in a file of either instance's data directory.
    EXPECT_FALSE(std::filesystem::exists(tasks_dir(*a) / "tasks.db"));
    EXPECT_FALSE(std::filesystem::exists(tasks_dir(*b) / "tasks.db"));
}

// The memory plugin keeps its memories in the shared storage too: captured through A, found and read
// through B under the same id. Each instance names in its log, once, the plugins whose state stays
// in files on its own disk: the echo fixture (its manifest says nothing, which means files), never
// tasks or memory (`state: host_storage`).
TEST_F(ServeSharedTasks, AMemoryCapturedThroughOneInstanceIsFoundThroughTheOtherAndFileKeepingPluginsAreNamed) {
    const auto captured = call(
        *a, "memory_capture", R"({"text":"The spare key is under the blue flower pot","kind":"note","tags":["home"]})");
    ASSERT_TRUE(captured.contains("result"));
    const auto id = captured.at("result").at("memory").at("id");
    const auto found = call(*b, "memory_search", R"({"query":"where is the spare key"})");
    ASSERT_TRUE(found.contains("result"));
    ASSERT_EQ(found.at("result").at("count"), 1) << json::serialize(found);
    EXPECT_EQ(found.at("result").at("results").at(0).at("id"), id);
    const auto recent = call(*b, "memory_recent", R"({"tag":"home"})");
    ASSERT_TRUE(recent.contains("result"));
    EXPECT_EQ(recent.at("result").at("memories").at(0).at("id"), id);
    EXPECT_FALSE(std::filesystem::exists(a->home() / "users" / "alice" / "plugins" / "memory" / "memory.db"));

    for (DaemonProcess* d : {a.get(), b.get()}) {
        const std::string log = d->log();
        EXPECT_NE(log.find("plugin 'echo' 1.0.0 keeps its state in files in each instance's data directory"),
                  std::string::npos)
            << log;
        EXPECT_EQ(log.find("plugin 'tasks' 1.0.0 keeps its state"), std::string::npos) << log;
        EXPECT_EQ(log.find("plugin 'memory' 1.0.0 keeps its state"), std::string::npos) << log;
        EXPECT_EQ(log.find("plugin 'fs' 1.0.0 keeps its state"), std::string::npos) << log;
    }
}

// A client's retry with the same Idempotency-Key that lands on the other instance creates nothing:
// the shared table of first answers replays the first one (the same call), and the task exists once.
TEST_F(ServeSharedTasks, ARetriedCreateLandingOnTheOtherInstanceReturnsTheFirstTaskAndCreatesNothing) {
    const auto send = [](DaemonProcess& d, const std::string& key) {
        return http_request(d.port(), RequestSpec{"POST",
                                                  "/v1/skills/task_create/call",
                                                  R"({"args":{"title":"Book the flights"}})",
                                                  DaemonProcess::token("alice"),
                                                  {{"Idempotency-Key", key}}});
    };
    auto first = send(*a, "retry-across-1");
    ASSERT_EQ(first.status, 200) << first.body;
    EXPECT_TRUE(first.json().at("result").at("created").as_bool());
    auto retry = send(*b, "retry-across-1");
    ASSERT_EQ(retry.status, 200) << retry.body;
    EXPECT_EQ(retry.json().at("result").at("task").at("id"), first.json().at("result").at("task").at("id"));
    EXPECT_EQ(retry.json().at("call_id"), first.json().at("call_id")) << retry.body;
    EXPECT_EQ(listed(*a).size(), 1u);
    EXPECT_EQ(listed(*b).size(), 1u);
    auto other = send(*b, "retry-across-2");
    ASSERT_EQ(other.status, 200) << other.body;
    EXPECT_NE(other.json().at("result").at("task").at("id"), first.json().at("result").at("task").at("id"));
    EXPECT_EQ(listed(*a).size(), 2u);
}

// Each instance kept its own tasks.db before the upgrade. The first to serve alice imports its file
// with its ids; the other does not import its own on top (its ids would collide), keeps it as
// tasks.db.not-imported, and says so in its log; both serve the same list.
TEST_F(ServeSharedTasks, TheFirstInstancesTasksDbIsImportedOnceAndTheOthersIsKeptNotImported) {
    write_old_tasks_db(tasks_dir(*a) / "tasks.db", {{1, "From A's file", "open", "high", {"a"}, {}, {}, ""},
                                                    {2, "Also from A", "open", "medium", {}, {}, {}, ""}});
    write_old_tasks_db(tasks_dir(*b) / "tasks.db", {{1, "From B's file", "open", "medium", {}, {}, {}, ""}});
    const auto through_a = listed(*a);
    EXPECT_EQ(through_a, (std::vector<std::pair<std::int64_t, std::string>>{{1, "From A's file"}, {2, "Also from A"}}));
    EXPECT_TRUE(std::filesystem::exists(tasks_dir(*a) / "tasks.db.migrated"));
    EXPECT_EQ(listed(*b), through_a);
    EXPECT_FALSE(std::filesystem::exists(tasks_dir(*b) / "tasks.db"));
    EXPECT_TRUE(std::filesystem::exists(tasks_dir(*b) / "tasks.db.not-imported"));
    EXPECT_NE(b->log().find("not importing 1 task(s)"), std::string::npos) << b->log();
    const auto created = task_of(call(*b, "task_create", R"({"title":"After both"})"));
    EXPECT_EQ(created.at("id"), 3);
}

// Both instances find their own tasks.db on their first calls, at the same moment: the marker,
// created only if absent, lets exactly one import; the other file is kept, not imported.
TEST_F(ServeSharedTasks, TwoInstancesImportingAtOnceImportOneFileOnly) {
    write_old_tasks_db(tasks_dir(*a) / "tasks.db", {{1, "A one", "open", "medium", {}, {}, {}, ""},
                                                    {2, "A two", "open", "medium", {}, {}, {}, ""},
                                                    {3, "A three", "open", "medium", {}, {}, {}, ""}});
    write_old_tasks_db(tasks_dir(*b) / "tasks.db", {{1, "B one", "open", "medium", {}, {}, {}, ""},
                                                    {2, "B two", "open", "medium", {}, {}, {}, ""}});
    std::vector<std::thread> first_calls;
    for (DaemonProcess* d : {a.get(), b.get()}) first_calls.emplace_back([d] { (void)listed(*d); });
    for (auto& t : first_calls) t.join();
    // A call that found the other import still running left its file; the next one sets it aside.
    const auto through_a = listed(*a);
    EXPECT_EQ(listed(*b), through_a);
    const bool a_imported = std::filesystem::exists(tasks_dir(*a) / "tasks.db.migrated");
    const bool b_imported = std::filesystem::exists(tasks_dir(*b) / "tasks.db.migrated");
    ASSERT_NE(a_imported, b_imported) << "exactly one file is imported\n" << a->log() << b->log();
    DaemonProcess& loser = a_imported ? *b : *a;
    EXPECT_TRUE(std::filesystem::exists(tasks_dir(loser) / "tasks.db.not-imported"));
    EXPECT_FALSE(std::filesystem::exists(tasks_dir(loser) / "tasks.db"));
    using Listed = std::vector<std::pair<std::int64_t, std::string>>;
    const Listed from_a{{1, "A one"}, {2, "A two"}, {3, "A three"}};
    const Listed from_b{{1, "B one"}, {2, "B two"}};
    EXPECT_EQ(through_a, a_imported ? from_a : from_b);
}

struct McpOverProxy {
    std::uint16_t port;
    std::string session;

    HttpResult post(const json::value& body, bool with_session = true) const {
        RequestSpec spec{
            "POST", "/mcp", json::serialize(body), DaemonProcess::token("alice"), {{"Accept", "application/json"}}};
        if (with_session) spec.headers.emplace_back("Mcp-Session-Id", session);
        return http_request(port, spec);
    }
};

TEST_F(ServeMultiInstance, AnMcpSessionInitializedThroughOneInstanceIsServedByTheOther) {
    McpOverProxy client{proxy->port(), ""};
    next_goes_to(0);
    auto init = client.post(json::object{{"jsonrpc", "2.0"},
                                         {"id", 0},
                                         {"method", "initialize"},
                                         {"params",
                                          {{"protocolVersion", "2025-06-18"},
                                           {"capabilities", json::object{{"elicitation", json::object()}}},
                                           {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}},
                            false);
    ASSERT_EQ(init.status, 200) << init.body;
    client.session = init.headers["mcp-session-id"];
    ASSERT_FALSE(client.session.empty());

    // B never saw the initialize: it rebuilds the session from its row, same negotiated version.
    ASSERT_EQ(proxy->next_backend(), 1u);
    EXPECT_EQ(client.post(json::object{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).status, 202);
    for (int i = 1; i <= 4; ++i) {  // alternating A, B, A, B
        auto call = client.post(json::object{{"jsonrpc", "2.0"},
                                             {"id", i},
                                             {"method", "tools/call"},
                                             {"params", {{"name", "add"}, {"arguments", {{"a", i}, {"b", 40}}}}}});
        ASSERT_EQ(call.status, 200) << call.body << a->log() << b->log();
        EXPECT_EQ(call.headers["mcp-session-id"], client.session);
        EXPECT_EQ(call.json().at("result").at("structuredContent").at("sum").to_number<int>(), i + 40) << call.body;
    }
    auto routed = proxy->routed();
    EXPECT_NE(std::find(routed.begin(), routed.end(), 0u), routed.end());
    EXPECT_NE(std::find(routed.begin(), routed.end(), 1u), routed.end());

    // An unknown session is 404 on both (the client initializes again).
    McpOverProxy stranger{proxy->port(), "mcp-0000000000000000"};
    for (int i = 0; i < 2; ++i) {
        auto unknown = stranger.post(json::object{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "tools/list"}});
        EXPECT_EQ(unknown.status, 404) << unknown.body;
    }
    // Another user cannot use the session: 404 too, on the instance that holds it and the one that does not.
    for (DaemonProcess* instance : {a.get(), b.get()}) {
        RequestSpec spec{"POST",
                         "/mcp",
                         R"({"jsonrpc":"2.0","id":5,"method":"tools/list"})",
                         DaemonProcess::token("owner"),
                         {{"Accept", "application/json"}, {"Mcp-Session-Id", client.session}}};
        EXPECT_EQ(http_request(instance->port(), spec).status, 404);
    }

    // DELETE through one instance ends it on both.
    RequestSpec end{"DELETE", "/mcp", "", DaemonProcess::token("alice"), {{"Mcp-Session-Id", client.session}}};
    ASSERT_EQ(http_request(a->port(), end).status, 204);
    for (DaemonProcess* instance : {a.get(), b.get()}) {
        McpOverProxy direct{instance->port(), client.session};
        auto gone = direct.post(json::object{{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/list"}});
        EXPECT_EQ(gone.status, 404) << gone.body;
    }
}

// A client's retry that the load balancer sends to the other instance is answered from the shared
// database: the first answer again, one effect; while the first is still in flight, the other
// instance says so (409) rather than running it a second time.
TEST_F(ServeMultiInstance, ARetryWithTheSameIdempotencyKeyOnTheOtherInstanceReplaysTheFirstAnswer) {
    const auto send = [](DaemonProcess& to, const std::string& target, const std::string& body,
                         const std::string& key) {
        return http_request(
            to.port(), RequestSpec{"POST", target, body, DaemonProcess::token("alice"), {{"Idempotency-Key", key}}});
    };
    const std::string create = R"({"args":{"title":"book the dentist"}})";
    auto first = send(*a, "/v1/skills/task_create/call", create, "shared-1");
    ASSERT_EQ(first.status, 200) << first.body;
    auto again = send(*b, "/v1/skills/task_create/call", create, "shared-1");
    EXPECT_EQ(again.status, 200) << again.body;
    EXPECT_EQ(again.body, first.body);
    EXPECT_EQ(again.headers["idempotent-replayed"], "true");
    // Plugin data is per instance (docs/scaling.md): the task lives where the first call ran it.
    auto listed = a->post("/v1/skills/task_list/call", "{}", "alice");
    std::size_t created = 0;
    for (auto at = listed.body.find("book the dentist"); at != std::string::npos;
         at = listed.body.find("book the dentist", at + 1))
        ++created;
    EXPECT_EQ(created, 1u) << listed.body;
    auto other = send(*b, "/v1/skills/task_create/call", R"({"args":{"title":"x"}})", "shared-1");
    EXPECT_EQ(other.error_code(), "IDEMPOTENCY_KEY_REUSED") << other.body;

    const auto started = a->home() / "users" / "alice" / "plugins" / "echo" / "sleep-started";
    const std::string slow = R"({"args":{"ms":900,"started_file":")" + started.string() + R"("}})";
    std::thread slow_call([&] { (void)send(*a, "/v1/skills/sleep/call", slow, "shared-2"); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!std::filesystem::exists(started) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    auto busy = send(*b, "/v1/skills/sleep/call", slow, "shared-2");
    slow_call.join();
    ASSERT_TRUE(std::filesystem::exists(started)) << a->log();
    EXPECT_EQ(busy.status, 409) << busy.body;
    EXPECT_EQ(busy.error_code(), "IDEMPOTENCY_KEY_IN_USE") << busy.body;
    auto done = send(*b, "/v1/skills/sleep/call", slow, "shared-2");
    EXPECT_EQ(done.status, 200) << done.body;
    EXPECT_EQ(done.headers["idempotent-replayed"], "true");
}

TEST(ServeDatabaseRestart, ADaemonAnswers503WhileThePostgresServerIsDownAndRecoversWithoutRestart) {
    std::string why;
    std::unique_ptr<PostgresServer> server;
    std::string url;
    SKILLHOST_OWN_POSTGRES_SERVER(server, url);
    DaemonProcess d(instance_setup(url));
    d.start();
    const pid_t pid = d.process().pid();
    ASSERT_EQ(d.get("/v1/approvals", "alice").status, 200);
    ASSERT_EQ(d.get("/readyz", "").status, 200);

    server->stop();
    auto down = d.get("/v1/approvals", "alice");
    EXPECT_EQ(down.status, 503) << down.body;
    EXPECT_EQ(down.error_code(), "DATABASE_UNAVAILABLE") << down.body;
    auto ready = d.get("/readyz", "");
    EXPECT_EQ(ready.status, 503) << ready.body;
    EXPECT_FALSE(ready.json().at("checks").at("database").at("ok").as_bool()) << ready.body;
    EXPECT_EQ(ready.json().at("checks").at("database").at("backend").as_string(), "postgres");

    ASSERT_TRUE(server->start_again(why)) << why;
    // Reconnecting is retried with a backoff of at most 5 s: the daemon answers again within a few.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    HttpResult back;
    while (std::chrono::steady_clock::now() < deadline) {
        back = d.get("/v1/approvals", "alice");
        if (back.status == 200) break;
        EXPECT_EQ(back.status, 503) << back.body;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(back.status, 200) << back.body << d.log();
    EXPECT_EQ(d.process().pid(), pid);
    EXPECT_EQ(d.get("/readyz", "").status, 200);
    // A run (every store: runs, event log, audit) works after the restart too.
    auto run = d.post("/v1/runs", R"({"goal":"sleep three times"})", "alice");
    EXPECT_EQ(run.status, 202) << run.body;
}

// PostgreSQL dies while a call runs: its decision was written before it started, but its after-call
// record cannot be, nor its answer to the client's Idempotency-Key. The record waits in the home's
// audit outbox and is in the audit log once the daemon reaches the server again — once; the answer
// waits in the daemon and a retry after the server returned replays it instead of running again.
TEST(ServeDatabaseRestart, TheAfterCallRecordAndAnswerOfACallRunningWhenThePostgresServerDiesAreKeptWhenItReturns) {
    std::string why;
    std::unique_ptr<PostgresServer> server;
    std::string url;
    SKILLHOST_OWN_POSTGRES_SERVER(server, url);
    DaemonProcess d(instance_setup(url));
    d.start();
    const auto started = d.home() / "users" / "alice" / "plugins" / "echo" / "sleep-started";
    const RequestSpec sleep{"POST",
                            "/v1/skills/sleep/call",
                            R"({"args":{"ms":700,"started_file":")" + started.string() + R"("}})",
                            DaemonProcess::token("alice"),
                            {{"Idempotency-Key", "sleep-1"}}};
    HttpResult answer;
    std::thread call([&] { answer = http_request(d.port(), sleep); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!std::filesystem::exists(started) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const bool was_running = std::filesystem::exists(started);
    if (was_running) server->stop(PostgresServer::Shutdown::immediate);
    call.join();
    ASSERT_TRUE(was_running) << d.log();
    ASSERT_EQ(answer.status, 200) << "the call ran on its durable decision: " << answer.body;
    const std::string call_id(answer.json().at("call_id").as_string());
    ASSERT_FALSE(call_id.empty()) << answer.body;
    const auto outbox = d.home() / "audit-outbox.jsonl";
    EXPECT_GT(std::filesystem::file_size(outbox), 0u) << "the after-call record waits in the outbox\n" << d.log();
    auto waiting = d.get("/readyz", "");
    EXPECT_EQ(waiting.status, 503) << waiting.body;
    EXPECT_GT(waiting.json().at("checks").at("audit_outbox").at("waiting_bytes").to_number<std::int64_t>(), 0)
        << waiting.body;

    ASSERT_TRUE(server->start_again(why)) << why;
    const auto back = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::size_t found = 0;
    HttpResult audit;
    while (std::chrono::steady_clock::now() < back) {
        audit = d.get("/v1/audit?kind=skill_call&limit=1000");
        found = 0;
        for (auto at = audit.body.find(call_id); at != std::string::npos; at = audit.body.find(call_id, at + 1))
            ++found;
        if (audit.status == 200 && found > 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    EXPECT_EQ(found, 1u) << "the after-call record of " << call_id << " is in the audit log once: " << audit.body
                         << d.log();
    EXPECT_EQ(std::filesystem::file_size(outbox), 0u) << "the outbox is empty once the database took its records";
    auto ready = d.get("/readyz", "");
    EXPECT_EQ(ready.json().at("checks").at("audit_outbox").at("waiting_bytes").to_number<std::int64_t>(), 0)
        << ready.body;
    EXPECT_TRUE(ready.json().at("checks").at("audit_outbox").at("ok").as_bool()) << ready.body;

    auto retried = http_request(d.port(), sleep);
    EXPECT_EQ(retried.status, 200) << retried.body;
    EXPECT_EQ(retried.headers["idempotent-replayed"], "true") << retried.body;
    EXPECT_EQ(retried.body, answer.body);
    audit = d.get("/v1/audit?kind=skill_call&limit=1000");
    found = 0;
    for (auto at = audit.body.find("\"skill\":\"sleep\""); at != std::string::npos;
         at = audit.body.find("\"skill\":\"sleep\"", at + 1))
        ++found;
    EXPECT_EQ(found, 1u) << "the retry ran the call again: " << audit.body;
}

// PostgreSQL dies (immediate shutdown, as a crash) while calls and approvals are in flight. Every
// answer is either done — and then its effect and its decision record survive — or refused as
// unavailable (503), never a 500; and once the database is back no approval stays `approved`
// with its outcome unrecorded.
TEST(ServeDatabaseRestart, WorkInFlightWhenThePostgresServerDiesIsDoneAndAuditedOrRefusedAsUnavailable) {
    std::string why;
    std::unique_ptr<PostgresServer> server;
    std::string url;
    SKILLHOST_OWN_POSTGRES_SERVER(server, url);
    DaemonSetup setup = instance_setup(url);
    setup.policy_yaml = "global:\n  ask: [\"add\"]\n";
    DaemonProcess d(setup);
    d.start();
    std::vector<std::string> approvals;
    for (int a = 0; a < 40; ++a) {
        auto queued =
            d.post("/v1/skills/add/call", R"({"args":{"a":)" + std::to_string(1000 + a) + R"(,"b":1}})", "alice");
        ASSERT_EQ(queued.status, 202) << queued.body;
        approvals.emplace_back(queued.json().at("approval_id").as_string());
    }

    struct Answer {
        std::string what;  // a task title, or an approval id
        int status = 0;
        std::string body;
    };
    std::mutex mutex;
    std::vector<Answer> calls, approves;
    std::atomic<bool> done{false};
    std::vector<std::thread> clients;
    for (int t = 0; t < 2; ++t) {
        clients.emplace_back([&, t] {
            // At most 240 each (the list below is read in one page of 500), a few milliseconds apart.
            for (int i = 0; !done.load() && i < 240; ++i) {
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
                const std::string title = "burst " + std::to_string(t) + "-" + std::to_string(i);
                HttpResult answer;
                try {
                    answer = d.post("/v1/skills/task_create/call", R"({"args":{"title":")" + title + R"("}})", "alice");
                } catch (const std::exception& e) {
                    answer.status = -1;
                    answer.body = e.what();
                }
                std::lock_guard lock(mutex);
                calls.push_back({title, answer.status, answer.body});
            }
        });
    }
    clients.emplace_back([&] {
        for (const auto& id : approvals) {
            HttpResult answer;
            try {
                answer = d.post("/v1/approvals/" + id + "/approve", "", "owner");
            } catch (const std::exception& e) {
                answer.status = -1;
                answer.body = e.what();
            }
            std::lock_guard lock(mutex);
            approves.push_back({id, answer.status, answer.body});
            if (done.load()) break;
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    server->stop(PostgresServer::Shutdown::immediate);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ASSERT_TRUE(server->start_again(why)) << why;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline && d.get("/readyz", "").status != 200)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    done.store(true);
    for (auto& client : clients) client.join();
    ASSERT_EQ(d.get("/readyz", "").status, 200) << d.log();

    int refused = 0;
    for (const auto& answer : calls) {
        EXPECT_TRUE(answer.status == 200 || answer.status == 503)
            << answer.what << ": " << answer.status << " " << answer.body;
        refused += answer.status == 503;
    }
    for (const auto& answer : approves) {
        EXPECT_TRUE(answer.status == 200 || answer.status == 503 || answer.status == 409)
            << answer.what << ": " << answer.status << " " << answer.body;
        refused += answer.status == 503;
    }
    EXPECT_GT(refused, 0) << "nothing was in flight when the database died: the test did not exercise the fault";

    // What was answered as done is there, with its record.
    auto listed = d.post("/v1/skills/task_list/call", R"({"args":{"limit":500}})", "alice");
    ASSERT_EQ(listed.status, 200) << listed.body;
    ASSERT_FALSE(listed.json().at("result").at("truncated").as_bool()) << listed.body;
    // The record that gated each execution: the decision, durable before the skill ran.
    auto audit = d.get("/v1/audit?kind=decision&limit=1000");
    ASSERT_EQ(audit.status, 200) << audit.body;
    for (const auto& answer : calls) {
        if (answer.status != 200) continue;
        EXPECT_NE(listed.body.find("\"" + answer.what + "\""), std::string::npos)
            << answer.what << " acknowledged, then lost";
        EXPECT_NE(audit.body.find(answer.what), std::string::npos) << answer.what << " ran without its decision record";
    }
    // Every approval ends decided: executed (once) or still pending or failed with a reason —
    // never left `approved` with nothing recorded. The daemon settles them by itself.
    for (const auto& id : approvals) {
        std::string state;
        const auto settle = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        do {
            auto shown = d.get("/v1/approvals/" + id, "owner");
            ASSERT_EQ(shown.status, 200) << shown.body;
            state = std::string(shown.json().at("state").as_string());
            if (state != "approved") break;
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        } while (std::chrono::steady_clock::now() < settle);
        EXPECT_NE(state, "approved") << "approval " << id << " stayed approved with its outcome unrecorded";
    }
    for (const auto& answer : approves) {
        if (answer.status != 200) continue;
        auto shown = d.get("/v1/approvals/" + answer.what, "owner");
        EXPECT_EQ(shown.json().at("state").as_string(), "executed") << shown.body;
    }
}

}  // namespace
}  // namespace skillhost::testing
