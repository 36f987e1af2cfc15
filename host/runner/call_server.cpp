#include "runner/call_server.hpp"
#include "plugin/extensions/host_extension.hpp"
#include "plugin/error_codes.hpp"
#include "runner/error_codes.hpp"
#include "store/error_codes.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <poll.h>

#include <system_error>
#include <utility>

namespace skillhost::runner {
namespace {

using plugin::wire::FrameType;
using Written = plugin::RawOutcome::Written;

// Calls running at once in one runner; more wait in the queue (the executor bounds them anyway).
constexpr std::size_t max_threads = 64;
// After the host closed the socket, how long calls still running may take to return.
constexpr auto stop_grace = std::chrono::seconds(2);
// A frame from the host: a call's arguments, bounded like a request body.
constexpr std::size_t max_host_frame = std::size_t{64} << 20;
// A call running inline this long has its reader role taken over, so other calls get read.
constexpr auto takeover_after = std::chrono::milliseconds(1);
// The watcher keeps watching (timed waits) this long after the last call, then sleeps.
constexpr auto watch_period = std::chrono::milliseconds(100);

using Clock = std::chrono::steady_clock;

// The park generation this thread holds the reader role under (0: none).
thread_local std::uint64_t parked_here = 0;

plugin::RawOutcome refused(const ErrorCode& code, std::string message) {
    plugin::RawOutcome outcome;
    outcome.written = Written::error;
    outcome.error_code = std::string(code.name);
    outcome.error_message = std::move(message);
    return outcome;
}

// A host request's answer as the service's result; `gone_code` when the host closed first.
Result<std::string> result_of(std::optional<plugin::RawOutcome> answer, const ErrorCode& gone_code) {
    if (!answer) return Error{gone_code, "the host closed the connection before it answered"};
    if (answer->written == Written::result) return std::move(answer->result_json);
    // The host answered with one of its codes for the service (LLM_UNAVAILABLE, ...).
    const auto known = find_error_code(answer->error_code, errors::kPluginErrorCodes, errors::kStoreErrorCodes);
    Error error = Error::reported(answer->error_code, known ? known->kind : ErrorKind::internal, answer->error_message);
    std::error_code ec;
    boost::json::value details = boost::json::parse(answer->error_details_json, ec);
    if (!ec && details.is_object()) error.details = std::move(details.get_object());
    return error;
}

// What the front end serves for a call, as this runner reaches it: progress and log lines go to
// the host one way, tagged with the call's sequence, where the call's front end receives them.
// Everything the front end answers (sampling, questions) is a host extension, forwarded with the
// others (HostRequests::forward).
class HostForwardedServices final : public plugin::CallServices {
public:
    HostForwardedServices(HostLink& link, std::uint64_t call) : link_(link), call_(call) {}

    void progress(double progress, double total, std::string_view message) override {
        plugin::wire::PayloadWriter w;
        w.real(progress).real(total).text(message);
        link_.send(FrameType::progress, call_, w.bytes());
    }
    void log(skillhost_log_level level, std::string_view message) override {
        plugin::wire::PayloadWriter w;
        w.integer(level).text(message);
        link_.send(FrameType::call_log, call_, w.bytes());
    }

private:
    HostLink& link_;
    const std::uint64_t call_;
};

}  // namespace

bool HostLink::send(FrameType type, std::uint64_t id, std::string_view payload) {
    std::lock_guard lock(write_mutex_);
    return plugin::wire::write_frame(fd_, type, id, payload);
}

std::optional<plugin::RawOutcome> HostRequests::ask(std::uint64_t call_sequence, std::string_view kind,
                                                    std::string_view body) {
    if (body.size() > max_body_)
        return refused(errors::kHostRequestTooLarge, "a request to the host of " + std::to_string(body.size()) +
                                                         " bytes is over the limit of " + std::to_string(max_body_) +
                                                         " bytes (isolation.max_result_bytes); send less");
    if (before_waiting_) before_waiting_();
    Waiter waiter;
    std::uint64_t id = 0;
    {
        std::lock_guard lock(mutex_);
        if (abandoned_) return std::nullopt;
        id = next_id_++;
        waiting_.emplace(id, &waiter);
    }
    link_.send(FrameType::host_request, id,
               plugin::wire::encode(plugin::wire::HostRequest{call_sequence, std::string(kind), std::string(body)}));
    std::unique_lock lock(mutex_);
    answered_.wait(lock, [&] { return waiter.done; });
    waiting_.erase(id);
    return std::move(waiter.outcome);
}

void HostRequests::answer(std::uint64_t id, std::string_view payload) {
    std::lock_guard lock(mutex_);
    auto found = waiting_.find(id);
    if (found == waiting_.end()) return;
    found->second->outcome = plugin::wire::decode_outcome(payload);
    found->second->done = true;
    answered_.notify_all();
}

void HostRequests::abandon_all() {
    std::lock_guard lock(mutex_);
    abandoned_ = true;
    for (auto& [id, waiter] : waiting_) waiter->done = true;
    answered_.notify_all();
}

plugin::ExtensionForward HostRequests::forward(std::uint64_t call_sequence) {
    return [this, call_sequence](const plugin::HostExtension& extension, std::string_view body) {
        return result_of(ask(call_sequence, extension.id, body), *extension.unavailable);
    };
}

CallServer::CallServer(HostLink& link, std::shared_ptr<plugin::LoadedPlugin> plugin, HostRequests& requests,
                       std::chrono::milliseconds idle_timeout)
    : link_(link),
      plugin_(std::move(plugin)),
      requests_(requests),
      idle_timeout_(idle_timeout),
      frames_(max_host_frame) {
    requests_.before_waiting([this] { unpark_if_mine(); });
}

CallServer::~CallServer() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    reader_free_.notify_all();
    // Only reached when no call is running (serve() returned true): every thread is leaving.
    for (auto& thread : threads_)
        if (thread.joinable()) thread.join();
}

