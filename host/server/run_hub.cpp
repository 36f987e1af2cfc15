#include "server/run_hub.hpp"
#include "operator/error_codes.hpp"
#include "server/error_codes.hpp"
#include "store/error_codes.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <set>
#include <thread>

namespace skillhost::server {

namespace json = boost::json;
using store::RunStatus;

namespace {

bool terminal(RunStatus status) {
    return status == RunStatus::completed || status == RunStatus::failed || status == RunStatus::cancelled;
}

bool paused(RunStatus status) {
    return status == RunStatus::awaiting_approval || status == RunStatus::awaiting_input ||
           status == RunStatus::needs_guidance;
}

json::object status_event(const store::Run& run) {
    json::object o{{"run_id", run.id}, {"status", store::to_string(run.status)}};
    if (!run.approval_id.empty()) o["approval_id"] = run.approval_id;
    if (!run.elicitation_id.empty()) o["elicitation_id"] = run.elicitation_id;
    if (run.error) o["error"] = run.error->to_json();
    return o;
}

std::int64_t seq_of(const StreamEvent& event) {
    return event.id.empty() ? 0 : std::strtoll(event.id.c_str(), nullptr, 10);
}

// Log reads happen in pages of this many events.
constexpr std::size_t replay_page = 500;

}  // namespace

// Forwards a run's operator events to its subscribers, on the run's thread.
class RunHub::Publisher final : public op::RunEventSubscriber {
public:
    Publisher(RunHub& hub, std::string run_id) : hub_(hub), run_id_(std::move(run_id)) {}
    void on_event(const op::RunEvent& event) override {
        if (event.lease_epoch > 0) epoch_ = event.lease_epoch;
        hub_.publish(run_id_, StreamEvent{op::to_string(event.type), json::serialize(event.to_json())},
                     event.lease_epoch);
    }
    // The lease epoch of the run's last event: how the run ended or paused is logged under it.
    std::int64_t epoch() const { return epoch_; }

private:
    std::int64_t epoch_ = 0;
    RunHub& hub_;
    std::string run_id_;
};

RunHub::RunHub(op::Operator& op, store::RunStore& runs, RunHubOptions options, store::RunEventLog* log)
    : op_(op), runs_(runs), options_(options), log_(log) {
    poller_ = std::thread([this] {
        std::unique_lock lock(mutex_);
        while (!stopping_) {
            poll_wake_.wait_for(lock, options_.paused_poll, [this] { return stopping_; });
            if (stopping_) break;
            lock.unlock();
            poll_paused();
            lock.lock();
        }
    });
}

RunHub::~RunHub() {
    stop_accepting();
    cancel_all();
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    poll_wake_.notify_all();
    poller_.join();
    {
        std::unique_lock lock(mutex_);
        idle_.wait(lock, [this] { return working_ == 0; });
        for (auto& [id, tracked] : tracked_) {
            for (auto& weak : tracked.subscribers) {
                if (auto channel = weak.lock()) channel->close();
            }
        }
    }
    run_threads_.join_all();  // each has finished its run; this waits for it to return
}

Status RunHub::admit_locked(const std::string& user_id, bool limited) const {
    if (!accepting_) {
        return Error{errors::kShuttingDown,
                     "the server is shutting down and starts no more runs",
                     {},
                     {"try again once it is back"}};
    }
    if (!limited) return {};
    unsigned mine = 0;
    for (const auto& [id, tracked] : tracked_) mine += tracked.working && tracked.user_id == user_id ? 1 : 0;
    if (mine >= options_.max_runs_per_user) {
        Error e{errors::kTooManyRuns,
                "user " + user_id + " already has " + std::to_string(mine) +
                    " runs working (server.max_runs_per_user = " + std::to_string(options_.max_runs_per_user) + ")",
                {},
                {"wait for one to finish, or cancel one with POST /v1/runs/{id}/cancel"}};
        e.details["user"] = user_id;
        e.details["working"] = mine;
        return e;
    }
    return {};
}

std::shared_ptr<std::atomic<bool>> RunHub::begin_locked(const std::string& run_id, const std::string& user_id) {
    auto& tracked = tracked_[run_id];
    tracked.user_id = user_id;
    tracked.working = true;
    tracked.cancel = std::make_shared<std::atomic<bool>>(false);
    ++working_;
    return tracked.cancel;
}

void RunHub::spawn(const std::string& run_id, std::shared_ptr<std::atomic<bool>> cancel, Work work) {
    run_threads_.start([this, run_id, cancel = std::move(cancel), work = std::move(work)] {
        Publisher publisher(*this, run_id);
        Result<store::Run> outcome = Error{errors::kInternal, "the run's thread failed", {}, {}};
        try {
            outcome = work(&publisher, cancel);
        } catch (const std::exception& e) {
            outcome = Error{errors::kInternal, std::string("the run failed unexpectedly: ") + e.what(), {}, {}};
        }
        finish(run_id, outcome, publisher.epoch());
    });
}

void RunHub::subscribe_locked(Tracked& tracked, const std::shared_ptr<EventChannel>& channel) {
    for (const auto& event : tracked.history) channel->push(event);
    tracked.subscribers.push_back(channel);
}

bool RunHub::log_event(const std::string& run_id, StreamEvent& event, std::int64_t lease_epoch) {
    if (!log_) return true;
    auto seq = log_->append(run_id, event.name, event.data, lease_epoch);
    if (!seq && seq.error().is(errors::kEventTooLarge) && event.name == "end") {
        // The full record is in the run store; the log says how the run ended.
        boost::system::error_code ec;
        auto record = json::parse(event.data, ec);
        json::object brief{{"id", run_id}};
        if (!ec && record.is_object()) {
            for (const char* key : {"status", "error", "user", "goal"})
                if (const auto* v = record.as_object().if_contains(key)) brief[key] = *v;
        }
        brief["truncated"] = true;
        seq = log_->append(run_id, event.name, json::serialize(brief), lease_epoch);
    }
    if (!seq && seq.error().code == "RUN_LEASE_LOST") {
        // Another instance drives the run: what this one would add is said in its own log only.
        spdlog::warn("run {}: the {} event was not logged: {}", run_id, event.name, seq.error().message);
        return false;
    }
    if (!seq) {
        spdlog::warn("run {}: the {} event is not in the event log ({}: {}); it is streamed live only", run_id,
                     event.name, seq.error().code, seq.error().message);
        return true;
    }
    event.id = std::to_string(seq.value());
    return true;
}

void RunHub::publish(const std::string& run_id, StreamEvent event, std::int64_t lease_epoch) {
    if (!log_event(run_id, event, lease_epoch)) return;
    std::lock_guard lock(mutex_);
    auto it = tracked_.find(run_id);
    if (it == tracked_.end()) return;
    auto& tracked = it->second;
    tracked.last_seq = std::max(tracked.last_seq, seq_of(event));
    if (tracked.history.size() < options_.history_limit) tracked.history.push_back(event);
    for (auto& weak : tracked.subscribers) {
        if (auto channel = weak.lock()) channel->push(event);
    }
}

void RunHub::end_locked(const std::string& run_id, const json::object& record, std::string id) {
    auto it = tracked_.find(run_id);
    if (it == tracked_.end()) return;
    const StreamEvent end{"end", json::serialize(record), std::move(id)};
    for (auto& weak : it->second.subscribers) {
        if (auto channel = weak.lock()) {
            channel->push(end);
            channel->close();
        }
    }
    tracked_.erase(it);
}

void RunHub::prune_locked() {
    for (auto it = tracked_.begin(); it != tracked_.end();) {
        auto& subs = it->second.subscribers;
        std::erase_if(subs, [](const std::weak_ptr<EventChannel>& w) {
            auto c = w.lock();
            return !c || c->closed();
        });
        if (!it->second.working && subs.empty())
            it = tracked_.erase(it);
        else
            ++it;
    }
}

void RunHub::finish(const std::string& run_id, const Result<store::Run>& outcome, std::int64_t lease_epoch) {
    // How the run ended or paused goes into its log first, so streams elsewhere see it too.
    // Another process or instance drives the run now (or will, having the plugin versions it needs),
    // or a resumer found it no longer waiting (another one claimed it first) or still waiting on a
    // person: only the claimant logs how the run ends.
    bool driven_elsewhere = false;
    if (!outcome) {
        for (const ErrorCode& code :
             {errors::kRunAlreadyResumed, errors::kRunLeaseHeld, errors::kRunLeaseLost, errors::kRunNotInterrupted,
              errors::kRunNotAwaitingApproval, errors::kRunNotAwaitingInput, errors::kApprovalStillPending,
              errors::kElicitationStillPending, errors::kRunPluginVersionMissing})
            driven_elsewhere = driven_elsewhere || outcome.error().is(code);
    }
    StreamEvent logged;
    if (!outcome && !driven_elsewhere) {
        spdlog::warn("run {}: {}: {}", run_id, outcome.error().code, outcome.error().message);
        logged = {"end", json::serialize(json::object{{"id", run_id}, {"error", outcome.error().to_json()}})};
    } else if (outcome && terminal(outcome->status)) {
        logged = {"end", json::serialize(outcome->to_json())};
    } else if (outcome) {
        logged = {"status", json::serialize(status_event(outcome.value()))};
    }
    if (!logged.name.empty() && !log_event(run_id, logged, lease_epoch)) {
        logged = {};
        driven_elsewhere = true;
    }
    std::lock_guard lock(mutex_);
    auto it = tracked_.find(run_id);
    Work resume_now;
    if (it != tracked_.end()) {
        it->second.working = false;
        it->second.last_seq = std::max(it->second.last_seq, seq_of(logged));
        // A resume asked for while this step was still working (an approval or answer given before
        // the run had saved its pause) applies only to a run that paused here for one.
        if (outcome &&
            (outcome->status == RunStatus::awaiting_approval || outcome->status == RunStatus::awaiting_input))
            resume_now = std::move(it->second.resume_when_paused);
        it->second.resume_when_paused = nullptr;
    }
    --working_;
    if (driven_elsewhere && it != tracked_.end()) {
        // Another process drives the run now; poll_paused follows it in the store for the streams.
        it->second.paused_status.clear();
    } else if (logged.name == "end") {
        end_locked(run_id, json::parse(logged.data).as_object(), logged.id);
    } else if (it != tracked_.end() && outcome) {
        it->second.paused_status = store::to_string(outcome->status);
        const StreamEvent& event = logged;
        if (it->second.history.size() < options_.history_limit) it->second.history.push_back(event);
        for (auto& weak : it->second.subscribers) {
            if (auto channel = weak.lock()) channel->push(event);
        }
    }
    if (resume_now && it != tracked_.end() && admit_locked(it->second.user_id, false)) {
        // The thread only starts here; its own finish() takes the lock later.
        spawn(run_id, begin_locked(run_id, it->second.user_id), std::move(resume_now));
    }
    prune_locked();
    idle_.notify_all();
}

void RunHub::poll_paused() {
    std::vector<std::pair<std::string, std::string>> watched;  // run id, last status streamed
    {
        std::lock_guard lock(mutex_);
        prune_locked();
        for (const auto& [id, tracked] : tracked_) {
            if (!tracked.working) watched.emplace_back(id, tracked.paused_status);
        }
    }
    for (const auto& [id, seen] : watched) {
        // The store first, then the log: every event appended before the record was saved is read.
        auto run = runs_.get(id);
        if (!run) {
            // Not stored yet (another instance started it and drives it): the log alone tells.
            std::lock_guard lock(mutex_);
            if (log_) (void)pull_locked(id);
            continue;
        }
        const std::string status = store::to_string(run->status);
        std::lock_guard lock(mutex_);
        if (log_ && !pull_locked(id)) continue;  // its end was in the log
        if (status == seen) continue;
        auto it = tracked_.find(id);
        if (it == tracked_.end() || it->second.working) continue;  // resumed here meanwhile
        if (terminal(run->status)) {
            end_locked(id, run->to_json());
            continue;
        }
        if (options_.follow_other_instances) {
            // Another instance drives it: its events arrive through the log.
            it->second.paused_status = status;
            continue;
        }
        it->second.paused_status = status;
        json::object o = status_event(run.value());
        if (run->status == RunStatus::running)
            o["note"] = "the run was resumed by another process; its events are not streamed here";
        const StreamEvent event{"status", json::serialize(o)};
        for (auto& weak : it->second.subscribers) {
            if (auto channel = weak.lock()) channel->push(event);
        }
    }
}

Result<std::string> RunHub::start(std::string goal, const auth::UserContext& user, op::RunOptions options,
                                  std::shared_ptr<EventChannel> events, json::object opening) {
    if (auto st = op_.check_start(goal, user); !st) return st.error();
    std::shared_ptr<std::atomic<bool>> cancel;
    if (options.id.empty()) options.id = store::new_id("run");
    const std::string id = options.id;
    {
        std::lock_guard lock(mutex_);
        if (auto admitted = admit_locked(user.user_id, true); !admitted) return admitted.error();
        cancel = begin_locked(id, user.user_id);
        if (events) subscribe_locked(tracked_[id], events);
    }
    // Accepted means stored: the record is durable before the caller is answered, and a run that
    // cannot be stored is the caller's error, not a run that vanishes later.
    auto opened = op_.open_run(goal, user, options);
    if (!opened) {
        std::lock_guard lock(mutex_);
        tracked_.erase(id);
        --working_;
        idle_.notify_all();
        return opened.error();
    }
    opening["run_id"] = id;
    opening["user"] = user.user_id;
    if (!opening.contains("status")) opening["status"] = "running";
    publish(id, StreamEvent{"run", json::serialize(opening)});
    spawn(id, cancel,
          [this, run = std::move(opened.value()), user, options = std::move(options)](
              op::RunEventSubscriber* sink, std::shared_ptr<std::atomic<bool>> flag) {
              op::RunOptions o = options;
              o.cancel = std::move(flag);
              return op_.drive_opened(run, user, o, sink);
          });
    return id;
}

Status RunHub::resume_after_approval(const std::string& run_id) {
    return resume(run_id, [this, run_id](op::RunEventSubscriber* sink, std::shared_ptr<std::atomic<bool>> flag) {
        return op_.resume_after_approval(run_id, sink, std::move(flag));
    });
}

Status RunHub::resume_after_input(const std::string& run_id) {
    return resume(run_id, [this, run_id](op::RunEventSubscriber* sink, std::shared_ptr<std::atomic<bool>> flag) {
        return op_.resume_after_input(run_id, sink, std::move(flag));
    });
}

Status RunHub::resume_interrupted(const std::string& run_id) {
    return resume(run_id, [this, run_id](op::RunEventSubscriber* sink, std::shared_ptr<std::atomic<bool>> flag) {
        return op_.resume_interrupted(run_id, sink, std::move(flag));
    });
}

Status RunHub::resume_stopped(const std::string& run_id) {
    auto run = runs_.get(run_id);
    if (!run) return run.error();
    if (auto may = op_.resumable(run.value()); !may) return may.error();
    return resume(run_id, [this, run_id](op::RunEventSubscriber* sink, std::shared_ptr<std::atomic<bool>> flag) {
        return op_.resume(run_id, sink, std::move(flag));
    });
}

void RunHub::await_pausing_locked(std::unique_lock<std::mutex>& lock, const std::string& run_id, RunStatus stored) {
    if (!paused(stored)) return;
    // Saved paused, its thread only reports that: an answer given on seeing the pause waits for it.
    idle_.wait_for(lock, std::chrono::seconds(10), [&] {
        auto it = tracked_.find(run_id);
        return it == tracked_.end() || !it->second.working;
    });
}

Status RunHub::resume(const std::string& run_id, Work work) {
    auto run = runs_.get(run_id);
    if (!run) return run.error();
    std::shared_ptr<std::atomic<bool>> cancel;
    {
        std::unique_lock lock(mutex_);
        await_pausing_locked(lock, run_id, run->status);
        auto it = tracked_.find(run_id);
        if (it != tracked_.end() && it->second.working) {
            // Resolving an approval is visible (the queue row) a moment before the run thread saved
            // its pause and returned. Refusing here would leave the run waiting for an approval that
            // is already resolved; instead it resumes as soon as it has paused.
            if (it->second.resume_when_paused) {
                return Error{errors::kRunBusy, "run " + run_id + " is already working and about to resume", {}, {}};
            }
            if (!accepting_) return admit_locked(run->user_id, false);
            it->second.resume_when_paused = std::move(work);
            return {};
        }
        if (auto admitted = admit_locked(run->user_id, false); !admitted) return admitted.error();
        cancel = begin_locked(run_id, run->user_id);
    }
    spawn(run_id, cancel, std::move(work));
    return {};
}

Status RunHub::guide(const std::string& run_id, std::string text, const auth::UserContext& user,
                     std::shared_ptr<EventChannel> events) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        return Error{
            errors::kGuidanceEmpty, "the guidance is empty — say what the operator should do differently", {}, {}};
    }
    std::shared_ptr<std::atomic<bool>> cancel;
    {
        std::unique_lock lock(mutex_);
        auto run = runs_.get(run_id);
        if (!run) return run.error();
        await_pausing_locked(lock, run_id, run->status);
        auto it = tracked_.find(run_id);
        if (it != tracked_.end() && it->second.working) {
            return Error{errors::kRunBusy,
                         "run " + run_id + " is working; guidance is for runs that stopped and asked for it",
                         {},
                         {}};
        }
        if (run->status != RunStatus::needs_guidance) {
            Error e{errors::kRunNotWaitingForGuidance,
                    "run " + run_id + " is " + store::to_string(run->status) +
                        "; only runs that need guidance can be guided",
                    {},
                    {}};
            e.details["status"] = store::to_string(run->status);
            return e;
        }
        if (auto admitted = admit_locked(user.user_id, true); !admitted) return admitted.error();
        cancel = begin_locked(run_id, run->user_id);
        if (events) subscribe_locked(tracked_[run_id], events);
    }
    spawn(
        run_id, cancel,
        [this, run_id, text = std::move(text)](op::RunEventSubscriber* sink, std::shared_ptr<std::atomic<bool>> flag) {
            return op_.guide(run_id, text, sink, std::move(flag));
        });
    return {};
}

