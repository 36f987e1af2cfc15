#include "plugin/process_plugin.hpp"
#include "plugin/error_codes.hpp"

#include "plugin/data_dir_budget.hpp"
#include "plugin/runner_cgroups.hpp"
#include "plugin/runner_sandbox_args.hpp"
#include "plugin/supervision_counters.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <thread>

#include <unistd.h>
#include <utility>

namespace skillhost::plugin {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto max_backoff = std::chrono::milliseconds(5000);

RawOutcome error_outcome(const Error& error) {
    return RawOutcome::from_error(error);
}

// The functions of the tables an isolated plugin's resources and prompts are offered through: the
// host sends requests to the runner instead (request_resources, request_prompts), never through these.
skillhost_status not_here(const skillhost_result_writer* writer) {
    static constexpr std::string_view code = errors::kExtensionIsolated.name;
    static constexpr std::string_view message =
        "this plugin runs in a runner process: ask it through the host, not through this table";
    if (writer)
        writer->write_error(writer->writer_context, {code.data(), code.size()}, {message.data(), message.size()}, {});
    return SKILLHOST_STATUS_UNAVAILABLE;
}
skillhost_status no_list(void*, const skillhost_call_context*, const skillhost_result_writer* w) {
    return not_here(w);
}
skillhost_status no_read(void*, const skillhost_call_context*, skillhost_string_view,
                         const skillhost_result_writer* w) {
    return not_here(w);
}
skillhost_status no_get(void*, const skillhost_call_context*, skillhost_string_view, skillhost_string_view,
                        const skillhost_result_writer* w) {
    return not_here(w);
}

// What an extension request answers when the plugin lacks that function (as in-process).
bool offers(const wire::PublishedExtensions& p, ResourceRequest request) {
    return p.resources && (request == ResourceRequest::list             ? p.resources_list
                           : request == ResourceRequest::list_templates ? p.resources_list_templates
                                                                        : p.resources_read);
}
bool offers(const wire::PublishedExtensions& p, PromptRequest request) {
    return p.prompts && (request == PromptRequest::list  ? p.prompts_list
                         : request == PromptRequest::get ? p.prompts_get
                                                         : p.prompts_complete);
}

bool crash_code(const RawOutcome& outcome) {
    return outcome.written == RawOutcome::Written::error &&
           (outcome.error_code == errors::kPluginCrashed.name || outcome.error_code == errors::kPluginKilled.name);
}

}  // namespace

Result<std::shared_ptr<LoadedPlugin>> ProcessPlugin::start(const manifest::Manifest& manifest,
                                                           const LoaderOptions& options) {
    Result<std::filesystem::path> runner = find_runner(options.isolation.runner);
    if (!runner) return runner.error();
    if (std::optional<Error> missing = missing_sandbox_mechanism(options.isolation)) return *missing;
    // The check runner has no user: no data directory, no workspace.
    std::shared_ptr<ProcessPlugin> plugin(new ProcessPlugin(manifest, options, runner.value(), {}));
    if (::geteuid() == 0 && options.isolation.sandbox != SandboxMode::off) {
        Result<RunnerIdentity> identity = resolve_runner_identity(options.isolation.runner_user);
        if (!identity) return identity.error();
        plugin->identity_ = identity.value();
    }
    Result<std::shared_ptr<RunnerConnection>> probe = RunnerConnection::start(plugin->launch_for(nullptr));
    if (!probe) return probe.error();
    plugin->ready_ = probe.value()->ready_info();
    plugin->info_.description = plugin->ready_.has_info ? plugin->ready_.description.c_str() : nullptr;
    plugin->info_.homepage = plugin->ready_.has_info ? plugin->ready_.homepage.c_str() : nullptr;
    plugin->publish_extension_tables();
    return std::shared_ptr<LoadedPlugin>(std::move(plugin));
}

ProcessPlugin::ProcessPlugin(manifest::Manifest manifest, LoaderOptions options, std::filesystem::path runner,
                             wire::ReadyInfo ready)
    : manifest_(std::move(manifest)),
      options_(std::move(options)),
      runner_(std::move(runner)),
      library_(manifest_.library_path()),
      ready_(std::move(ready)),
      supervision_(std::make_shared<Supervision>()) {}

