#include "exec/executor.hpp"
#include "exec/error_codes.hpp"

#include "base/user_id.hpp"
#include "exec/argument_validation.hpp"
#include "exec/deadline_watcher.hpp"
#include "exec/error_suggestions.hpp"
#include "exec/known_directories.hpp"
#include "base/worker_pool.hpp"
#include "exec/plugin_error.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

namespace skillhost::exec {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

// Calls that may wait for a worker once every worker (up to 64) is busy with a hung or slow skill;
// beyond this the executor refuses new calls (EXECUTOR_UNAVAILABLE) instead of queueing for ever.
constexpr std::size_t call_queue_limit = 4096;

// The wall-clock deadline a plugin sees, rounded up to a whole millisecond so the plugin never
// sees its deadline pass before the executor's own (steady-clock) deadline does.
std::int64_t unix_ms_deadline(std::chrono::milliseconds timeout) {
    return std::chrono::ceil<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch() + timeout)
        .count();
}

std::string text_prefix(std::string_view text, std::size_t limit = 80) {
    std::string out(text.substr(0, limit));
    if (text.size() > limit) out += "...";
    return out;
}

bool is_error_code(std::string_view code) {
    return !code.empty() && std::all_of(code.begin(), code.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

Error plugin_error(const std::string& plugin_name, std::string_view skill_id, const plugin::RawOutcome& raw) {
    // The plugin's own code, passed on as it gave it; one that is not UPPER_SNAKE is unspecified.
    // The host's own codes for what happened to the plugin (PLUGIN_CRASHED, ...) keep their kind.
    const bool well_formed = is_error_code(raw.error_code);
    Error error = well_formed ? error_from_plugin_call(raw.error_code, raw.error_message)
                              : Error{errors::kPluginErrorUnspecified, raw.error_message};
    if (!well_formed) error.details["reported_code"] = raw.error_code;
    if (error.message.empty())
        error.message = "skill " + std::string(skill_id) + " of plugin " + plugin_name + " failed with " + error.code +
                        " without a message";
    if (!raw.error_details_json.empty()) {
        boost::system::error_code ec;
        json::value details = json::parse(raw.error_details_json, ec);
        if (!ec && details.is_object()) {
            for (auto& field : details.get_object()) error.details[field.key()] = std::move(field.value());
        } else {
            error.details["raw_details"] = text_prefix(raw.error_details_json, 200);
        }
    }
    return error;
}

// Interprets what came back over the ABI. `output` receives the parsed result on success.
std::optional<Error> interpret(const plugin::RawOutcome& raw, const std::string& plugin_name, std::string_view skill_id,
                               json::value& output) {
    using Written = plugin::RawOutcome::Written;
    const std::string who = "skill " + std::string(skill_id) + " of plugin " + plugin_name;
    if (raw.written == Written::error) return plugin_error(plugin_name, skill_id, raw);
    if (raw.status == SKILLHOST_STATUS_OK) {
        if (raw.written == Written::nothing)
            return Error{errors::kPluginNoResult, who +
                                                      " returned OK without writing a result; report this to the "
                                                      "plugin author"};
        boost::system::error_code ec;
        output = json::parse(raw.result_json, ec);
        if (ec) {
            Error error{errors::kPluginInvalidResult, who + " returned a result that is not valid JSON (" +
                                                          ec.message() + "): '" + text_prefix(raw.result_json) +
                                                          "'; report this to the plugin author"};
            error.details["result_prefix"] = text_prefix(raw.result_json, 200);
            error.details["parse_error"] = ec.message();
            return error;
        }
        return std::nullopt;
    }
    if (raw.status == SKILLHOST_STATUS_CANCELLED)
        return Error{errors::kCancelled,
                     who + " stopped because it was asked to; call again if the result is still needed"};
    Error error{errors::kPluginErrorUnspecified,
                who + " returned status " + std::to_string(raw.status) + " without writing an error" +
                    (raw.written == Written::result ? " (it wrote a result but reported failure)" : "") +
                    "; report this to the plugin author"};
    error.details["status"] = raw.status;
    return error;
}

void add_unique(std::vector<std::string>& out, const std::string& hint) {
    if (std::find(out.begin(), out.end(), hint) == out.end()) out.push_back(hint);
}

// Manifest hints for the code first (the plugin knows its errors best), then what the error already
// carries, then the host's generic advice.
void add_suggestions(Error& error, const manifest::SkillSpec* spec) {
    std::vector<std::string> merged;
    if (spec) {
        for (const auto& hint : spec->error_hints)
            if (hint.code == error.code)
                for (const auto& s : hint.suggestions) add_unique(merged, s);
    }
    for (const auto& s : error.suggestions) add_unique(merged, s);
    for (const auto& s : generic_suggestions(error.code)) add_unique(merged, s);
    error.suggestions = std::move(merged);
}

// A cooperative plugin sees is_cancelled() turn true at its deadline (host services report a
// passed deadline as cancellation) and may return CANCELLED a moment before the executor's own
// wait times out. That is still a timeout, unless the caller asked to cancel.
bool stopped_by_deadline(const plugin::RawOutcome& raw, std::optional<Clock::time_point> deadline,
                         const std::atomic<bool>* caller_cancel) {
    if (!deadline || Clock::now() < *deadline) return false;
    if (caller_cancel && caller_cancel->load()) return false;
    return raw.status == SKILLHOST_STATUS_CANCELLED || raw.error_code == errors::kCancelled.name;
}

Error timeout_error(const std::string& skill_id, const std::string& plugin_name, std::chrono::milliseconds timeout) {
    Error error{errors::kTimeout, skill_id + " did not finish within " + std::to_string(timeout.count()) +
                                      " ms and was asked to stop; ask for less at once or allow a larger timeout"};
    error.details["timeout_ms"] = timeout.count();
    error.details["plugin"] = plugin_name;
    return error;
}

}  // namespace

boost::json::object SkillResult::to_json() const {
    json::object out;
    out["ok"] = ok;
    if (ok) {
        out["result"] = output;
        if (!content.empty()) out["content"] = content;
    } else
        out["error"] = error.to_json();
    out["skill"] = skill_id;
    if (!plugin_name.empty()) out["plugin"] = plugin_name;
    out["call_id"] = call_id;
    out["duration_ms"] = static_cast<double>(duration.count()) / 1000.0;
    return out;
}

namespace {

// Lets the caller's services run only while the call is unanswered. Shared with the services
// handed to the plugin side, which a runner connection may still hold (and call) after the call's
// state is gone.
struct BlockingGate {
    std::mutex mutex;
    std::condition_variable idle;
    bool open = true;
    int running = 0;
    std::atomic<bool> ended{false};  // what the caller's service watches to return early

    // Runs `service` and returns true, or returns false when the gate already closed.
    template <class Service>
    bool run(Service service) {
        {
            std::lock_guard lock(mutex);
            if (!open) return false;
            ++running;
        }
        struct Leave {
            BlockingGate* gate;
            ~Leave() {
                std::lock_guard lock(gate->mutex);
                --gate->running;
                gate->idle.notify_all();
            }
        } leave{this};
        service();
        return true;
    }

    template <class Service>
    Result<std::string> pass(Service service) {
        Result<std::string> answer = Error{errors::kCancelled, "the call already ended"};
        run([&] { answer = service(); });
        return answer;
    }

    // No service starts after this; the running ones are told and waited for.
    void close() {
        std::unique_lock lock(mutex);
        open = false;
        ended.store(true);
        if (running == 0) return;
        idle.wait(lock, [&] { return running == 0; });
    }
};

// The caller's services behind the call's gate: none runs once the call is answered, and the
// blocking ones watch the gate's `ended` rather than the plugin's flag.
class GatedServices final : public plugin::CallServices {
public:
    GatedServices(std::shared_ptr<plugin::CallServices> inner, std::shared_ptr<BlockingGate> gate)
        : inner_(std::move(inner)), gate_(std::move(gate)) {}

    void progress(double progress, double total, std::string_view message) override {
        gate_->run([&] { inner_->progress(progress, total, message); });
    }
    void log(skillhost_log_level level, std::string_view message) override {
        gate_->run([&] { inner_->log(level, message); });
    }
    bool samples() const override { return inner_->samples(); }
    Result<std::string> sample(std::string_view role, std::string_view request_json,
                               const std::atomic<bool>&) override {
        return gate_->pass([&] { return inner_->sample(role, request_json, gate_->ended); });
    }
    Result<std::string> elicit(std::string_view request_json, const std::atomic<bool>&) override {
        return gate_->pass([&] { return inner_->elicit(request_json, gate_->ended); });
    }
    std::optional<std::chrono::milliseconds> running_long_after() const override {
        return inner_->running_long_after();
    }
    void running_long() override { inner_->running_long(); }

private:
    const std::shared_ptr<plugin::CallServices> inner_;
    const std::shared_ptr<BlockingGate> gate_;
};

// One call between start() and its answer. Whoever claims `answered` first answers: the thread that
// ran the plugin, or the deadline watcher (timeout, cancel, shutdown). The loser's work is dropped.
class CallState final : public WatchedCall, public PoolJob {
public:
    std::shared_ptr<plugin::LoadedPlugin> plugin;  // keeps the library (and spec) loaded
    const manifest::SkillSpec* spec = nullptr;
    std::string plugin_name;
    plugin::Call context;
    plugin::CallControl control;
    std::string args_json;
    std::shared_ptr<std::mutex> serial;
    std::chrono::milliseconds timeout{0};
    std::optional<Clock::time_point> deadline_at;
    std::optional<Clock::time_point> long_at;
    std::shared_ptr<plugin::CallServices> front_end;  // told when the call runs long (ungated)
    std::shared_ptr<std::atomic<bool>> cancel;
    Clock::time_point started;
    std::string call_id;
    CallCompletion done;

    std::optional<Clock::time_point> deadline() const override { return deadline_at; }
    bool cancel_requested() const override { return cancel && cancel->load(std::memory_order_acquire); }
    std::optional<Clock::time_point> long_after() const override { return long_at; }
    void running_long() noexcept override {
        try {
            front_end->running_long();
        } catch (const std::exception& e) {
            spdlog::error("executor: reporting the long-running call {} failed: {}", call_id, e.what());
        }
    }

    void expire(Expiry why) noexcept override {
        if (answered_.exchange(true, std::memory_order_acq_rel)) return;
        control.cancelled.store(true);
        stop_listening();
        try {
            if (why == Expiry::deadline) {
                // Worth a log line: the plugin still holds its thread until it returns.
                spdlog::warn("skill {} of plugin {} (call {}) timed out after {} ms; asked it to stop", spec->id,
                             plugin_name, call_id, timeout.count());
                return answer(fail(timeout_error(spec->id, plugin_name, timeout)));
            }
            const bool running = entered_.load(std::memory_order_acquire);
            Error error{errors::kCancelled,
                        why == Expiry::shutdown
                            ? "the call to " + spec->id + " was stopped because the host is shutting down"
                        : running ? "the call to " + spec->id + " was cancelled while running; it was asked to stop"
                                  : "the call to " + spec->id + " was cancelled before it started"};
            error.details["plugin"] = plugin_name;
            answer(fail(std::move(error)));
        } catch (const std::exception& e) {
            spdlog::error("executor: answering call {} failed: {}", call_id, e.what());
        }
    }

    // Runs the plugin on this thread and answers unless the watcher answered first.
    void run() noexcept override {
        plugin::RawOutcome outcome;
        std::string host_failure;  // an exception that escaped invoke() (the host's side, e.g. bad_alloc)
        bool invoked = false;
        try {
            std::unique_lock<std::mutex> serial_lock;
            if (serial) serial_lock = std::unique_lock(*serial);
            // A call already answered (timed out or cancelled while queued or waiting for the serial
            // lock) is not started at all.
            if (!answered_.load(std::memory_order_acquire)) {
                entered_.store(true, std::memory_order_release);
                invoked = true;
                outcome = plugin->invoke(context, args_json);
            }
        } catch (const std::exception& e) {
            host_failure = e.what();
        } catch (...) {
            host_failure = "unknown exception";
        }
        // Lost to the watcher: wait until its answer is out. A caller that ran the call on its own
        // thread (RunOn::this_thread) takes "start() returned without calling me" to mean "answered
        // elsewhere", and must not send an answer of its own while the watcher's is still on its way.
        if ((!invoked && host_failure.empty()) || answered_.exchange(true, std::memory_order_acq_rel))
            return delivered_.wait(false, std::memory_order_acquire);
        stop_watching();
        stop_listening();
        try {
            SkillResult result = interpret_outcome(outcome, host_failure);
            if (result.ok) result.content = control.content.take();
            answer(std::move(result));
        } catch (const std::exception& e) {
            spdlog::error("executor: answering call {} failed: {}", call_id, e.what());
        }
    }

    // Answers before the call started (it will not run).
    void refuse(Error error) {
        answered_.store(true);
        stop_watching();
        answer(fail(std::move(error)));
    }

    // The front end's services for this call, passed on only until the call is answered.
    void serve(std::shared_ptr<plugin::CallServices> services) {
        if (!services) return;
        control.services = std::make_shared<GatedServices>(std::move(services), gate_);
    }

private:
    SkillResult fail(Error error) const {
        SkillResult result = failed_call(spec->id, std::move(error), spec);
        result.plugin_name = plugin_name;
        result.call_id = call_id;
        result.duration = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
        return result;
    }

    SkillResult interpret_outcome(const plugin::RawOutcome& raw, const std::string& host_failure) const {
        if (!host_failure.empty())
            return fail(Error{errors::kPluginErrorUnspecified, "calling " + spec->id + " of plugin " + plugin_name +
                                                                   " failed inside the host: " + host_failure +
                                                                   "; try again"});
        if (stopped_by_deadline(raw, deadline_at, cancel.get()))
            return fail(timeout_error(spec->id, plugin_name, timeout));
        if (raw.extra_writes > 0)
            spdlog::warn("plugin {} skill {} (call {}) wrote {} answer(s) after its first; only the first counts",
                         plugin_name, spec->id, call_id, raw.extra_writes);
        SkillResult result;
        if (auto error = interpret(raw, plugin_name, spec->id, result.output)) {
            error->details["plugin"] = plugin_name;
            return fail(std::move(*error));
        }
        // Every front end hands results to clients that check them against the declared outputs.
        if (auto checked = check_result(spec->id, plugin_name, spec->outputs, result.output); !checked)
            return fail(checked.error());
        result.ok = true;
        result.skill_id = spec->id;
        result.plugin_name = plugin_name;
        result.call_id = call_id;
        result.duration = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
        return result;
    }

    void answer(SkillResult result) {
        struct Delivered {
            std::atomic<bool>& flag;
            ~Delivered() {
                flag.store(true, std::memory_order_release);
                flag.notify_all();
            }
        } delivered{delivered_};
        CallCompletion callback = std::move(done);
        callback(std::move(result));
    }

    // After this returns no caller service runs: they may capture the caller's stack. A blocking
    // one (sampling, elicitation) is told the call ended and is waited for; it returns soon.
    void stop_listening() { gate_->close(); }

    std::atomic<bool> answered_{false};
    std::atomic<bool> entered_{false};
    std::atomic<bool> delivered_{false};  // the winner's answer() has returned
    std::shared_ptr<BlockingGate> gate_ = std::make_shared<BlockingGate>();
};

// Where a synchronous caller waits for its answer.
struct Rendezvous {
    std::mutex mutex;
    std::condition_variable arrived;
    std::optional<SkillResult> result;
};

}  // namespace

SkillResult failed_call(std::string_view skill_id, Error error, const manifest::SkillSpec* spec) {
    add_suggestions(error, spec);
    SkillResult result;
    result.ok = false;
    result.skill_id = std::string(skill_id);
    result.error = std::move(error);
    return result;
}

Executor::Executor()
    : directories_(std::make_unique<KnownDirectories>()),
      call_counter_(0),
      watcher_(std::make_unique<DeadlineWatcher>()) {
    WorkerPoolOptions options;
    options.keep_workers = std::max(2u, std::thread::hardware_concurrency());
    options.max_queued = call_queue_limit;
    pool_ = std::make_unique<WorkerPool>(options);
    // Call ids start at a random point so ids from different host runs do not collide in logs.
    std::random_device random;
    call_counter_ = (static_cast<std::uint64_t>(random()) << 20) ^ random();
}

Executor::~Executor() = default;

std::string Executor::next_call_id() {
    // "call-" + 10 hex digits fits std::string's small buffer (no allocation).
    std::uint64_t n = call_counter_.fetch_add(1, std::memory_order_relaxed);
    std::string id = "call-0000000000";
    for (std::size_t i = id.size(); i > 5; --i, n >>= 4) id[i - 1] = "0123456789abcdef"[n & 0xf];
    return id;
}

std::shared_ptr<std::mutex> Executor::serial_mutex_for(const PreparedCall& call) {
    // Keyed by the loaded plugin instance: a reloaded version is a different library with its own
    // state, so it does not need to wait for calls into the old one.
    std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(call.plugin().get()));
    key += '/';
    key += call.spec().id;
    std::lock_guard lock(serial_mutexes_guard_);
    auto& slot = serial_mutexes_[key];
    if (!slot) slot = std::make_shared<std::mutex>();
    return slot;
}

