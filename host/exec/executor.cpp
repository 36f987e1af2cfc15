#include "exec/executor.hpp"

#include "base/user_id.hpp"
#include "exec/argument_validation.hpp"
#include "exec/error_suggestions.hpp"
#include "exec/near_names.hpp"
#include "exec/worker_pool.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <random>
#include <thread>

namespace skillhost::exec {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

// How long a caller spins for a result before blocking: long enough to cover a trivial skill's
// round trip through a running worker, short enough not to matter for anything slower.
constexpr auto caller_spin = std::chrono::microseconds(30);
// How often a blocked caller looks at an external cancel flag (nobody signals it).
constexpr auto cancel_poll = std::chrono::milliseconds(2);

// One call as shared between the caller and the worker running it. The worker keeps it (and so
// the plugin) alive after a caller that gave up at its deadline has returned.
class CallJob final : public PoolJob {
public:
    std::shared_ptr<plugin::LoadedPlugin> plugin;
    plugin::CallContext context;
    plugin::CallControl control;
    std::string args_json;
    std::shared_ptr<std::mutex> serial;

    plugin::RawOutcome outcome;
    std::string host_failure;  // an exception that escaped invoke() (the host's side, e.g. bad_alloc)

    std::atomic<bool> done{false};
    std::atomic<bool> abandoned{false};

    void run() noexcept override {
        try {
            std::unique_lock<std::mutex> serial_lock;
            if (serial) serial_lock = std::unique_lock(*serial);
            // A call whose caller already gave up (timed out while queued or waiting for the
            // serial lock) is not started at all.
            if (!abandoned.load(std::memory_order_acquire))
                outcome = plugin->invoke(context, args_json);
            else
                host_failure = "abandoned before it started";
        } catch (const std::exception& e) {
            host_failure = e.what();
        } catch (...) {
            host_failure = "unknown exception";
        }
        done.store(true, std::memory_order_seq_cst);
        if (caller_waiting.load(std::memory_order_seq_cst)) {
            { std::lock_guard lock(mutex); }  // orders with the caller's check; notify unlocked
            finished.notify_one();
        }
    }

    // Forwards progress to the caller's callback until the caller stops listening.
    void forward_progress_to(std::function<void(double, double, std::string_view)> callback) {
        caller_progress = std::move(callback);
        control.on_progress = [this](double progress, double total, std::string_view message) {
            std::lock_guard lock(progress_mutex);
            if (caller_listening) caller_progress(progress, total, message);
        };
    }

    // After this returns no progress callback runs: the caller's callback may capture its stack.
    void stop_listening() {
        std::lock_guard lock(progress_mutex);
        caller_listening = false;
    }

    enum class Wait { finished, timed_out, cancelled };

    Wait wait(std::optional<Clock::time_point> deadline, const std::atomic<bool>* cancel) {
        const auto spin_until = Clock::now() + caller_spin;
        unsigned spins = 0;
        while (!done.load(std::memory_order_acquire)) {
            hand_off_pause();
            if ((++spins & 63) == 0 && Clock::now() >= spin_until) break;
        }
        if (done.load(std::memory_order_acquire)) return Wait::finished;

        std::unique_lock lock(mutex);
        caller_waiting.store(true, std::memory_order_seq_cst);
        while (!done.load(std::memory_order_seq_cst)) {
            if (cancel && cancel->load(std::memory_order_acquire)) return Wait::cancelled;
            const auto now = Clock::now();
            if (deadline && now >= *deadline) return Wait::timed_out;
            auto wake_at = deadline.value_or(Clock::time_point::max());
            if (cancel) wake_at = std::min(wake_at, now + cancel_poll);
            if (wake_at == Clock::time_point::max())
                finished.wait(lock);
            else
                finished.wait_until(lock, wake_at);
        }
        return Wait::finished;
    }

private:
    std::mutex mutex;
    std::condition_variable finished;
    std::atomic<bool> caller_waiting{false};