ProcessPlugin::~ProcessPlugin() {
    // Each connection closes its socket; the runners finish, call shutdown() and exit.
    std::lock_guard lock(runners_mutex_);
    for (auto& [user, runner] : runners_) runner->begin_close();
    runners_.clear();
}

void ProcessPlugin::publish_extension_tables() {
    wire::PublishedExtensions& p = ready_.published;
    // The runner is not trusted to keep the limits the plugin's static strings have in-process.
    if (p.resources && (p.resources_governing_skill.size() > wire::max_governing_skill_bytes ||
                        p.uri_prefix.size() > wire::max_uri_prefix_bytes)) {
        spdlog::warn(
            "[plugin {}] its runner reported a resources extension with a governing skill or URI prefix "
            "over the limit ({} / {} bytes); its resources are not shown",
            manifest_.name, wire::max_governing_skill_bytes, wire::max_uri_prefix_bytes);
        p.resources = false;
    }
    if (p.prompts && p.prompts_governing_skill.size() > wire::max_governing_skill_bytes) {
        spdlog::warn(
            "[plugin {}] its runner reported a prompts extension with a governing skill over {} bytes; its "
            "prompts are not shown",
            manifest_.name, wire::max_governing_skill_bytes);
        p.prompts = false;
    }
    auto governing = [](const std::string& name) { return name.empty() ? nullptr : name.c_str(); };
    if (p.resources)
        resources_ = skillhost_resources_v1{
            governing(p.resources_governing_skill), p.uri_prefix.c_str(), p.resources_list ? &no_list : nullptr,
            p.resources_list_templates ? &no_list : nullptr, p.resources_read ? &no_read : nullptr};
    if (p.prompts)
        prompts_ = skillhost_prompts_v1{governing(p.prompts_governing_skill), p.prompts_list ? &no_list : nullptr,
                                        p.prompts_get ? &no_get : nullptr, p.prompts_complete ? &no_read : nullptr};
}

const void* ProcessPlugin::extension(std::string_view id) const {
    if (id == SKILLHOST_EXT_PLUGIN_INFO && ready_.has_info) return &info_;
    if (id == SKILLHOST_EXT_RESOURCES && resources_) return &*resources_;
    if (id == SKILLHOST_EXT_PROMPTS && prompts_) return &*prompts_;
    return nullptr;
}

std::optional<Error> ProcessPlugin::quarantine() const {
    std::lock_guard lock(supervision_->mutex);
    return supervision_->quarantine;
}

boost::json::object ProcessPlugin::sandbox() const {
    std::error_code ec;
    boost::json::value parsed = boost::json::parse(ready_.sandbox_json, ec);
    boost::json::object out = !ec && parsed.is_object() ? parsed.get_object() : boost::json::object{};
    out["cgroup"] = runner_cgroups().describe();
    if (identity_) out["runner_user"] = identity_->described;
    if (options_.isolation.limits.disk_budget_mb > 0)
        out["disk_budget_bytes"] = options_.isolation.limits.disk_budget_mb << 20;
    return out;
}

boost::json::object ProcessPlugin::supervision() const {
    const IsolationOptions& iso = options_.isolation;
    std::size_t crashes = 0;
    {
        std::lock_guard lock(supervision_->mutex);
        const auto now = Clock::now();
        // The deque is pruned only when a runner exits, so old crashes are skipped here.
        crashes = static_cast<std::size_t>(std::count_if(supervision_->crashes.begin(), supervision_->crashes.end(),
                                                         [&](auto t) { return now - t <= iso.crash_window; }));
    }
    return boost::json::object{{"crashes", crashes},
                               {"crash_limit", iso.crash_limit},
                               {"window_s", std::chrono::duration_cast<std::chrono::seconds>(iso.crash_window).count()},
                               {"runners", runner_count()}};
}

std::size_t ProcessPlugin::runner_count() const {
    std::lock_guard lock(runners_mutex_);
    return static_cast<std::size_t>(
        std::count_if(runners_.begin(), runners_.end(), [](const auto& entry) { return entry.second->accepting(); }));
}

