// Runs one skill call: validate arguments, apply defaults, enforce the timeout and serial
// concurrency, call the plugin over the C ABI, and turn every outcome into a SkillResult.
#pragma once

#include "base/error.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "plugin/call_control.hpp"

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

namespace skillhost::exec {

class WorkerPool;

// Who a call is for and where their data lives.
struct CallerContext {
    std::string user_id = "owner";
    std::string cognitive_mode = "agent";
    std::filesystem::path workspace_root;
    // <users_dir>/<user>/plugins/<plugin>/ becomes the plugin's data dir.
    std::filesystem::path users_dir;
};

struct CallOptions {
    // Overrides the manifest's timeout when set (e.g. a shorter deadline from an operator run).
    std::optional<std::chrono::milliseconds> timeout;
    // Progress reports from the plugin; may be empty.
    std::function<void(double, double, std::string_view)> on_progress;
    // Set from another thread to cancel (e.g. MCP notifications/cancelled); may be null.
    std::shared_ptr<std::atomic<bool>> cancel;
    // The call's rules for paths the plugin touches beyond its arguments (path_check extension);
    // empty: nothing is withheld. Runs on the plugin's thread, possibly after call() returned.
    std::function<bool(std::string_view path)> path_allowed{};
};

struct SkillResult {
    bool ok = false;
    boost::json::value output;  // the plugin's result when ok
    Error error;                // when !ok: code, message, details, suggestions
    std::string skill_id;
    std::string plugin_name;
    std::string call_id;
    std::chrono::microseconds duration{0};

    // {ok:true, result:...} or {ok:false, error:{code,message,details,suggestions}}
    boost::json::object to_json() const;
};

class Executor {
public:
    Executor();
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    // Never throws for anything a user or plugin can get wrong.
    SkillResult call(const catalog::CatalogSnapshot& catalog, std::string_view skill_id, const boost::json::value& args,
                     const CallerContext& caller, const CallOptions& options = {});

private:
    // Shared with the job: a worker stuck in a serial skill may outlive the executor.
    std::shared_ptr<std::mutex> serial_mutex_for(const catalog::CatalogEntry& entry);
    std::string next_call_id();

    std::unique_ptr<WorkerPool> pool_;
    std::atomic<std::uint64_t> call_counter_;
    std::mutex serial_mutexes_guard_;
    std::unordered_map<std::string, std::shared_ptr<std::mutex>> serial_mutexes_;
};

}  // namespace skillhost::exec