    std::mutex progress_mutex;
    bool caller_listening = true;
    std::function<void(double, double, std::string_view)> caller_progress;
};

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
    Error error;
    error.code = raw.error_code;
    error.message = raw.error_message;
    if (!is_error_code(error.code)) {
        error.details["reported_code"] = raw.error_code;
        error.code = "PLUGIN_ERROR_UNSPECIFIED";
    }
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
            return Error{"PLUGIN_NO_RESULT", who +
                                                 " returned OK without writing a result; report this to the "
                                                 "plugin author"};
        boost::system::error_code ec;
        output = json::parse(raw.result_json, ec);
        if (ec) {
            Error error{"PLUGIN_INVALID_RESULT", who + " returned a result that is not valid JSON (" + ec.message() +
                                                     "): '" + text_prefix(raw.result_json) +
                                                     "'; report this to the plugin author"};
            error.details["result_prefix"] = text_prefix(raw.result_json, 200);
            error.details["parse_error"] = ec.message();
            return error;
        }
        return std::nullopt;
    }
    if (raw.status == SKILLHOST_STATUS_CANCELLED)
        return Error{"CANCELLED", who + " stopped because it was asked to; call again if the result is still needed"};
    Error error{"PLUGIN_ERROR_UNSPECIFIED",
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
    return raw.status == SKILLHOST_STATUS_CANCELLED || raw.error_code == "CANCELLED";
}

Error timeout_error(const std::string& skill_id, const std::string& plugin_name, std::chrono::milliseconds timeout) {
    Error error{"TIMEOUT", skill_id + " did not finish within " + std::to_string(timeout.count()) +
                               " ms and was asked to stop; ask for less at once or allow a larger timeout"};
    error.details["timeout_ms"] = timeout.count();
    error.details["plugin"] = plugin_name;
    return error;
}

}  // namespace

boost::json::object SkillResult::to_json() const {
    json::object out;
    out["ok"] = ok;
    if (ok)
        out["result"] = output;
    else
        out["error"] = error.to_json();
    out["skill"] = skill_id;
    if (!plugin_name.empty()) out["plugin"] = plugin_name;
    out["call_id"] = call_id;
    out["duration_ms"] = static_cast<double>(duration.count()) / 1000.0;
    return out;
}

Executor::Executor() : call_counter_(0) {
    WorkerPoolOptions options;
    options.keep_workers = std::max(2u, std::thread::hardware_concurrency());
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

std::shared_ptr<std::mutex> Executor::serial_mutex_for(const catalog::CatalogEntry& entry) {
    // Keyed by the loaded plugin instance: a reloaded version is a different library with its own
    // state, so it does not need to wait for calls into the old one.
    std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(entry.plugin.get()));
    key += '/';
    key += entry.spec->id;
    std::lock_guard lock(serial_mutexes_guard_);
    auto& slot = serial_mutexes_[key];
    if (!slot) slot = std::make_shared<std::mutex>();
    return slot;
}

