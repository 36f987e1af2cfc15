// The runner's side of the wire: reads frames from the host and runs calls on a pool of
// long-lived threads that take turns reading (leader/followers). A call runs on the thread that
// read it, with no hand-off and no wake-up of another thread: the reader role stays "parked" with
// it, and a watching pool thread takes the role over only when the call runs longer than
// `takeover_after` (or asks the host for something), so concurrent calls and cancellations still
// get through. Results, progress, log lines and requests for host services go back over the same
// socket.
#pragma once

#include "plugin/call_control.hpp"
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

// Host services asked of the host over the socket (one HOST_REQUEST, one HOST_REPLY each); blocks
// the plugin's thread until the host answers or goes away.
class HostRequests {
public:
    // max_body: the largest request body sent (the host drops a runner sending more than it takes).
    HostRequests(HostLink& link, std::size_t max_body) : link_(link), max_body_(max_body) {}
    // Called on the asking thread before it waits for an answer (the call server gives up a
    // reader role parked on that thread, or nobody would read the answer).
    void before_waiting(std::function<void()> hook) { before_waiting_ = std::move(hook); }
    // nullopt: the host is gone (or never answers because the connection closed).
    std::optional<plugin::RawOutcome> ask(std::uint64_t call_sequence, std::string_view kind, std::string_view body);
    // A HOST_REPLY frame from the host.
    void answer(std::uint64_t id, std::string_view payload);
    // The host is gone: every waiting request fails.
    void abandon_all();
    // Sends a host extension's requests of call `call_sequence` (0: outside any call) to the
    // host, which answers them with the extension's module; a host gone answers the extension's
    // `unavailable` error.
    plugin::ExtensionForward forward(std::uint64_t call_sequence);

private:
    struct Waiter {
        bool done = false;
        std::optional<plugin::RawOutcome> outcome;
    };
    HostLink& link_;
    const std::size_t max_body_;
    std::function<void()> before_waiting_;
    std::mutex mutex_;
    std::condition_variable answered_;
    std::uint64_t next_id_ = 1;
    std::map<std::uint64_t, Waiter*> waiting_;
    bool abandoned_ = false;
};

class CallServer {
public:
    CallServer(HostLink& link, std::shared_ptr<plugin::LoadedPlugin> plugin, HostRequests& requests,
               std::chrono::milliseconds idle_timeout);
    ~CallServer();
    // Serves until the host closes the socket, then waits (bounded) for calls still running.
    // False when some are still running: the process must then end without unloading the plugin.
    bool serve();

private:
    struct Active {
        std::uint64_t id = 0;
        plugin::CallControl control;
        plugin::Call context;  // control points at `control` below, which points back
        std::string args;
        // Set for an EXTENSION_CALL: the plugin extension request to run instead of a skill.
        std::optional<plugin::wire::ExtensionCall> extension;
    };
    // One pool thread: runs queued calls, takes the reader role when it is free or overdue, and
    // otherwise waits (one waiting thread watches the parked role).
    void work();
    // Reads, runs calls inline, reads again, for as long as this thread keeps the reader role.
    // mutex_ is held on entry and on return; false when the connection ended.
    bool lead(std::unique_lock<std::mutex>& lock);
    // Reads frames while this thread holds the reader role; returns a call to run (the role is
    // parked on this thread meanwhile), or null when the connection ended. mutex_ is not held.
    std::shared_ptr<Active> read_until_call();
    // A CALL or EXTENSION_CALL frame as a call to run; null (the host already answered) when unreadable.
    std::shared_ptr<Active> accept(std::uint64_t id, plugin::wire::FrameType type, std::string_view payload);
    plugin::RawOutcome run_extension(const Active& call) const;
    void run(Active& call);
    void retire(const Active& call);  // mutex_ held
    void unpark_if_mine();
    void end_of_stream();

    HostLink& link_;
    std::shared_ptr<plugin::LoadedPlugin> plugin_;
    HostRequests& requests_;
    const std::chrono::milliseconds idle_timeout_;
    plugin::wire::FrameReader frames_;  // used by the thread holding the reader role

    std::mutex mutex_;
    std::condition_variable reader_free_;
    std::condition_variable drained_;
    bool reader_taken_ = false;
    // The reader runs a call inline; the role is still its own until a watcher takes it over.
    bool parked_ = false;
    std::uint64_t park_generation_ = 0;  // changes whenever the parked role is taken back
    std::chrono::steady_clock::time_point parked_since_{}, last_park_{};
    bool watcher_awake_ = false;                 // a waiting thread watches the parked role with timed waits
    std::size_t waiting_threads_ = 0;            // ready to read or to run a queued call
    std::deque<std::shared_ptr<Active>> queue_;  // calls read while every thread was busy
    std::map<std::uint64_t, std::shared_ptr<Active>> active_;  // queued or running, for cancel
    std::vector<std::thread> threads_;
    bool stopping_ = false;
    bool idle_reported_ = false;
};

}  // namespace skillhost::runner
