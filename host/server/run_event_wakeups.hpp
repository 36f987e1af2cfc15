// The daemon's one LISTEN connection on PostgreSQL: it hears the ids of runs whose event log
// another instance (or this one) appended to, and wakes the streams following them here. A
// notification carries only the run id; streams re-read the log, so a notification lost while the
// connection was down costs a delay: after reconnecting, every followed run is re-read.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace skillhost::db {
class PgListener;
}

namespace skillhost::server {

class RunEventWakeups {
public:
    // `on_run` gets each run id heard (once per batch); `on_reconnect` runs after the listening
    // connection was re-opened. Both run on the listener's thread.
    RunEventWakeups(std::string url, std::function<void(const std::string&)> on_run,
                    std::function<void()> on_reconnect);
    ~RunEventWakeups();  // stops and joins the thread
    RunEventWakeups(const RunEventWakeups&) = delete;
    RunEventWakeups& operator=(const RunEventWakeups&) = delete;

private:
    void loop();

    const std::string url_;
    const std::function<void(const std::string&)> on_run_;
    const std::function<void()> on_reconnect_;
    std::mutex mutex_;  // guards stopping_ and the listener pointer (not its wait)
    std::condition_variable stop_;
    bool stopping_ = false;
    std::unique_ptr<db::PgListener> listener_;
    std::thread thread_;  // last: started after everything it uses
};

}  // namespace skillhost::server