SkillResult Executor::call(const catalog::CatalogSnapshot& catalog, std::string_view skill_id,
                           const boost::json::value& args, const CallerContext& caller, const CallOptions& options) {
    const auto started = Clock::now();
    SkillResult result;
    result.skill_id = std::string(skill_id);
    const catalog::CatalogEntry* entry = nullptr;
    auto fail = [&](Error error) -> SkillResult& {
        add_suggestions(error, entry ? entry->spec : nullptr);
        result.ok = false;
        result.error = std::move(error);
        result.duration = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
        return result;
    };

    try {
        result.call_id = next_call_id();
        entry = catalog.find(skill_id);
        if (!entry) {
            std::vector<std::string_view> ids;
            ids.reserve(catalog.entries().size());
            for (const auto& e : catalog.entries()) ids.push_back(e.spec->id);
            auto similar = near_names(skill_id, ids);
            Error error{"SKILL_NOT_FOUND", "no skill named \"" + std::string(skill_id) + "\" in the catalog"};
            if (!similar.empty()) {
                error.message += "; did you mean " + similar.front() + "?";
                for (const auto& s : similar) error.suggestions.push_back("Did you mean " + s + "?");
            } else {
                error.message += "; pick a skill id from the catalog";
            }
            json::array listed;
            for (const auto& s : similar) listed.emplace_back(s);
            error.details["skill"] = skill_id;
            error.details["similar"] = std::move(listed);
            return fail(std::move(error));
        }
        const manifest::SkillSpec& spec = *entry->spec;
        const std::string& plugin_name = entry->plugin->manifest().name;
        result.plugin_name = plugin_name;

        auto prepared = prepare_arguments(spec.id, spec.inputs, args);
        if (!prepared) return fail(std::move(prepared.error()));

        if (!is_valid_user_id(caller.user_id)) {
            Error error{"INVALID_USER_ID", "user id \"" + text_prefix(caller.user_id, 40) +
                                               "\" is not a valid user id; use " + std::string(user_id_rule)};
            error.details["user_id"] = text_prefix(caller.user_id, 128);
            return fail(std::move(error));
        }
        if (options.cancel && options.cancel->load()) {
            Error error{"CANCELLED", "the call to " + spec.id + " was cancelled before it started"};
            return fail(std::move(error));
        }

        const std::chrono::milliseconds timeout = options.timeout.value_or(std::chrono::milliseconds(spec.timeout_ms));
        std::optional<Clock::time_point> deadline;
        if (timeout.count() > 0) deadline = started + timeout;

        auto job = std::make_shared<CallJob>();
        job->plugin = entry->plugin;
        job->context.skill_id = spec.id;
        job->context.call_id = result.call_id;
        job->context.user_id = caller.user_id;
        job->context.cognitive_mode = caller.cognitive_mode;
        if (!caller.users_dir.empty()) {
            // <users_dir>/<user>/plugins/<plugin>, joined as text: path::operator/ re-parses every
            // component, which shows in the per-call cost. The user id was checked to be one plain name.
            std::string dir = caller.users_dir.native();
            if (dir.back() != '/') dir += '/';
            dir += caller.user_id;
            dir += "/plugins/";
            dir += plugin_name;
            job->context.data_dir = std::move(dir);
        }
        job->context.workspace_root = caller.workspace_root;
        job->context.deadline_unix_ms = deadline ? unix_ms_deadline(timeout) : 0;
        job->context.control = &job->control;
        if (options.on_progress) job->forward_progress_to(options.on_progress);
        job->control.path_allowed = options.path_allowed;
        job->args_json = json::serialize(*prepared);
        if (spec.concurrency == manifest::Concurrency::serial) job->serial = serial_mutex_for(*entry);

        pool_->submit(job);
        const auto waited = job->wait(deadline, options.cancel.get());
        if (waited != CallJob::Wait::finished) {
            job->control.cancelled.store(true);
            job->abandoned.store(true, std::memory_order_release);
            job->stop_listening();
            if (waited == CallJob::Wait::timed_out) {
                // Worth a log line: the plugin still holds a worker thread until it returns.
                spdlog::warn("skill {} of plugin {} (call {}) timed out after {} ms; asked it to stop", spec.id,
                             plugin_name, result.call_id, timeout.count());
                return fail(timeout_error(spec.id, plugin_name, timeout));
            }
            Error error{"CANCELLED", "the call to " + spec.id + " was cancelled while running; it was asked to stop"};
            error.details["plugin"] = plugin_name;
            return fail(std::move(error));
        }
        job->stop_listening();

        if (!job->host_failure.empty()) {
            Error error{"PLUGIN_ERROR_UNSPECIFIED", "calling " + spec.id + " of plugin " + plugin_name +
                                                        " failed inside the host: " + job->host_failure +
                                                        "; try again"};
            return fail(std::move(error));
        }
        const auto& raw = job->outcome;
        if (stopped_by_deadline(raw, deadline, options.cancel.get()))
            return fail(timeout_error(spec.id, plugin_name, timeout));
        if (raw.extra_writes > 0)
            spdlog::warn("plugin {} skill {} (call {}) wrote {} answer(s) after its first; only the first counts",
                         plugin_name, spec.id, result.call_id, raw.extra_writes);
        if (auto error = interpret(raw, plugin_name, spec.id, result.output)) {
            error->details["plugin"] = plugin_name;
            return fail(std::move(*error));
        }
        // Every front end hands results to clients that check them against the declared outputs.
        if (auto checked = check_result(spec.id, plugin_name, spec.outputs, result.output); !checked)
            return fail(std::move(checked.error()));
        result.ok = true;
        result.duration = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
        return result;
    } catch (const std::exception& e) {
        return fail(Error{"EXECUTOR_UNAVAILABLE",
                          std::string("the host could not run the call: ") + e.what() + "; wait a moment and retry"});
    }
}

}  // namespace skillhost::exec
