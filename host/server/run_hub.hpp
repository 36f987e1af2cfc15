// Operator runs started through the API: each works on a thread of its own, so the request that
// started it returns at once, and every client watching the run (its event stream) sees each
// event as it happens — also after a pause for approval or guidance, when another request resumes
// the run. Bounds runs per user; at shutdown, lets runs finish for a while, then cancels them.
#pragma once

#include "base/error.hpp"

#include <boost/json/object.hpp>

#include "operator/operator.hpp"
#include "policy/user_context.hpp"
#include "server/event_channel.hpp"
#include "store/run_store.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace skillhost::server {

struct RunHubOptions {
    unsigned max_runs_per_user = 4;
    std::size_t history_limit = 2000;  // events kept per run for clients that attach late
    // How often paused runs that clients watch are looked up in the store: a run resumed by
    // another process (`skillhost approvals approve` on the CLI) still ends its streams here.
    std::chrono::milliseconds paused_poll{500};
};

class RunHub {
public:
    // Both must outlive the hub.
    RunHub(op::Operator& op, store::RunStore& runs, RunHubOptions options);
    ~RunHub();  // cancel_all() and wait
    RunHub(const RunHub&) = delete;
    RunHub& operator=(const RunHub&) = delete;

    // Starts a run in the background; returns its id at once. `events` (may be null) is
    // subscribed before the run starts, so it sees every event. TOO_MANY_RUNS, SHUTTING_DOWN.
    Result<std::string> start(std::string goal, const policy::UserContext& user, op::RunOptions options,
                              std::shared_ptr<EventChannel> events = nullptr);

    // Continues a run whose approval was resolved, in the background. RUN_BUSY when it is working.
    Status resume_after_approval(const std::string& run_id);
    // Continues an interrupted run (the instance driving it stopped) in the background; another
    // instance racing for it gets RUN_ALREADY_RESUMED in its log, not its clients. RUN_BUSY.
    Status resume_interrupted(const std::string& run_id);

    // Continues a needs_guidance run with `text`, in the background, after checking what can be
    // checked now: GUIDANCE_EMPTY, RUN_NOT_FOUND, RUN_NOT_WAITING_FOR_GUIDANCE, RUN_BUSY,
    // TOO_MANY_RUNS, SHUTTING_DOWN. `events` as in start().
    Status guide(const std::string& run_id, std::string text, const policy::UserContext& user,
                 std::shared_ptr<EventChannel> events = nullptr);

    // A working run: asks it to stop (it ends `cancelled` at its next step). A paused run, or one
    // marked running that nothing works on (its host stopped), is marked cancelled now.
    // {run_id, status, cancel_requested}. RUN_NOT_FOUND; RUN_ALREADY_FINISHED (409).
    Result<boost::json::object> cancel(const std::string& run_id);

    // Subscribes to a run: the events so far (of this process) first, then live ones. The channel
    // closes after an `end` event once the run is completed, failed or cancelled; a paused run's
    // channel stays open for its resumption. RUN_NOT_FOUND.
    Result<std::shared_ptr<EventChannel>> attach(const std::string& run_id);

    // True while a thread works on the run (a run just started may not be in the store yet).
    bool working(const std::string& run_id) const;
    std::size_t working_count() const;
    // The user of a run this hub tracks (working, or paused with watchers); nullopt otherwise.
    std::optional<std::string> user_of(const std::string& run_id) const;

    // Shutdown: refuse new work, wait up to `limit` for working runs; true when none is left.
    void stop_accepting();
    bool wait_idle(std::chrono::milliseconds limit);
    // Asks every working run to stop (each ends `cancelled` and is saved).
    void cancel_all();

private:
    struct Tracked {
        std::string user_id;
        bool working = false;
        std::shared_ptr<std::atomic<bool>> cancel;
        std::vector<StreamEvent> history;
        std::vector<std::weak_ptr<EventChannel>> subscribers;
        std::string paused_status;  // the status last streamed while paused
    };
    class Publisher;

    using Work = std::function<Result<store::Run>(op::RunEventSubscriber*, std::shared_ptr<std::atomic<bool>>)>;

    // Starts `work` on a run that is not working here (resuming it), without a per-user limit.
    Status resume(const std::string& run_id, Work work);
    // Refuses when shutting down or, with `limited`, when the user has max_runs_per_user working.
    Status admit_locked(const std::string& user_id, bool limited) const;
    // Marks the run working (creating its entry); returns its cancellation flag.
    std::shared_ptr<std::atomic<bool>> begin_locked(const std::string& run_id, const std::string& user_id);
    // Runs `work` on a thread of its own; publishes how it ended.
    void spawn(const std::string& run_id, std::shared_ptr<std::atomic<bool>> cancel, Work work);
    void publish(const std::string& run_id, StreamEvent event);
    void finish(const std::string& run_id, const Result<store::Run>& outcome);
    // Sends the final `end` event (the run record) to every subscriber, closes them, forgets the run.
    void end_locked(const std::string& run_id, const boost::json::object& record);
    void prune_locked();
    // Looks up the watched paused runs in the store and reports what changed elsewhere.
    void poll_paused();
    static void subscribe_locked(Tracked& tracked, const std::shared_ptr<EventChannel>& channel);

    op::Operator& op_;
    store::RunStore& runs_;
    const RunHubOptions options_;
    mutable std::mutex mutex_;
    std::condition_variable idle_;
    std::map<std::string, Tracked> tracked_;
    std::size_t working_ = 0;
    bool accepting_ = true;
    bool stopping_ = false;
    std::condition_variable poll_wake_;
    std::thread poller_;  // last: started after everything it uses
};

}  // namespace skillhost::server
