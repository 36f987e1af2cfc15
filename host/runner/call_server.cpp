#include "runner/call_server.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <poll.h>

#include <utility>

namespace skillhost::runner {
namespace {

using plugin::wire::FrameType;

// Calls running at once in one runner; more wait in the queue (the executor bounds them anyway).
constexpr std::size_t max_workers = 64;
// After the host closed the socket, how long calls still running may take to return.
constexpr auto stop_grace = std::chrono::seconds(2);
// A frame from the host: a call's arguments, bounded like a request body.
constexpr std::size_t max_host_frame = std::size_t{64} << 20;

}  // namespace

bool HostLink::send(FrameType type, std::uint64_t id, std::string_view payload) {
    std::lock_guard lock(write_mutex_);
    return plugin::wire::write_frame(fd_, type, id, payload);
}

Result<std::string> RemoteCompletions::complete(std::string_view user_id, std::string_view role,
                                                std::string_view request) {
    plugin::wire::PayloadWriter w;
    w.text(user_id).text(role).text(request);
    return ask(FrameType::completion_request, w.bytes());
}

Result<std::string> RemoteCompletions::ask(FrameType type, std::string_view payload) {
    Waiter waiter;
    std::uint64_t id = 0;
    {
        std::lock_guard lock(mutex_);
        if (abandoned_) return Error{"LLM_UNAVAILABLE", "the host closed the connection; no completion is possible"};
        id = next_id_++;
        waiting_.emplace(id, &waiter);
    }
    link_.send(type, id, payload);
    std::unique_lock lock(mutex_);
    answered_.wait(lock, [&] { return waiter.done; });
    waiting_.erase(id);
    if (!waiter.outcome) return Error{"LLM_UNAVAILABLE", "the host closed the connection before it answered"};
    plugin::RawOutcome& answer = *waiter.outcome;
    if (answer.written == plugin::RawOutcome::Written::result) return std::move(answer.result_json);
    Error error{answer.error_code, answer.error_message};
    std::error_code ec;
    boost::json::value details = boost::json::parse(answer.error_details_json, ec);
    if (!ec && details.is_object()) error.details = std::move(details.get_object());
    return error;
}

void RemoteCompletions::answer(std::uint64_t id, std::string_view payload) {
    std::lock_guard lock(mutex_);
    auto found = waiting_.find(id);
    if (found == waiting_.end()) return;
    found->second->outcome = plugin::wire::decode_outcome(payload);
    found->second->done = true;
    answered_.notify_all();
}

void RemoteCompletions::abandon_all() {
    std::lock_guard lock(mutex_);
    abandoned_ = true;
    for (auto& [id, waiter] : waiting_) waiter->done = true;
    answered_.notify_all();
}

CallServer::CallServer(HostLink& link, std::shared_ptr<plugin::LoadedPlugin> plugin, RemoteCompletions& completions,
                       std::chrono::milliseconds idle_timeout)
    : link_(link), plugin_(std::move(plugin)), completions_(completions), idle_timeout_(idle_timeout) {}

CallServer::~CallServer() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    queued_.notify_all();
    for (auto& worker : workers_) worker.detach();  // a hung call must not keep the runner alive
}

bool CallServer::serve() {
    plugin::wire::Frame frame;
    bool idle_reported = false;
    for (;;) {
        pollfd watch{link_.fd(), POLLIN, 0};
        const int timeout_ms = idle_timeout_.count() > 0 ? static_cast<int>(idle_timeout_.count()) : -1;
        const int ready = ::poll(&watch, 1, timeout_ms);
        if (ready == 0) {
            std::lock_guard lock(mutex_);
            if (active_.empty() && !idle_reported) {
                link_.send(FrameType::idle, 0, {});
                idle_reported = true;
            }
            continue;
        }
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) break;
        if (plugin::wire::read_frame(link_.fd(), max_host_frame, frame) != plugin::wire::ReadStatus::frame) break;
        switch (static_cast<FrameType>(frame.header.type)) {
            case FrameType::call:
                idle_reported = false;
                start(frame.header.id, frame.payload);
                break;
            case FrameType::cancel: {
                std::lock_guard lock(mutex_);
                if (auto found = active_.find(frame.header.id); found != active_.end())
                    found->second->control.cancelled.store(true);
                break;
            }
            case FrameType::completion_reply: completions_.answer(frame.header.id, frame.payload); break;
            default: break;
        }
    }
    completions_.abandon_all();
    std::unique_lock lock(mutex_);
    for (auto& [id, call] : active_) call->control.cancelled.store(true);
    return drained_.wait_for(lock, stop_grace, [&] { return active_.empty(); });
}

