// Operator runs started through the API: each works on a thread of its own, so the request that
// started it returns at once, and every client watching the run (its event stream) sees each
// event as it happens — also after a pause for approval or guidance, when another request resumes
// the run. Bounds runs per user; at shutdown, lets runs finish for a while, then cancels them.
//
// With an event log, every event of a run this hub drives is appended to it first, and streams
// carry the log's sequence number as their SSE id: a client that lost its stream attaches again
// after its Last-Event-ID and gets what it missed from the log. With `follow_other_instances`
// (PostgreSQL), a stream of a run that another instance drives follows the log: wake() (called for
// the run ids the daemon's listener hears) re-reads it after the last number streamed.
#pragma once

#include "base/error.hpp"
#include "base/owned_threads.hpp"

#include <boost/json/object.hpp>

#include "operator/operator.hpp"
#include "auth/user_context.hpp"
#include "server/event_channel.hpp"
#include "store/run_event_log.hpp"
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
    // Streams of runs driven elsewhere follow the event log (several instances on one database).
    bool follow_other_instances = false;
    // The most events one attach replays from the log; a stream further behind gets this many and
    // ends, and its client attaches again after the last id it got.
    std::size_t max_replay_events = 5000;
};

class RunHub {
public:
    // All must outlive the hub; `log` may be null (no ids, no replay).
    RunHub(op::Operator& op, store::RunStore& runs, RunHubOptions options, store::RunEventLog* log = nullptr);
    ~RunHub();  // cancel_all() and wait
    RunHub(const RunHub&) = delete;
    RunHub& operator=(const RunHub&) = delete;

    // Starts a run in the background; returns its id at once. `events` (may be null) is
    // subscribed before the run starts, so it sees every event. The run's first event is `run`:
    // `opening` with the user added (in the log, it is what tells another instance whose run it
    // is before the run is stored). TOO_MANY_RUNS, SHUTTING_DOWN.
    Result<std::string> start(std::string goal, const auth::UserContext& user, op::RunOptions options,
                              std::shared_ptr<EventChannel> events = nullptr, boost::json::object opening = {});

    // Continues a run whose approval was resolved, in the background. RUN_BUSY when it is working.
    Status resume_after_approval(const std::string& run_id);
    // Continues a run whose question was answered (the step ran again), in the background. RUN_BUSY.
    Status resume_after_input(const std::string& run_id);
    // Continues an interrupted run (the instance driving it stopped) in the background; another
    // instance racing for it gets RUN_ALREADY_RESUMED in its log, not its clients. RUN_BUSY.
    Status resume_interrupted(const std::string& run_id);
    // Continues, in the background, a run that Operator::resumable says may continue: interrupted,
    // or waiting on an approval or question that ended without this process resuming it (its
    // executor died, it expired). What resumable() refuses is refused here at once; RUN_BUSY.
    Status resume_stopped(const std::string& run_id);

    // Continues a needs_guidance run with `text`, in the background, after checking what can be
    // checked now: GUIDANCE_EMPTY, RUN_NOT_FOUND, RUN_NOT_WAITING_FOR_GUIDANCE, RUN_BUSY,
    // TOO_MANY_RUNS, SHUTTING_DOWN. `events` as in start().
    Status guide(const std::string& run_id, std::string text, const auth::UserContext& user,
                 std::shared_ptr<EventChannel> events = nullptr);

    // A working run: asks it to stop (it ends `cancelled` at its next step). A paused run, or one
    // marked running that nothing works on (its host stopped), is marked cancelled now.
    // {run_id, status, cancel_requested}. RUN_NOT_FOUND; RUN_ALREADY_FINISHED (409).
    Result<boost::json::object> cancel(const std::string& run_id);

    // Subscribes to a run: the events so far first (from the log after `after_seq` when there is
    // one, else those of this process), then live ones. The channel closes after an `end` event
    // once the run is completed, failed or cancelled; a paused run's channel stays open for its
    // resumption. RUN_NOT_FOUND.
    Result<std::shared_ptr<EventChannel>> attach(const std::string& run_id, std::int64_t after_seq = 0);

    // New events of `run_id` may be in the log (another instance appended them): streams following
    // it here read them. Cheap for runs nobody follows here. Safe from any thread.
    void wake(const std::string& run_id);
    // Re-reads the log for every run followed here (notifications may have been missed).
    void wake_all();

