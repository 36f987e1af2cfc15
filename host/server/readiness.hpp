// What /readyz checks: plugins loaded, the database, the home and the audit directory writable (a
// small file written and synced: a full disk, a read-only file system and lost permissions all
// fail it), approval outcomes stored, every model role reachable. Remote
// models are probed with a short HTTP request (any answer counts as reachable). /readyz is public,
// so the whole report is computed at most once per `cache_for` (concurrent requests wait for the
// one check in progress) and says what failed without file paths or server addresses; the full
// error goes to the server log.
#pragma once

#include "app/host_runtime.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <optional>
#include <mutex>
#include <string>

namespace skillhost::server {

struct ReadinessOptions {
    std::chrono::milliseconds probe_timeout{1500};
    std::chrono::milliseconds cache_for{5000};  // server.readiness_cache_ms
};

class ReadinessCheck {
public:
    ReadinessCheck(app::HostRuntime& host, ReadinessOptions options = {});

    // {ready, checks: {plugins: {ok, loaded, failed}, database: {ok, error?}, home: {ok, error?},
    //  audit: {ok, error?} (day files only), approvals: {ok, unrecorded_outcomes}, models: {ok, roles: [...]}}}
    boost::json::object check();
    // How many times the checks really ran (the rest were answered from the cache).
    std::size_t checks_run() const;

private:
    struct Probe {
        bool ok = false;
        std::string error;
    };
    Probe probe_model(const std::string& backend, const std::string& base_url) const;
    boost::json::object run_checks() const;

    app::HostRuntime& host_;
    const ReadinessOptions options_;
    mutable std::mutex mutex_;  // held during a check: one check at a time
    std::optional<boost::json::object> last_;
    std::chrono::steady_clock::time_point last_at_;
    std::size_t checks_run_ = 0;
};

}  // namespace skillhost::server
