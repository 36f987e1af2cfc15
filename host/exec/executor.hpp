// Runs one prepared skill call (see prepared_call.hpp): enforces the timeout and serial concurrency,
// calls the plugin over the C ABI, and turns every outcome into a SkillResult.
#pragma once

#include "base/error.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "exec/prepared_call.hpp"
#include "plugin/call.hpp"
#include "plugin/call_control.hpp"
#include "plugin/call_services.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace skillhost {
class WorkerPool;
}

namespace skillhost::exec {

class DeadlineWatcher;
class KnownDirectories;

// How the executor runs a call (who it is for is the plugin::Call the caller gives).
struct CallOptions {
    // <users_dir>/<user>/plugins/<plugin>/ becomes the call's data directory, made before the call;
    // empty: the call has none.
    std::filesystem::path users_dir;
    // Overrides the manifest's timeout when set (e.g. a shorter deadline from an operator run).
    std::optional<std::chrono::milliseconds> timeout;
    // Set from another thread to cancel (e.g. MCP notifications/cancelled); may be null.
    std::shared_ptr<std::atomic<bool>> cancel;
    // The call's rules for paths the plugin touches beyond its arguments (path_check extension);
    // empty: nothing is withheld. Runs on the plugin's thread, possibly after call() returned.
    std::function<bool(std::string_view path)> path_allowed{};
    // What the front end serves for the call (progress, log lines, sampling, elicitation; see
    // plugin/call_services.hpp); null: none. Not called after the call's answer was given, except
    // running_long(), which the deadline watcher calls once when the call still runs after
    // services->running_long_after() (within a watcher tick).
    std::shared_ptr<plugin::CallServices> services{};
};

struct SkillResult {
    bool ok = false;
    boost::json::value output;   // the plugin's result when ok
    boost::json::array content;  // content items the skill added ("skillhost.content/1"), when ok
    Error error;                 // when !ok: code, message, details, suggestions
    std::string skill_id;
    std::string plugin_name;
    std::string call_id;
    std::chrono::microseconds duration{0};

    // {ok:true, result:...} or {ok:false, error:{code,message,details,suggestions}}
    boost::json::object to_json() const;
};

// Called exactly once with a call's answer (see Executor::start).
using CallCompletion = std::function<void(SkillResult)>;

// Where a started call runs the plugin.
enum class RunOn {
    worker,       // a pool worker (one hand-off); start() returns at once
    this_thread,  // the calling thread; start() returns when the plugin returns
};

// A failed result for a call that never reached the plugin (or failed in it): the error's
// suggestions merged with the manifest's hints for its code and the host's generic advice.
SkillResult failed_call(std::string_view skill_id, Error error, const manifest::SkillSpec* spec = nullptr);

class Executor {
public:
    Executor();
    // Answers calls still running with CANCELLED; their plugins keep their threads until they return.
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    // Starts a prepared call for `caller`, which says who it is for (user_id, cognitive_mode,
    // workspace_root), for which operator run (run_id) and under which intent (idempotency_key: the
    // same for every attempt of one intent, "<run id>:<step>" or an approval id; empty: the call id;
    // at most SKILLHOST_IDEMPOTENCY_KEY_MAX_BYTES bytes, a longer key is refused). The executor
    // fills in the rest (skill, call id, data directory, deadline, control).
    // `done` gets the answer exactly once: on the thread that ran the plugin when it returned in
    // time; on the deadline watcher's thread with TIMEOUT at the deadline, or CANCELLED soon after
    // options.cancel turns true (the plugin is asked to stop and keeps its thread until it
    // returns); or on this thread before start() returns when the call cannot start
    // (invalid user id, already cancelled, no data directory). Nobody spins or waits meanwhile.
    // Never throws for anything a user or plugin can get wrong.
    // `caller` and `options` are taken by value: the call keeps them (moved in, not copied again).
    void start(const PreparedCall& call, plugin::Call caller, CallOptions options, CallCompletion done,
               RunOn where = RunOn::worker);

    // start() on a pool worker, waiting (blocked, not spinning) for the answer.
    SkillResult run(const PreparedCall& call, const plugin::Call& caller, const CallOptions& options = {});

    // Finds and prepares the skill, then run(): for callers without policy (plugin check, test kit).
    SkillResult call(const catalog::CatalogSnapshot& catalog, std::string_view skill_id, const boost::json::value& args,
                     const plugin::Call& caller, const CallOptions& options = {});

private:
    // Shared with the job: a worker stuck in a serial skill may outlive the executor.
    std::shared_ptr<std::mutex> serial_mutex_for(const PreparedCall& call);
    std::string next_call_id();

    std::unique_ptr<WorkerPool> pool_;
    std::unique_ptr<KnownDirectories> directories_;
    std::atomic<std::uint64_t> call_counter_;
    std::mutex serial_mutexes_guard_;
    std::unordered_map<std::string, std::shared_ptr<std::mutex>> serial_mutexes_;
    // Last: destroyed first, answering what still runs while the rest is intact.
    std::unique_ptr<DeadlineWatcher> watcher_;
};

}  // namespace skillhost::exec