std::vector<pid_t> ProcessPlugin::runner_pids() const {
    std::lock_guard lock(runners_mutex_);
    std::vector<pid_t> pids;
    for (const auto& [user, runner] : runners_)
        if (runner->accepting()) pids.push_back(runner->process_pid());
    return pids;
}

RunnerLaunch ProcessPlugin::launch_for(const Call* context) const {
    const IsolationOptions& iso = options_.isolation;
    RunnerLaunch launch;
    launch.runner = runner_;
    launch.plugin_name = manifest_.name;
    if (context) launch.user_id = context->user_id;
    launch.max_result_bytes = iso.max_result_bytes;
    launch.completions = options_.completions;
    launch.storage = options_.storage;
    launch.kill_grace = iso.kill_grace;
    const manifest::Permissions& granted = manifest_.permissions;
    launch.llm_allowed = !granted.declared || granted.llm;
    RunnerSandboxArgs sandbox = runner_sandbox_args(iso, granted, identity_, manifest_.name);
    launch.args = {"--manifest",         manifest_.file.string(),
                   "--max-result-bytes", std::to_string(iso.max_result_bytes),
                   "--idle-ms",          std::to_string(iso.idle_timeout.count())};
    launch.args.insert(launch.args.end(), sandbox.args.begin(), sandbox.args.end());
    if (context && iso.limits.disk_budget_mb > 0) {
        launch.data_dir = context->data_dir;
        launch.disk_budget_bytes = iso.limits.disk_budget_mb << 20;
        launch.args.insert(launch.args.end(), {"--disk-budget-bytes", std::to_string(launch.disk_budget_bytes)});
    }
    // Counted by the host unless a cgroup takes it (pids_events).
    launch.max_tasks = iso.limits.max_tasks;
    launch.cgroup_leaf = std::move(sandbox.cgroup_leaf);
    launch.cgroup_pids_leaf = std::move(sandbox.cgroup_pids_leaf);
    launch.pids_events = std::move(sandbox.pids_events);
    if (context) {
        launch.args.insert(launch.args.end(), {"--data-dir", context->data_dir.string()});
        if (!context->workspace_root.empty())
            launch.args.insert(launch.args.end(), {"--workspace", context->workspace_root.string()});
    }
    launch.on_exit = [supervision = supervision_, plugin = manifest_.name, options = iso](const RunnerExit& exit) {
        record_exit(supervision, exit, plugin, options);
    };
    return launch;
}

void ProcessPlugin::record_exit(const std::shared_ptr<Supervision>& supervision, const RunnerExit& exit,
                                const std::string& plugin, const IsolationOptions& options) {
    if (exit.expected) return;
    Error event{exit.killed_by_host ? errors::kPluginKilled : errors::kPluginCrashed,
                "the runner of plugin '" + plugin + "' " + exit.description +
                    (exit.killed_by_host ? " (killed by the host: " + exit.kill_reason + ")" : std::string())};
    event.details["plugin"] = plugin;
    event.details["exit"] = exit.description;
    boost::json::array skills;
    for (const auto& skill : exit.skills) skills.push_back(boost::json::value(skill));
    event.details["skills"] = std::move(skills);
    if (exit.signal) event.details["signal"] = exit.signal;
    if (!exit.limit.empty()) event.details["limit"] = exit.limit;
    std::optional<Error> quarantined;
    {
        std::lock_guard lock(supervision->mutex);
        const auto now = Clock::now();
        supervision_counters().count(plugin, exit.killed_by_host ? SupervisionEvent::kill : SupervisionEvent::crash);
        supervision->crashes.push_back(now);
        while (!supervision->crashes.empty() && now - supervision->crashes.front() > options.crash_window)
            supervision->crashes.pop_front();
        if (exit.skills.empty()) {
            // Died between calls (killed, OOM while idle, a plugin thread crashing): counted above,
            // but the next call starts a runner at once, as after an idle exit. A plugin dying this
            // way on every start is stopped by the quarantine, and starts happen only on calls.
            supervision->died_idle = true;
        } else {
            ++supervision->consecutive;
            auto backoff = options.restart_backoff * (1u << std::min(supervision->consecutive - 1, 10u));
            supervision->next_start = now + std::min<std::chrono::milliseconds>(backoff, max_backoff);
        }
        if (!supervision->quarantine && options.crash_limit > 0 && supervision->crashes.size() >= options.crash_limit) {
            const auto minutes = std::chrono::duration_cast<std::chrono::seconds>(options.crash_window).count();
            Error q{errors::kPluginQuarantined,
                    "plugin '" + plugin + "' is quarantined: its runner crashed " +
                        std::to_string(supervision->crashes.size()) + " times within " + std::to_string(minutes) +
                        " s (last: " + exit.description +
                        "); install a fixed version (hot reload lifts the quarantine) or ask its author"};
            q.details["plugin"] = plugin;
            q.details["crashes"] = supervision->crashes.size();
            q.details["window_s"] = minutes;
            q.details["last_exit"] = exit.description;
            supervision->quarantine = q;
            supervision_counters().count(plugin, SupervisionEvent::quarantine);
            quarantined = std::move(q);
        }
    }
    if (options.on_supervision_event) options.on_supervision_event(event);
    if (quarantined) {
        spdlog::error("{}", quarantined->message);
        if (options.on_supervision_event) options.on_supervision_event(*quarantined);
        // On this (reader) thread: the callback only hands the rebuild to a thread of its owner's
        // (IsolationOptions::on_quarantine), since a rebuild may drop the plugin, whose destructor
        // joins this thread.
        if (options.on_quarantine) options.on_quarantine(plugin);
    }
}

