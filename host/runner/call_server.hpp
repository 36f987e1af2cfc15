// The runner's side of the wire: reads frames from the host, runs each call on a pool of
// long-lived worker threads, and sends results, progress, log lines and completion requests back.
#pragma once

#include "plugin/completion_service.hpp"
#include "plugin/loaded_plugin.hpp"
#include "plugin/runner_protocol.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace skillhost::runner {

// The host's end of the socket, shared by every thread that sends.
class HostLink {
public:
    explicit HostLink(int fd) : fd_(fd) {}
    int fd() const { return fd_; }
    bool send(plugin::wire::FrameType type, std::uint64_t id, std::string_view payload);

private:
    const int fd_;
    std::mutex write_mutex_;
};

// LLM completions asked of the host over the socket; blocks the plugin's thread until answered.
class RemoteCompletions final : public plugin::CompletionService {
public:
    explicit RemoteCompletions(HostLink& link) : link_(link) {}
    Result<std::string> complete(std::string_view user_id, std::string_view role, std::string_view request) override;
    // A request frame of `type` (payload already encoded) answered by a completion_reply: the
    // call-bound completions and elicitations the front end serves.
    Result<std::string> ask(plugin::wire::FrameType type, std::string_view payload);
    // A completion_reply frame from the host.
    void answer(std::uint64_t id, std::string_view payload);
    // The host is gone: every waiting request fails.
    void abandon_all();

private:
    struct Waiter {
        bool done = false;
        std::optional<plugin::RawOutcome> outcome;
    };
    HostLink& link_;
    std::mutex mutex_;
    std::condition_variable answered_;
    std::uint64_t next_id_ = 1;
    std::map<std::uint64_t, Waiter*> waiting_;
    bool abandoned_ = false;
};

class CallServer {
public:
    CallServer(HostLink& link, std::shared_ptr<plugin::LoadedPlugin> plugin, RemoteCompletions& completions,
               std::chrono::milliseconds idle_timeout);
    ~CallServer();
    // Serves until the host closes the socket, then waits (bounded) for calls still running.
    // False when some are still running: the process must then end without unloading the plugin.
    bool serve();

private:
    struct Active {
        std::uint64_t id = 0;
        plugin::CallControl control;
        plugin::CallContext context;
        std::string args;
    };
    void start(std::uint64_t id, std::string_view payload);
    void work();
    void run(Active& call);

    HostLink& link_;
    std::shared_ptr<plugin::LoadedPlugin> plugin_;
    RemoteCompletions& completions_;
    const std::chrono::milliseconds idle_timeout_;

    std::mutex mutex_;
    std::condition_variable queued_;
    std::condition_variable drained_;
    std::deque<std::shared_ptr<Active>> queue_;
    std::map<std::uint64_t, std::shared_ptr<Active>> active_;  // queued or running, for cancel
    std::vector<std::thread> workers_;
    std::size_t idle_workers_ = 0;
    bool stopping_ = false;
};

}  // namespace skillhost::runner