    // True while a thread works on the run (a run just started may not be in the store yet).
    bool working(const std::string& run_id) const;
    std::size_t working_count() const;
    // The user of a run this hub tracks (working, or paused with watchers), or whose opening
    // event is in the log (a run another instance started); nullopt otherwise.
    std::optional<std::string> user_of(const std::string& run_id) const;

    // Shutdown: refuse new work, wait up to `limit` for working runs; true when none is left.
    void stop_accepting();
    bool wait_idle(std::chrono::milliseconds limit);
    // Asks every working run to stop (each ends `cancelled` and is saved); returns their ids.
    std::vector<std::string> cancel_all();

private:
    using Work = std::function<Result<store::Run>(op::RunEventSubscriber*, std::shared_ptr<std::atomic<bool>>)>;

    struct Tracked {
        std::string user_id;
        bool working = false;
        // A resume asked for while the run was still working here: its approval was resolved before
        // the run thread had saved the pause and let go. finish() starts it once the run pauses.
        Work resume_when_paused;
        std::shared_ptr<std::atomic<bool>> cancel;
        std::vector<StreamEvent> history;
        std::vector<std::weak_ptr<EventChannel>> subscribers;
        std::string paused_status;  // the status last streamed while paused
        std::int64_t last_seq = 0;  // the last log number streamed to the subscribers
    };
    struct Replayed {
        std::int64_t last_seq = 0;
        std::size_t events = 0;
        bool ended = false;  // an `end` event was among them
    };
    class Publisher;

    // Starts `work` on a run that is not working here (resuming it), without a per-user limit. On a
    // run still working here, `work` starts as soon as that run pauses (RUN_BUSY if one already waits).
    Status resume(const std::string& run_id, Work work);
    // Waits (briefly) while the run's thread is still reporting the pause `stored` says it made.
    void await_pausing_locked(std::unique_lock<std::mutex>& lock, const std::string& run_id, store::RunStatus stored);
    // Refuses when shutting down or, with `limited`, when the user has max_runs_per_user working.
    Status admit_locked(const std::string& user_id, bool limited) const;
    // Marks the run working (creating its entry); returns its cancellation flag.
    std::shared_ptr<std::atomic<bool>> begin_locked(const std::string& run_id, const std::string& user_id);
    // Runs `work` on a thread of its own; publishes how it ended.
    void spawn(const std::string& run_id, std::shared_ptr<std::atomic<bool>> cancel, Work work);
    // `lease_epoch`: of the lease the run is driven under (0: none); see log_event.
    void publish(const std::string& run_id, StreamEvent event, std::int64_t lease_epoch = 0);
    // Appends the event to the log (when there is one) and sets its id; an event the log refuses
    // is still streamed live, without an id. False when the log refused it as written under a
    // lease another instance took over: it is not streamed at all (the run is driven elsewhere).
    bool log_event(const std::string& run_id, StreamEvent& event, std::int64_t lease_epoch = 0);
    // Pushes the log's events of `run_id` after `after` (at most through `upto`) to `channel`.
    Replayed replay_locked(const std::string& run_id, std::int64_t after, std::int64_t upto,
                           const std::shared_ptr<EventChannel>& channel);
    // A run not working here: streams its new log events to its subscribers. False when an `end`
    // event ended it (it is forgotten).
    bool pull_locked(const std::string& run_id);
    // The user named by the run's opening event in the log, if it is there.
    std::optional<std::string> logged_user(const std::string& run_id) const;
    void finish(const std::string& run_id, const Result<store::Run>& outcome, std::int64_t lease_epoch);
    // Sends the final `end` event (the run record) to every subscriber, closes them, forgets the run.
    void end_locked(const std::string& run_id, const boost::json::object& record, std::string id = {});
    void prune_locked();
    // Looks up the watched paused runs in the store and reports what changed elsewhere.
    void poll_paused();
    static void subscribe_locked(Tracked& tracked, const std::shared_ptr<EventChannel>& channel);

    op::Operator& op_;
    store::RunStore& runs_;
    const RunHubOptions options_;
    store::RunEventLog* log_;
    mutable std::mutex mutex_;
    std::condition_variable idle_;
    std::map<std::string, Tracked> tracked_;
    std::size_t working_ = 0;
    bool accepting_ = true;
    bool stopping_ = false;
    std::condition_variable poll_wake_;
    OwnedThreads run_threads_;  // a thread per working run, joined by the destructor
    std::thread poller_;        // last: started after everything it uses
};

}  // namespace skillhost::server