Result<std::shared_ptr<RunnerConnection>> ProcessPlugin::runner_for(const Call& context) const {
    std::lock_guard lock(runners_mutex_);
    auto found = runners_.find(context.user_id);
    if (found != runners_.end() && found->second->accepting()) return found->second;

    Clock::time_point start_at;
    bool restart = false;
    {
        std::lock_guard slock(supervision_->mutex);
        start_at = supervision_->next_start;
        restart = supervision_->consecutive > 0 || supervision_->died_idle;
        supervision_->died_idle = false;
    }
    const auto now = Clock::now();
    if (start_at > now) {
        std::optional<Clock::time_point> deadline;
        if (context.deadline_unix_ms > 0) {
            const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
            deadline = now + std::chrono::milliseconds(context.deadline_unix_ms - now_ms);
        }
        if (deadline && *deadline < start_at) {
            Error error{
                errors::kPluginRestarting,
                "plugin '" + manifest_.name + "' crashed recently and restarts in " +
                    std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(start_at - now).count()) +
                    " ms, after this call's deadline; call again in a moment"};
            error.details["plugin"] = manifest_.name;
            return error;
        }
        std::this_thread::sleep_until(start_at);
    }
    if (found != runners_.end()) runners_.erase(found);
    // The sandbox grants the data directory only if it exists when the runner starts (and keeps
    // granting that directory, so it is made here, once per runner, not per call).
    if (!context.data_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(context.data_dir, ec);
        if (ec) {
            Error error{errors::kDataDirUnavailable, "cannot create the plugin data directory " +
                                                         context.data_dir.string() + " (" + ec.message() +
                                                         "); check that the skillhost home is writable"};
            error.details["data_dir"] = context.data_dir.string();
            return error;
        }
        if (identity_)
            if (std::optional<Error> problem = hand_over_data_dir(context.data_dir, identity_->uid, identity_->gid))
                return *problem;
        if (std::optional<Error> over =
                data_dir_over_budget(measure_data_dir(context.data_dir), options_.isolation.limits.disk_budget_mb << 20,
                                     manifest_.name, context.data_dir))
            return *over;
    }
    if (std::optional<Error> missing = missing_sandbox_mechanism(options_.isolation)) return *missing;
    Result<std::shared_ptr<RunnerConnection>> started = RunnerConnection::start(launch_for(&context));
    if (!started) return started.error();
    if (restart) {
        std::lock_guard slock(supervision_->mutex);
        supervision_counters().count(manifest_.name, SupervisionEvent::restart);
    }
    runners_.emplace(context.user_id, started.value());
    return started;
}