Result<json::object> RunHub::cancel(const std::string& run_id) {
    std::lock_guard lock(mutex_);
    auto run = runs_.get(run_id);
    // The store decides whether the run has ended: a run thread saves its final state a moment
    // before the hub stops tracking it as working, and a cancel in between must not succeed twice.
    auto it = tracked_.find(run_id);
    // A run stored paused whose thread is only finishing is cancelled like any paused run: its
    // thread writes nothing more, and the flag would come too late.
    if (it != tracked_.end() && it->second.working && !(run && (terminal(run->status) || paused(run->status)))) {
        it->second.cancel->store(true);
        return json::object{{"run_id", run_id}, {"status", "running"}, {"cancel_requested", true}};
    }
    if (!run) return run.error();
    if (terminal(run->status)) {
        Error e{errors::kRunAlreadyFinished,
                "run " + run_id + " already ended " + store::to_string(run->status) + "; nothing to cancel",
                {},
                {}};
        e.details["status"] = store::to_string(run->status);
        return e;
    }
    store::Run stopped = std::move(run.value());
    stopped.status = RunStatus::cancelled;
    stopped.finished_ms = store::unix_ms_now();
    Error reason{errors::kRunCancelled, "the run was cancelled before it finished", {}, {}};
    reason.details["steps"] = stopped.steps.size();
    stopped.error = std::move(reason);
    if (auto saved = runs_.save(stopped); !saved) return saved.error();
    StreamEvent end{"end", json::serialize(stopped.to_json())};
    log_event(run_id, end);
    end_locked(run_id, stopped.to_json(), end.id);
    return json::object{{"run_id", run_id}, {"status", "cancelled"}, {"cancel_requested", true}};
}

