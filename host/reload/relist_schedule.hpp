// When foreign MCP servers say their tools changed, the catalog lists them again (LiveCatalog): each
// server on a thread of its own, so a slow or wedged server delays no other server, no rebuild and
// no call; at most one listing of a server at a time, the notifications that arrive meanwhile
// coalesced into one more listing; and listings of one server at least `min_gap` apart, however
// often it says so. A server that floods notifications/tools/list_changed is listed about once per
// `min_gap`.
//
// Thread-safety: every member may be called from any thread, except stop() and the destructor from
// inside `relist`.
#pragma once

#include "base/owned_threads.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace skillhost::reload {

class RelistSchedule {
public:
    RelistSchedule(std::chrono::milliseconds min_gap, std::function<void(const std::string& server)> relist);
    ~RelistSchedule();  // stop()
    RelistSchedule(const RelistSchedule&) = delete;
    RelistSchedule& operator=(const RelistSchedule&) = delete;

    // Asks for one more listing of `server`; returns at once (never waits for a listing).
    void request(const std::string& server);
    // No listing starts after this; waits for those in progress. Idempotent.
    void stop();

private:
    struct Server {
        bool running = false;  // a thread lists it, or waits for the gap to list it
        bool wanted = false;   // asked for since that thread last started a listing
        std::chrono::steady_clock::time_point last{};
    };
    void work(const std::string& server);

    const std::chrono::milliseconds min_gap_;
    const std::function<void(const std::string& server)> relist_;
    std::mutex mutex_;
    std::condition_variable stopping_changed_;
    bool stopping_ = false;
    std::map<std::string, Server> servers_;
    OwnedThreads threads_;  // last: its threads use everything above
};

}  // namespace skillhost::reload