bool CallServer::serve() {
    std::unique_lock lock(mutex_);
    threads_.emplace_back([this] { work(); });
    drained_.wait(lock, [&] { return stopping_; });
    // Calls still queued never started: nothing to wait for. Running ones are told to stop.
    for (const auto& queued : queue_) active_.erase(queued->id);
    queue_.clear();
    for (auto& [id, call] : active_) call->control.cancelled.store(true);
    return drained_.wait_for(lock, stop_grace, [&] { return active_.empty(); });
}

void CallServer::work() {
    std::unique_lock lock(mutex_);
    bool watching = false;
    for (;;) {
        if (stopping_) return;
        if (!queue_.empty()) {
            std::shared_ptr<Active> call = std::move(queue_.front());
            queue_.pop_front();
            lock.unlock();
            run(*call);
            lock.lock();
            retire(*call);
            continue;
        }
        const auto now = Clock::now();
        const bool overdue = watching && parked_ && now >= parked_since_ + takeover_after;
        if (!reader_taken_ || overdue) {
            if (overdue) {
                parked_ = false;
                ++park_generation_;  // the thread running the call finds the role gone
            }
            reader_taken_ = true;
            if (watching) {
                watching = false;
                watcher_awake_ = false;
            }
            if (!lead(lock)) return;
            continue;
        }
        if (!watcher_awake_) {
            watching = true;
            watcher_awake_ = true;
        }
        ++waiting_threads_;
        if (watching && parked_) {
            reader_free_.wait_until(lock, parked_since_ + takeover_after);
        } else if (watching && now - last_park_ < watch_period) {
            reader_free_.wait_for(lock, takeover_after);
        } else {
            if (watching) {
                watching = false;
                watcher_awake_ = false;
            }
            reader_free_.wait(lock);
        }
        --waiting_threads_;
    }
}

bool CallServer::lead(std::unique_lock<std::mutex>& lock) {
    for (;;) {
        lock.unlock();
        std::shared_ptr<Active> call = read_until_call();
        if (!call) {
            lock.lock();
            return false;
        }
        const std::uint64_t generation = parked_here;
        run(*call);
        parked_here = 0;
        lock.lock();
        retire(*call);
        if (!parked_ || park_generation_ != generation) return true;  // taken over meanwhile
        parked_ = false;
    }
}

void CallServer::retire(const Active& call) {
    active_.erase(call.id);
    // Only serve() waits for the drain, and only once the host has closed: waking it after every
    // call would cost the main thread a wake-up (and the mutex a contender) per call.
    if (stopping_ && active_.empty()) drained_.notify_all();
}

void CallServer::unpark_if_mine() {
    if (parked_here == 0) return;
    std::lock_guard lock(mutex_);
    if (parked_ && park_generation_ == parked_here) {
        parked_ = false;
        reader_taken_ = false;
        ++park_generation_;
        reader_free_.notify_one();
    }
    parked_here = 0;
}