RunHub::Replayed RunHub::replay_locked(const std::string& run_id, std::int64_t after, std::int64_t upto,
                                       const std::shared_ptr<EventChannel>& channel) {
    Replayed replayed{after, 0, false};
    while (replayed.events < options_.max_replay_events) {
        const std::size_t want = std::min(replay_page, options_.max_replay_events - replayed.events);
        auto page = log_->read(run_id, replayed.last_seq, want);
        if (!page) {
            spdlog::warn("run {}: reading its event log failed: {}: {}", run_id, page.error().code,
                         page.error().message);
            break;
        }
        for (auto& event : page.value()) {
            if (event.seq > upto) return replayed;
            channel->push(StreamEvent{event.kind, std::move(event.payload), std::to_string(event.seq)});
            replayed.last_seq = event.seq;
            ++replayed.events;
            if (event.kind == "end") {
                replayed.ended = true;
                return replayed;
            }
        }
        if (page->size() < want) return replayed;
    }
    if (replayed.events >= options_.max_replay_events) {
        // Further behind than one replay carries: this stream ends here, and its client attaches
        // again after the last id it got.
        channel->close();
        replayed.ended = true;
    }
    return replayed;
}

bool RunHub::pull_locked(const std::string& run_id) {
    auto it = tracked_.find(run_id);
    if (it == tracked_.end()) return false;
    if (it->second.working || it->second.subscribers.empty()) return true;
    // One channel collects the new events, then each subscriber gets them.
    auto collected = std::make_shared<EventChannel>(options_.max_replay_events + 1);
    const Replayed got = replay_locked(run_id, it->second.last_seq, INT64_MAX, collected);
    it->second.last_seq = got.last_seq;
    while (auto event = collected->next(std::chrono::milliseconds(0))) {
        for (auto& weak : it->second.subscribers) {
            if (auto channel = weak.lock()) channel->push(*event);
        }
        if (event->name == "end") {
            for (auto& weak : it->second.subscribers) {
                if (auto channel = weak.lock()) channel->close();
            }
            tracked_.erase(it);
            return false;
        }
    }
    return true;
}

