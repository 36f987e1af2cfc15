// What the front end that started a call serves for it while it runs: one method per host service
// a front end answers (progress, log lines, sampling, elicitation). A front end implements this
// once (the MCP session for its client; the call pipeline queues questions nobody can answer now);
// the same object serves a plugin loaded in-process and one isolated in a runner, whose requests
// the runner's connection hands to it. Each default says the service is not offered here.
//
// Thread and lifetime rules: any method may be called from the plugin's threads, several at once,
// until the call is answered (the executor gates the services it hands on, and none is called after
// the answer); sample() and elicit() block and must return soon once `call_ended` turns true.
#pragma once

#include "base/error.hpp"

#include <skillhost/skill_abi.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace skillhost::plugin {

class CallServices {
public:
    virtual ~CallServices() = default;

    // A progress report (skillhost_host_services.report_progress); `total` 0: unknown.
    virtual void progress(double progress, double total, std::string_view message);
    // A line the plugin logged during the call (it is in the host's log already).
    virtual void log(skillhost_log_level level, std::string_view message);

    // Whether sample() answers the call's completions instead of the host's model router.
    virtual bool samples() const;
    // "skillhost.completion": the ABI request JSON in, the ABI answer JSON or an error out.
    virtual Result<std::string> sample(std::string_view role, std::string_view request_json,
                                       const std::atomic<bool>& call_ended);

    // "skillhost.elicit/1": asks the call's user; ELICITATION_UNAVAILABLE when nobody can be asked.
    virtual Result<std::string> elicit(std::string_view request_json, const std::atomic<bool>& call_ended);

    // Not a plugin's service but the front end's own: how long the call may run before
    // running_long() is called (once, on the executor's deadline watcher thread, possibly while the
    // call is returning); nullopt: never. For a front end that runs the call on a thread it needs
    // back soon (the MCP stdio reader hands its reading on).
    virtual std::optional<std::chrono::milliseconds> running_long_after() const;
    virtual void running_long();
};

// Forwards every service to `inner` (which may be null: then nothing is offered); a front end that
// adds one service to another's derives from it and overrides that one.
class ForwardedCallServices : public CallServices {
public:
    explicit ForwardedCallServices(std::shared_ptr<CallServices> inner) : inner_(std::move(inner)) {}

    void progress(double progress, double total, std::string_view message) override;
    void log(skillhost_log_level level, std::string_view message) override;
    bool samples() const override;
    Result<std::string> sample(std::string_view role, std::string_view request_json,
                               const std::atomic<bool>& call_ended) override;
    Result<std::string> elicit(std::string_view request_json, const std::atomic<bool>& call_ended) override;
    std::optional<std::chrono::milliseconds> running_long_after() const override;
    void running_long() override;

protected:
    const std::shared_ptr<CallServices>& inner() const { return inner_; }

private:
    std::shared_ptr<CallServices> inner_;
};

// Services that only hear progress (for callers that serve nothing else: test kits, tools).
std::shared_ptr<CallServices> progress_listener(
    std::function<void(double progress, double total, std::string_view message)> on_progress);

}  // namespace skillhost::plugin
