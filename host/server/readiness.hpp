// What /readyz checks: plugins loaded, the database writable, every model role reachable. Remote
// models are probed with a short HTTP request (any answer counts as reachable); results are kept
// for a few seconds so a busy probe does not hammer the model servers.
#pragma once

#include "app/host_runtime.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace skillhost::server {

struct ReadinessOptions {
    std::chrono::milliseconds probe_timeout{1500};
    std::chrono::milliseconds cache_for{5000};
};

class ReadinessCheck {
public:
    ReadinessCheck(app::HostRuntime& host, ReadinessOptions options = {});

    // {ready, checks: {plugins: {ok, loaded, failed}, database: {ok, error?}, models: {ok, roles: [...]}}}
    boost::json::object check();

private:
    struct Probe {
        bool ok = false;
        std::string error;
        std::chrono::steady_clock::time_point at;
    };
    Probe probe_model(const std::string& model_name, const std::string& backend, const std::string& base_url);

    app::HostRuntime& host_;
    const ReadinessOptions options_;
    std::mutex mutex_;
    std::map<std::string, Probe> probes_;  // by model name
};

}  // namespace skillhost::server