void RunHub::wake(const std::string& run_id) {
    if (!log_) return;
    std::lock_guard lock(mutex_);
    (void)pull_locked(run_id);
}

void RunHub::wake_all() {
    if (!log_) return;
    std::lock_guard lock(mutex_);
    std::vector<std::string> ids;
    for (const auto& [id, tracked] : tracked_)
        if (!tracked.working) ids.push_back(id);
    for (const auto& id : ids) (void)pull_locked(id);
}

Result<std::shared_ptr<EventChannel>> RunHub::attach(const std::string& run_id, std::int64_t after_seq) {
    auto channel = std::make_shared<EventChannel>();
    std::lock_guard lock(mutex_);
    prune_locked();
    auto it = tracked_.find(run_id);
    if (it != tracked_.end() && log_) {
        // The log has everything published so far (events are appended before they are pushed;
        // the stream drops the ones it gets twice). A run followed from the log is brought up to
        // date first, so the new subscriber joins where the others are.
        std::int64_t upto = INT64_MAX;
        if (!it->second.working) {
            if (!pull_locked(run_id)) it = tracked_.end();
            if (it != tracked_.end()) upto = it->second.last_seq;
        }
        if (it != tracked_.end()) {
            if (!replay_locked(run_id, after_seq, upto, channel).ended) it->second.subscribers.push_back(channel);
            return channel;
        }
    } else if (it != tracked_.end()) {
        subscribe_locked(it->second, channel);
        return channel;
    }
    auto run = runs_.get(run_id);
    std::optional<std::string> started_elsewhere;  // the user of a run another instance started, not stored yet
    if (!run) {
        if (run.error().is(errors::kRunNotFound) && options_.follow_other_instances)
            started_elsewhere = logged_user(run_id);
        if (!started_elsewhere) return run.error();
    }
    Replayed replayed{after_seq, 0, false};
    if (log_) {
        replayed = replay_locked(run_id, after_seq, INT64_MAX, channel);
        if (replayed.ended) return channel;
    }
    if (started_elsewhere || (run->status == RunStatus::running && log_ && options_.follow_other_instances)) {
        // Another instance drives it (or did, until its lease lapses): follow its log.
        auto& tracked = tracked_[run_id];
        tracked.user_id = started_elsewhere ? *started_elsewhere : run->user_id;
        tracked.paused_status = "running";
        tracked.last_seq = replayed.last_seq;
        tracked.subscribers.push_back(channel);
        return channel;
    }
    if (terminal(run->status)) {
        channel->push(StreamEvent{"end", json::serialize(run->to_json())});
        channel->close();
        return channel;
    }
    if (run->status == RunStatus::running) {
        // Marked running, but no thread of this process works on it (another process does, or did
        // and stopped): report what is known and end.
        json::object o = status_event(run.value());
        o["note"] =
            "this server is not working on the run; it may be running elsewhere, or its host stopped "
            "(cancel it with POST /v1/runs/" +
            run_id + "/cancel)";
        channel->push(StreamEvent{"status", json::serialize(o)});
        channel->close();
        return channel;
    }
    auto& tracked = tracked_[run_id];
    tracked.user_id = run->user_id;
    tracked.paused_status = store::to_string(run->status);
    tracked.last_seq = replayed.last_seq;
    if (replayed.events == 0 && after_seq == 0)
        channel->push(StreamEvent{"status", json::serialize(status_event(run.value()))});
    tracked.subscribers.push_back(channel);
    return channel;
}

