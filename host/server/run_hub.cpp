#include "server/run_hub.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <thread>

namespace skillhost::server {

namespace json = boost::json;
using store::RunStatus;

namespace {

bool terminal(RunStatus status) {
    return status == RunStatus::completed || status == RunStatus::failed || status == RunStatus::cancelled;
}

json::object status_event(const store::Run& run) {
    json::object o{{"run_id", run.id}, {"status", store::to_string(run.status)}};
    if (!run.approval_id.empty()) o["approval_id"] = run.approval_id;
    if (run.error) o["error"] = run.error->to_json();
    return o;
}

}  // namespace

// Forwards a run's operator events to its subscribers, on the run's thread.
class RunHub::Publisher final : public op::RunEventSubscriber {
public:
    Publisher(RunHub& hub, std::string run_id) : hub_(hub), run_id_(std::move(run_id)) {}
    void on_event(const op::RunEvent& event) override {
        hub_.publish(run_id_, StreamEvent{op::to_string(event.type), json::serialize(event.to_json())});
    }

private:
    RunHub& hub_;
    std::string run_id_;
};

RunHub::RunHub(op::Operator& op, store::RunStore& runs, RunHubOptions options)
    : op_(op), runs_(runs), options_(options) {
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
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [this] { return working_ == 0; });
    for (auto& [id, tracked] : tracked_) {
        for (auto& weak : tracked.subscribers) {
            if (auto channel = weak.lock()) channel->close();
        }
    }
}