std::shared_ptr<CallServer::Active> CallServer::read_until_call() {
    plugin::wire::Frame frame;
    for (;;) {
        pollfd watch{link_.fd(), POLLIN, 0};
        const int timeout_ms = idle_timeout_.count() > 0 ? static_cast<int>(idle_timeout_.count()) : -1;
        const int ready = frames_.has_frame() ? 1 : ::poll(&watch, 1, timeout_ms);
        if (ready == 0) {
            std::lock_guard lock(mutex_);
            if (active_.empty() && !idle_reported_) {
                link_.send(FrameType::idle, 0, {});
                idle_reported_ = true;
            }
            continue;
        }
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0 || frames_.read(link_.fd(), frame) != plugin::wire::ReadStatus::frame) {
            end_of_stream();
            return nullptr;
        }
        switch (static_cast<FrameType>(frame.header.type)) {
            case FrameType::call:
            case FrameType::extension_call: {
                std::shared_ptr<Active> call =
                    accept(frame.header.id, static_cast<FrameType>(frame.header.type), frame.payload);
                if (!call) break;
                std::lock_guard lock(mutex_);
                idle_reported_ = false;
                active_.emplace(call->id, call);
                // Run it here with the reader role parked: a waiting thread (or a new one) takes it
                // over if the call runs long. With every thread busy, keep reading; it waits.
                bool relief = waiting_threads_ > 0;
                if (!relief && threads_.size() < max_threads) {
                    try {
                        threads_.emplace_back([this] { work(); });
                        relief = true;
                    } catch (const std::system_error&) {
                        // Out of memory or threads (the plugin's may have taken them): the call
                        // waits in the queue for a pool thread running another call, or runs here
                        // when there is none (then nothing reads a cancel until it returns; the
                        // host kills the runner past the grace).
                        relief = threads_.size() <= 1;
                    }
                }
                if (relief) {
                    const auto now = Clock::now();
                    parked_ = true;
                    parked_since_ = now;
                    last_park_ = now;
                    parked_here = ++park_generation_;
                    if (!watcher_awake_) reader_free_.notify_one();
                    return call;
                }
                queue_.push_back(std::move(call));
                break;
            }
            case FrameType::cancel: {
                std::lock_guard lock(mutex_);
                if (auto found = active_.find(frame.header.id); found != active_.end())
                    found->second->control.cancelled.store(true);
                break;
            }
            case FrameType::host_reply: requests_.answer(frame.header.id, frame.payload); break;
            default: break;
        }
    }
}

void CallServer::end_of_stream() {
    requests_.abandon_all();
    std::lock_guard lock(mutex_);
    stopping_ = true;
    reader_free_.notify_all();
    drained_.notify_all();
}

std::shared_ptr<CallServer::Active> CallServer::accept(std::uint64_t id, FrameType type, std::string_view payload) {
    std::optional<plugin::wire::CallFrame> request;
    std::optional<plugin::wire::ExtensionCall> extension;
    if (type == FrameType::extension_call) {
        extension = plugin::wire::decode_extension_call(payload);
        if (extension) request = std::move(extension->call);
    } else {
        request = plugin::wire::decode_call(payload);
    }
    if (!request) {
        link_.send(FrameType::result, id,
                   plugin::wire::encode(refused(errors::kRunnerProtocolError,
                                                "the runner received an unreadable call; report this as a "
                                                "skillhost bug")));
        return nullptr;
    }
    auto call = std::make_shared<Active>();
    call->extension = std::move(extension);
    call->id = id;
    call->context = std::move(request->call);  // data_dir_ready: the host made it before it started this runner
    call->context.control = &call->control;
    call->control.call = &call->context;
    call->args = std::move(request->args_json);
    // The host answers this call's requests for the extensions it answers (whoever the extension
    // is: the runner only forwards the module's encoding), and hears its progress and log lines.
    call->context.has_path_rules = (request->flags & plugin::wire::call_has_path_rules) != 0;
    call->control.forward = requests_.forward(id);
    call->control.services = std::make_shared<HostForwardedServices>(link_, id);
    return call;
}

plugin::RawOutcome CallServer::run_extension(const Active& call) const {
    const plugin::wire::ExtensionCall& e = *call.extension;
    const auto max_bytes = static_cast<std::size_t>(e.max_bytes);
    if (e.kind == plugin::wire::ExtensionKind::resources)
        return plugin_->request_resources(static_cast<plugin::ResourceRequest>(e.request), call.context, e.name,
                                          max_bytes);
    return plugin_->request_prompts(static_cast<plugin::PromptRequest>(e.request), call.context, e.name, e.json,
                                    max_bytes);
}

void CallServer::run(Active& call) {
    plugin::RawOutcome outcome;
    try {
        outcome = call.extension ? run_extension(call) : plugin_->invoke(call.context, call.args);
    } catch (...) {
        outcome = refused(errors::kRunnerOutOfMemory,
                          "the plugin runner ran out of memory around this call; lower what the skill holds");
    }
    // Content items go first: the host adds them to the call before its result ends it.
    if (boost::json::array items = call.control.content.take(); !items.empty())
        link_.send(FrameType::content, call.id, boost::json::serialize(items));
    link_.send(FrameType::result, call.id, plugin::wire::encode(outcome));
}

}  // namespace skillhost::runner