bool RunHub::working(const std::string& run_id) const {
    std::lock_guard lock(mutex_);
    auto it = tracked_.find(run_id);
    return it != tracked_.end() && it->second.working;
}

std::optional<std::string> RunHub::user_of(const std::string& run_id) const {
    {
        std::lock_guard lock(mutex_);
        auto it = tracked_.find(run_id);
        if (it != tracked_.end()) return it->second.user_id;
    }
    return logged_user(run_id);
}

std::optional<std::string> RunHub::logged_user(const std::string& run_id) const {
    if (!log_) return std::nullopt;
    auto first = log_->read(run_id, 0, 1);
    if (!first || first->empty() || first->front().kind != "run") return std::nullopt;
    boost::system::error_code ec;
    auto opening = json::parse(first->front().payload, ec);
    if (ec || !opening.is_object()) return std::nullopt;
    const auto* user = opening.as_object().if_contains("user");
    if (!user || !user->is_string()) return std::nullopt;
    return std::string(user->as_string());
}

std::size_t RunHub::working_count() const {
    std::lock_guard lock(mutex_);
    return working_;
}

void RunHub::stop_accepting() {
    std::lock_guard lock(mutex_);
    accepting_ = false;
}

bool RunHub::wait_idle(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    return idle_.wait_for(lock, limit, [this] { return working_ == 0; });
}

std::vector<std::string> RunHub::cancel_all() {
    std::lock_guard lock(mutex_);
    std::vector<std::string> ids;
    for (auto& [id, tracked] : tracked_) {
        if (tracked.working && tracked.cancel) {
            tracked.cancel->store(true);
            ids.push_back(id);
        }
    }
    return ids;
}

}  // namespace skillhost::server