Status RunHub::admit_locked(const std::string& user_id, bool limited) const {
    if (!accepting_) {
        return Error{
            "SHUTTING_DOWN", "the server is shutting down and starts no more runs", {}, {"try again once it is back"}};
    }
    if (!limited) return {};
    unsigned mine = 0;
    for (const auto& [id, tracked] : tracked_) mine += tracked.working && tracked.user_id == user_id ? 1 : 0;
    if (mine >= options_.max_runs_per_user) {
        Error e{"TOO_MANY_RUNS",
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
    std::thread([this, run_id, cancel = std::move(cancel), work = std::move(work)] {
        Publisher publisher(*this, run_id);
        Result<store::Run> outcome = Error{"INTERNAL", "the run's thread failed", {}, {}};
        try {
            outcome = work(&publisher, cancel);
        } catch (const std::exception& e) {
            outcome = Error{"INTERNAL", std::string("the run failed unexpectedly: ") + e.what(), {}, {}};
        }
        finish(run_id, outcome);
    }).detach();
}

void RunHub::subscribe_locked(Tracked& tracked, const std::shared_ptr<EventChannel>& channel) {
    for (const auto& event : tracked.history) channel->push(event);
    tracked.subscribers.push_back(channel);
}

void RunHub::publish(const std::string& run_id, StreamEvent event) {
    std::lock_guard lock(mutex_);
    auto it = tracked_.find(run_id);
    if (it == tracked_.end()) return;
    auto& tracked = it->second;
    if (tracked.history.size() < options_.history_limit) tracked.history.push_back(event);
    for (auto& weak : tracked.subscribers) {
        if (auto channel = weak.lock()) channel->push(event);
    }
}

void RunHub::end_locked(const std::string& run_id, const json::object& record) {
    auto it = tracked_.find(run_id);
    if (it == tracked_.end()) return;
    const StreamEvent end{"end", json::serialize(record)};
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

void RunHub::finish(const std::string& run_id, const Result<store::Run>& outcome) {
    std::lock_guard lock(mutex_);
    auto it = tracked_.find(run_id);
    if (it != tracked_.end()) it->second.working = false;
    --working_;
    // Another process or instance drives the run now (or will, having the plugin versions it needs).
    const bool driven_elsewhere =
        !outcome && (outcome.error().code == "RUN_ALREADY_RESUMED" || outcome.error().code == "RUN_LEASE_HELD" ||
                     outcome.error().code == "RUN_LEASE_LOST");
    if (driven_elsewhere && it != tracked_.end()) {
        // Another process drives the run now; poll_paused follows it in the store for the streams.
        it->second.paused_status.clear();
    } else if (!outcome) {
        spdlog::warn("run {}: {}: {}", run_id, outcome.error().code, outcome.error().message);
        end_locked(run_id, json::object{{"id", run_id}, {"error", outcome.error().to_json()}});
    } else if (terminal(outcome->status)) {
        end_locked(run_id, outcome->to_json());
    } else if (it != tracked_.end()) {
        it->second.paused_status = store::to_string(outcome->status);
        const StreamEvent event{"status", json::serialize(status_event(outcome.value()))};
        if (it->second.history.size() < options_.history_limit) it->second.history.push_back(event);
        for (auto& weak : it->second.subscribers) {
            if (auto channel = weak.lock()) channel->push(event);
        }
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
        auto run = runs_.get(id);
        if (!run) continue;
        const std::string status = store::to_string(run->status);
        if (status == seen) continue;
        std::lock_guard lock(mutex_);
        auto it = tracked_.find(id);
        if (it == tracked_.end() || it->second.working) continue;  // resumed here meanwhile
        if (terminal(run->status)) {
            end_locked(id, run->to_json());
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

Result<std::string> RunHub::start(std::string goal, const policy::UserContext& user, op::RunOptions options,
                                  std::shared_ptr<EventChannel> events) {
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
    spawn(id, cancel,
          [this, goal = std::move(goal), user, options = std::move(options)](op::RunEventSubscriber* sink,
                                                                             std::shared_ptr<std::atomic<bool>> flag) {
              op::RunOptions o = options;
              o.cancel = std::move(flag);
              return op_.run(goal, user, o, sink);
          });
    return id;
}

Status RunHub::resume_after_approval(const std::string& run_id) {
    return resume(run_id, [this, run_id](op::RunEventSubscriber* sink, std::shared_ptr<std::atomic<bool>> flag) {
        return op_.resume_after_approval(run_id, sink, std::move(flag));
    });
}

Status RunHub::resume_interrupted(const std::string& run_id) {
    return resume(run_id, [this, run_id](op::RunEventSubscriber* sink, std::shared_ptr<std::atomic<bool>> flag) {
        return op_.resume_interrupted(run_id, sink, std::move(flag));
    });
}

Status RunHub::resume(const std::string& run_id, Work work) {
    auto run = runs_.get(run_id);
    if (!run) return run.error();
    std::shared_ptr<std::atomic<bool>> cancel;
    {
        std::lock_guard lock(mutex_);
        auto it = tracked_.find(run_id);
        if (it != tracked_.end() && it->second.working) {
            return Error{"RUN_BUSY", "run " + run_id + " is already working", {}, {}};
        }
        if (auto admitted = admit_locked(run->user_id, false); !admitted) return admitted.error();
        cancel = begin_locked(run_id, run->user_id);
    }
    spawn(run_id, cancel, std::move(work));
    return {};
}

Status RunHub::guide(const std::string& run_id, std::string text, const policy::UserContext& user,
                     std::shared_ptr<EventChannel> events) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        return Error{"GUIDANCE_EMPTY", "the guidance is empty — say what the operator should do differently", {}, {}};
    }
    std::shared_ptr<std::atomic<bool>> cancel;
    {
        std::lock_guard lock(mutex_);
        auto it = tracked_.find(run_id);
        if (it != tracked_.end() && it->second.working) {
            return Error{"RUN_BUSY",
                         "run " + run_id + " is working; guidance is for runs that stopped and asked for it",
                         {},
                         {}};
        }
        auto run = runs_.get(run_id);
        if (!run) return run.error();
        if (run->status != RunStatus::needs_guidance) {
            Error e{"RUN_NOT_WAITING_FOR_GUIDANCE",
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
    if (it != tracked_.end() && it->second.working && !(run && terminal(run->status))) {
        it->second.cancel->store(true);
        return json::object{{"run_id", run_id}, {"status", "running"}, {"cancel_requested", true}};
    }
    if (!run) return run.error();
    if (terminal(run->status)) {
        Error e{"RUN_ALREADY_FINISHED",
                "run " + run_id + " already ended " + store::to_string(run->status) + "; nothing to cancel",
                {},
                {}};
        e.details["status"] = store::to_string(run->status);
        return e;
    }
    store::Run stopped = std::move(run.value());
    stopped.status = RunStatus::cancelled;
    stopped.finished_ms = store::unix_ms_now();
    Error reason{"RUN_CANCELLED", "the run was cancelled before it finished", {}, {}};
    reason.details["steps"] = stopped.steps.size();
    stopped.error = std::move(reason);
    if (auto saved = runs_.save(stopped); !saved) return saved.error();
    end_locked(run_id, stopped.to_json());
    return json::object{{"run_id", run_id}, {"status", "cancelled"}, {"cancel_requested", true}};
}

Result<std::shared_ptr<EventChannel>> RunHub::attach(const std::string& run_id) {
    auto channel = std::make_shared<EventChannel>();
    std::lock_guard lock(mutex_);
    prune_locked();
    auto it = tracked_.find(run_id);
    if (it != tracked_.end()) {
        subscribe_locked(it->second, channel);
        return channel;
    }
    auto run = runs_.get(run_id);
    if (!run) return run.error();
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
    std::lock_guard lock(mutex_);
    auto it = tracked_.find(run_id);
    if (it == tracked_.end()) return std::nullopt;
    return it->second.user_id;
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

void RunHub::cancel_all() {
    std::lock_guard lock(mutex_);
    for (auto& [id, tracked] : tracked_) {
        if (tracked.working && tracked.cancel) tracked.cancel->store(true);
    }
}

}  // namespace skillhost::server