void CallServer::start(std::uint64_t id, std::string_view payload) {
    std::optional<plugin::wire::CallRequest> request = plugin::wire::decode_call(payload);
    if (!request) {
        plugin::RawOutcome bad;
        bad.written = plugin::RawOutcome::Written::error;
        bad.error_code = "RUNNER_PROTOCOL_ERROR";
        bad.error_message = "the runner received an unreadable call; report this as a skillhost bug";
        link_.send(FrameType::result, id, plugin::wire::encode(bad));
        return;
    }
    auto call = std::make_shared<Active>();
    call->id = id;
    call->context.skill_id = std::move(request->skill_id);
    call->context.call_id = std::move(request->call_id);
    call->context.user_id = std::move(request->user_id);
    call->context.cognitive_mode = std::move(request->cognitive_mode);
    call->context.data_dir = std::move(request->data_dir);
    call->context.workspace_root = std::move(request->workspace_root);
    call->context.deadline_unix_ms = request->deadline_unix_ms;
    call->context.control = &call->control;
    call->args = std::move(request->args_json);
    call->control.on_progress = [this, id](double progress, double total, std::string_view message) {
        plugin::wire::PayloadWriter w;
        w.real(progress).real(total).text(message);
        link_.send(FrameType::progress, id, w.bytes());
    };
    // The front end's services for this call travel to the host tagged with the call's sequence.
    call->control.on_log = [this, id](skillhost_log_level level, std::string_view message) {
        plugin::wire::PayloadWriter w;
        w.integer(level).text(message);
        link_.send(FrameType::call_log, id, w.bytes());
    };
    call->control.sample = [this, id, user = call->context.user_id](std::string_view role, std::string_view body,
                                                                    const std::atomic<bool>&) {
        plugin::wire::PayloadWriter w;
        w.integer(static_cast<std::int64_t>(id)).text(user).text(role).text(body);
        return completions_.ask(FrameType::call_completion_request, w.bytes());
    };
    call->control.elicit = [this, id](std::string_view body, const std::atomic<bool>&) {
        plugin::wire::PayloadWriter w;
        w.integer(static_cast<std::int64_t>(id)).text(body);
        return completions_.ask(FrameType::elicit_request, w.bytes());
    };
    std::lock_guard lock(mutex_);
    active_.emplace(id, call);
    queue_.push_back(std::move(call));
    if (idle_workers_ == 0 && workers_.size() < max_workers) {
        workers_.emplace_back([this] { work(); });
    } else {
        queued_.notify_one();
    }
}

void CallServer::work() {
    std::unique_lock lock(mutex_);
    for (;;) {
        ++idle_workers_;
        queued_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        --idle_workers_;
        if (stopping_) return;
        std::shared_ptr<Active> call = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        run(*call);
        lock.lock();
        active_.erase(call->id);
        if (active_.empty()) drained_.notify_all();
    }
}

void CallServer::run(Active& call) {
    plugin::RawOutcome outcome;
    try {
        outcome = plugin_->invoke(call.context, call.args);
    } catch (...) {
        outcome.written = plugin::RawOutcome::Written::error;
        outcome.error_code = "RUNNER_OUT_OF_MEMORY";
        outcome.error_message = "the plugin runner ran out of memory around this call; lower what the skill holds";
    }
    // Content items go first: the host adds them to the call before its result ends it.
    if (boost::json::array items = call.control.content.take(); !items.empty())
        link_.send(FrameType::content, call.id, boost::json::serialize(items));
    link_.send(FrameType::result, call.id, plugin::wire::encode(outcome));
}

}  // namespace skillhost::runner