RawOutcome ProcessPlugin::invoke(const Call& context, std::string_view args_json) const {
    if (std::optional<Error> quarantined = quarantine()) return error_outcome(*quarantined);
    if (manifest_.skill(context.skill_id) == nullptr) {
        Error error{errors::kSkillNotFound, "plugin '" + manifest_.name + "' has no skill '" + context.skill_id + "'"};
        error.details["plugin"] = manifest_.name;
        error.details["skill"] = context.skill_id;
        return error_outcome(error);
    }
    return in_runner(context, [&](RunnerConnection& runner) { return runner.call(context, args_json); });
}

RawOutcome ProcessPlugin::in_runner(const Call& context,
                                    const std::function<std::optional<RawOutcome>(RunnerConnection&)>& send) const {
    // A runner that retires (idle) between lookup and send, or that was found dead before the call
    // reached it, answers nullopt: take a fresh one. Retiring is not failing (a starved caller may be
    // slower than a short idle timeout several times in a row), so only deaths count toward giving
    // up; retirements are bounded too, so a timeout shorter than a start cannot loop for ever.
    constexpr int max_deaths = 3;
    constexpr int max_retirements = 32;
    int deaths = 0;
    int retirements = 0;
    for (;;) {
        Result<std::shared_ptr<RunnerConnection>> runner = runner_for(context);
        if (!runner) return error_outcome(runner.error());
        std::optional<RawOutcome> outcome = send(*runner.value());
        if (outcome) {
            if (!crash_code(*outcome)) {
                std::lock_guard lock(supervision_->mutex);
                supervision_->consecutive = 0;
            }
            return std::move(*outcome);
        }
        if (runner.value()->retired_idle() ? ++retirements >= max_retirements : ++deaths >= max_deaths) break;
    }
    if (retirements >= max_retirements) {
        Error error{errors::kRunnerStartFailed, "plugin '" + manifest_.name + "': its runner went idle and retired " +
                                                    std::to_string(retirements) +
                                                    " times before the call reached it; isolation.idle_timeout_ms (" +
                                                    std::to_string(options_.isolation.idle_timeout.count()) +
                                                    " ms) is too short for this machine's load: raise it"};
        error.details["plugin"] = manifest_.name;
        error.details["idle_timeout_ms"] = options_.isolation.idle_timeout.count();
        return error_outcome(error);
    }
    return error_outcome(Error{errors::kRunnerStartFailed, "plugin '" + manifest_.name +
                                                               "': its runner kept exiting before taking the call; "
                                                               "check the log"});
}

RawOutcome ProcessPlugin::run_extension(const Call& context, wire::ExtensionCall call, std::size_t max_bytes,
                                        const char* entry) const {
    if (std::optional<Error> quarantined = quarantine()) return error_outcome(*quarantined);
    call.max_bytes = static_cast<std::int64_t>(std::min(max_bytes, wire::max_extension_answer_bytes));
    return in_runner(context, [&](RunnerConnection& runner) { return runner.call_extension(context, call, entry); });
}

RawOutcome ProcessPlugin::request_resources(ResourceRequest request, const Call& context, std::string_view uri,
                                            std::size_t max_bytes) const {
    if (!offers(ready_.published, request)) return LoadedPlugin::request_resources(request, context, uri, max_bytes);
    wire::ExtensionCall call;
    call.kind = wire::ExtensionKind::resources;
    call.request = static_cast<std::int64_t>(request);
    call.name = std::string(uri);
    return run_extension(context, std::move(call), max_bytes,
                         request == ResourceRequest::read             ? "resources read()"
                         : request == ResourceRequest::list_templates ? "resources list_templates()"
                                                                      : "resources list()");
}

RawOutcome ProcessPlugin::request_prompts(PromptRequest request, const Call& context, std::string_view name,
                                          std::string_view json, std::size_t max_bytes) const {
    if (!offers(ready_.published, request))
        return LoadedPlugin::request_prompts(request, context, name, json, max_bytes);
    wire::ExtensionCall call;
    call.kind = wire::ExtensionKind::prompts;
    call.request = static_cast<std::int64_t>(request);
    call.name = std::string(name);
    call.json = std::string(json);
    return run_extension(context, std::move(call), max_bytes,
                         request == PromptRequest::list  ? "prompts list()"
                         : request == PromptRequest::get ? "prompts get()"
                                                         : "prompts complete()");
}

}  // namespace skillhost::plugin