void Executor::start(const PreparedCall& call, plugin::Call caller, CallOptions options, CallCompletion done,
                     RunOn where) {
    const manifest::SkillSpec& spec = call.spec();
    std::shared_ptr<CallState> state;
    try {
        state = std::make_shared<CallState>();
        state->started = Clock::now();
        state->plugin = call.plugin();
        state->spec = &spec;
        state->plugin_name = call.plugin()->manifest().name;
        state->call_id = next_call_id();
        state->done = std::move(done);
        state->cancel = options.cancel;
    } catch (const std::exception& e) {
        SkillResult result =
            failed_call(spec.id, Error{errors::kExecutorUnavailable, std::string("the host could not run the call: ") +
                                                                         e.what() + "; wait a moment and retry"});
        if (state && state->done) return state->done(std::move(result));
        if (done) done(std::move(result));
        return;
    }
    try {
        if (!is_valid_user_id(caller.user_id)) {
            Error error{errors::kInvalidUserId, "user id \"" + text_prefix(caller.user_id, 40) +
                                                    "\" is not a valid user id; use " + std::string(user_id_rule)};
            error.details["user_id"] = text_prefix(caller.user_id, 128);
            return state->refuse(std::move(error));
        }
        if (options.cancel && options.cancel->load())
            return state->refuse(
                Error{errors::kCancelled, "the call to " + spec.id + " was cancelled before it started"});

        state->timeout = options.timeout.value_or(std::chrono::milliseconds(spec.timeout_ms));
        if (state->timeout.count() > 0) state->deadline_at = state->started + state->timeout;
        if (options.services)
            if (const auto after = options.services->running_long_after()) {
                state->front_end = options.services;
                state->long_at = state->started + *after;
            }

        plugin::Call& context = state->context;
        context = std::move(caller);
        context.skill_id = spec.id;
        context.call_id = state->call_id;
        context.data_dir.clear();
        context.data_dir_ready = false;
        if (!options.users_dir.empty()) {
            // <users_dir>/<user>/plugins/<plugin>, joined as text: path::operator/ re-parses every
            // component, which shows in the per-call cost. The user id was checked to be one plain name.
            std::string dir = options.users_dir.native();
            if (dir.back() != '/') dir += '/';
            dir += context.user_id;
            dir += "/plugins/";
            dir += state->plugin_name;
            if (auto ec = directories_->ensure(dir)) {
                Error error{errors::kDataDirUnavailable, "cannot create the plugin data directory " + dir + " (" +
                                                             ec.message() +
                                                             "); check that the skillhost home is writable"};
                error.details["data_dir"] = dir;
                error.details["reason"] = ec.message();
                return state->refuse(std::move(error));
            }
            context.data_dir = std::move(dir);
            context.data_dir_ready = true;
        }
        if (context.idempotency_key.size() > SKILLHOST_IDEMPOTENCY_KEY_MAX_BYTES) {
            Error error{errors::kIdempotencyKeyTooLong,
                        "the idempotency key of a call to " + spec.id + " has " +
                            std::to_string(context.idempotency_key.size()) + " bytes, more than " +
                            std::to_string(SKILLHOST_IDEMPOTENCY_KEY_MAX_BYTES),
                        {},
                        {"use a run id and step number or an approval id as the key"}};
            return state->refuse(std::move(error));
        }
        if (context.idempotency_key.empty()) context.idempotency_key = state->call_id;
        context.deadline_unix_ms = state->deadline_at ? unix_ms_deadline(state->timeout) : 0;
        context.control = &state->control;
        state->control.call = &context;
        state->serve(std::move(options.services));
        state->control.path_allowed = std::move(options.path_allowed);
        state->args_json = json::serialize(call.args());
        if (spec.concurrency == manifest::Concurrency::serial) state->serial = serial_mutex_for(call);

        watcher_->watch(state);
        if (where == RunOn::this_thread)
            state->run();
        else if (!pool_->submit(state))
            throw std::runtime_error("every worker is busy and " + std::to_string(call_queue_limit) +
                                     " calls already wait for one");
    } catch (const std::exception& e) {
        // Only before the call was handed on: afterwards nothing here throws.
        state->refuse(Error{errors::kExecutorUnavailable,
                            std::string("the host could not run the call: ") + e.what() + "; wait a moment and retry"});
    }
}

SkillResult Executor::run(const PreparedCall& call, const plugin::Call& caller, const CallOptions& options) {
    auto rendezvous = std::make_shared<Rendezvous>();
    start(call, caller, options, [rendezvous](SkillResult result) {
        {
            std::lock_guard lock(rendezvous->mutex);
            rendezvous->result = std::move(result);
        }
        rendezvous->arrived.notify_one();
    });
    std::unique_lock lock(rendezvous->mutex);
    rendezvous->arrived.wait(lock, [&] { return rendezvous->result.has_value(); });
    return std::move(*rendezvous->result);
}

SkillResult Executor::call(const catalog::CatalogSnapshot& catalog, std::string_view skill_id,
                           const boost::json::value& args, const plugin::Call& caller, const CallOptions& options) {
    const catalog::CatalogEntry* entry = catalog.find(skill_id);
    if (!entry) return failed_call(skill_id, skill_not_found(catalog, skill_id));
    auto prepared = prepare_call(*entry, args);
    if (!prepared) {
        SkillResult result = failed_call(skill_id, std::move(prepared.error()), entry->spec);
        result.plugin_name = entry->plugin->manifest().name;
        return result;
    }
    return run(prepared.value(), caller, options);
}

}  // namespace skillhost::exec
