#include "plugin/foreign_plugin.hpp"

#include "manifest/schema_from_json.hpp"
#include "plugin/error_codes.hpp"
#include "plugin/foreign_package.hpp"
#include "plugin/foreign_result.hpp"
#include "plugin/foreign_session.hpp"
#include "plugin/plugin_loader.hpp"
#include "upstream/error_codes.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>

namespace skillhost::plugin {
namespace json = boost::json;
using upstream::Clock;

namespace {

constexpr auto kMaxBackoff = std::chrono::milliseconds(5000);
constexpr std::size_t kMaxInstances = 16;                      // users with a server process of their own at once
constexpr auto kWedgeProbe = std::chrono::milliseconds(2000);  // a live server answers ping by then

Error with_manifest(Error error, const manifest::ForeignServer& server) {
    error.details["manifest"] = server.file.string();
    error.details["plugin"] = server.name;
    return error;
}

class ForeignPlugin final : public LoadedPlugin {
public:
    // `listed`: what the server that was started to list its tools said of itself; `verdicts`: what
    // the pins said of that listing (the callable definitions are accepted without asking again).
    ForeignPlugin(manifest::ForeignServer server, ForeignOptions options, ForeignSandboxPlan plan,
                  const upstream::ServerInfo& listed, const upstream::ToolList& tools,
                  const std::vector<ListedDefinition>& definitions, const std::vector<PinVerdict>& verdicts,
                  std::string sandbox_report)
        : server_(std::move(server)), options_(std::move(options)), plan_(std::move(plan)) {
        std::error_code ec;
        if (json::value report = json::parse(sandbox_report, ec); !ec && report.is_object())
            sandbox_ = std::move(report.as_object());
        manifest_.name = server_.name;
        manifest_.version = server_.version.empty() ? listed.version : server_.version;
        manifest_.description = server_.description.empty()
                                    ? "Tools of the MCP server " + listed.name + " (" +
                                          (server_.command.empty() ? server_.url : server_.command) + ")"
                                    : server_.description;
        manifest_.abi = {1, 1};
        manifest_.permissions = server_.permissions;
        manifest_.file = server_.file;
        offer(tools);
        shared_->offered = offered_by(tools);
        for (std::size_t i = 0; i < verdicts.size() && i < definitions.size(); ++i) {
            if (verdicts[i].callable) {
                accepted_[definitions[i].tool] = definitions[i].hash;
            } else {
                spdlog::warn("MCP server '{}': {}", server_.name, blocked(definitions[i], verdicts[i]).message);
            }
        }
        for (const auto& rejected : tools.rejected)
            spdlog::warn("MCP server '{}': tool '{}' left out: {}", server_.name, rejected.name, rejected.reason);
    }

    // The same server as `previous` (its running instances, crashes, quarantine and accepted
    // definitions) offering the tools it now lists, as listing `generation` of its announced changes.
    ForeignPlugin(const ForeignPlugin& previous, const upstream::ToolList& tools, std::uint64_t generation)
        : server_(previous.server_),
          options_(previous.options_),
          plan_(previous.plan_),
          sandbox_(previous.sandbox_),
          manifest_(previous.manifest_),
          pins_(previous.pins_),
          shared_(previous.shared_),
          generation_(generation) {
        manifest_.skills.clear();
        offer(tools);
    }

    const manifest::Manifest& manifest() const override { return manifest_; }
    std::string_view version() const override { return manifest_.version; }
    manifest::AbiVersion abi_version() const override { return manifest_.abi; }
    const std::filesystem::path& loaded_from() const override { return server_.file; }
    bool isolated() const override { return true; }
    json::object sandbox() const override { return sandbox_; }

    std::optional<Error> quarantine() const override {
        std::lock_guard lock(mutex_);
        return quarantine_;
    }

    json::object supervision() const override {
        std::lock_guard lock(mutex_);
        std::size_t alive = 0;
        for (const auto& [user, slot] : slots_) alive += slot.session && !slot.session->channel->closed() ? 1 : 0;
        return json::object{{"crashes", crashes_.size()},
                            {"crash_limit", options_.isolation.crash_limit},
                            {"window_s", options_.isolation.crash_window.count() / 1000},
                            {"runners", alive}};
    }

    RawOutcome invoke(const Call& call, std::string_view args_json) const override {
        const auto tool = tools_.find(call.skill_id);
        if (tool == tools_.end()) {
            return RawOutcome::from_error(Error{
                errors::kSkillNotFound, "MCP server '" + server_.name + "' offers no skill '" + call.skill_id + "'"});
        }
        json::value args;
        std::error_code ec;
        args = json::parse(args_json, ec);
        if (ec || !args.is_object()) args = json::object();
        // Looked up at each call, outside the instances' lock: a changed value starts it again.
        auto secrets = inject_secrets(server_, options_.secrets.get(), call.user_id, true);
        if (!secrets) return RawOutcome::from_error(with_manifest(std::move(secrets.error()), server_));
        auto session = session_for(tool->second, call, std::move(secrets.value()));
        if (!session) return RawOutcome::from_error(session.error());
        const manifest::SkillSpec* spec = manifest_.skill(call.skill_id);
        auto deadline = Clock::now() + std::chrono::milliseconds(spec != nullptr ? spec->timeout_ms : 30000);
        if (call.deadline_unix_ms > 0) {
            const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
            deadline =
                Clock::now() + std::chrono::milliseconds(std::max<std::int64_t>(call.deadline_unix_ms - now_ms, 0));
        }
        const std::atomic<bool>* cancelled = call.control != nullptr ? &call.control->cancelled : nullptr;
        const ForeignElicitation::InFlight asking(
            *(*session)->elicitation, call.control != nullptr ? call.control->services : nullptr, cancelled);
        auto result = (*session)->client->call_tool(tool->second, std::move(args.as_object()), deadline, cancelled);
        if (result) {
            (*session)->redactor->redact(result.value());
            return outcome_of_tool_result(std::move(result.value()), call.control);
        }
        Error error = std::move(result.error());
        (*session)->redactor->redact(error);
        if (error.is(errors::kUpstreamTimeout) && !(cancelled != nullptr && cancelled->load()))
            end_if_wedged(call.user_id, *session, error);
        if (error.is(errors::kUpstreamClosed)) {
            const std::string reason =
                error.details.contains("reason") ? std::string(error.details["reason"].as_string()) : "";
            crashed(call.user_id, *session, reason);
            Error crash{errors::kPluginCrashed,
                        "MCP server '" + server_.name + "' ended while the call was in flight (" + reason +
                            "); the call was not resent: check whether it took effect before calling again"};
            crash.details["plugin"] = server_.name;
            crash.details["reason"] = reason;
            return RawOutcome::from_error(crash);
        }
        return RawOutcome::from_error(error);
    }

    std::shared_ptr<LoadedPlugin> relisted() const override {
        relist_announced();
        std::lock_guard lock(mutex_);
        if (shared_->generation == generation_ || !shared_->announced) return nullptr;
        return std::make_shared<ForeignPlugin>(*this, *shared_->announced, shared_->generation);
    }

private:
    void offer(const upstream::ToolList& tools) {
        for (const auto& tool : tools.tools) {
            if (!server_.offers(tool.name)) continue;
            manifest_.skills.push_back(skill_of(tool));
            tools_.emplace(manifest_.skills.back().id, tool.name);
        }
    }

    manifest::SkillSpec skill_of(const upstream::ToolDefinition& tool) const {
        const manifest::ToolOverride* set = server_.override_for(tool.name);
        const manifest::ToolDefaults& defaults = server_.defaults;
        manifest::SkillSpec spec;
        spec.id = server_.name + "__" + tool.name;
        spec.title = set && set->title ? *set->title : (tool.title.empty() ? tool.name : tool.title);
        spec.description = set && set->description ? *set->description : tool.description;
        if (spec.description.empty())
            spec.description = "Tool '" + tool.name + "' of MCP server '" + server_.name + "'.";
        spec.category = set && set->category ? *set->category : server_.name;
        spec.inputs = manifest::schema_from_json(tool.input_schema);
        spec.risk = set && set->risk ? *set->risk : defaults.risk;
        spec.cost = set && set->cost ? *set->cost : defaults.cost;
        spec.min_trust = set && set->min_trust ? *set->min_trust : defaults.min_trust;
        spec.requires_approval = set && set->requires_approval ? *set->requires_approval : defaults.requires_approval;
        spec.timeout_ms = set && set->timeout_ms ? *set->timeout_ms : defaults.timeout_ms;
        spec.concurrency = set && set->concurrency ? *set->concurrency : defaults.concurrency;
        if (set && set->annotations) {
            spec.annotations = *set->annotations;
        } else if (defaults.trust_upstream_annotations) {
            const auto hint = [&](std::string_view key) {
                const json::value* value = tool.annotations.if_contains(key);
                return value != nullptr && value->is_bool() && value->get_bool();
            };
            spec.annotations = {hint("readOnlyHint"), hint("destructiveHint"), hint("idempotentHint"),
                                hint("openWorldHint")};
        }
        if (set != nullptr) {
            spec.path_inputs = set->path_inputs;
            spec.error_hints = set->error_hints;
            spec.position = set->position;
        }
        auto foreign = std::make_shared<manifest::ForeignTool>();
        foreign->server = server_.name;
        foreign->tool = tool.name;
        foreign->input_schema = tool.input_schema;
        foreign->output_schema = tool.output_schema;
        foreign->annotations = tool.annotations;
        foreign->definition_hash = upstream::definition_hash(tool);
        spec.foreign = std::move(foreign);
        return spec;
    }

    // One user's instance of the server: its session (null before the first call and after it
    // ended) and when it may be started again after a crash.
    struct Slot {
        std::shared_ptr<ForeignSession> session;
        Clock::time_point next_start{};
        Clock::time_point last_used{};
    };

    // What every version of the server's plugin shares: a listing after list_changed makes a new
    // version for the catalog (relisted()), which serves from the same instances.
    struct Shared {
        std::mutex mutex;
        std::map<std::string, Slot> slots;  // by user id: one instance of the server per user
        std::deque<Clock::time_point> crashes;
        std::optional<Error> quarantine;
        // tool (kInstructionsPin: the instructions) -> the hash the pins accepted: calls against it
        // need no look-up; any other hash is shown to the pins first.
        std::map<std::string, std::string> accepted;
        // The tools (name -> definition hash) the server last said it offers, by the listing at load or
        // one after it said they changed; each different one is the next generation.
        std::map<std::string, std::string> offered;
        std::shared_ptr<const upstream::ToolList> announced;  // that listing, once it is not the load's
        std::uint64_t generation = 0;
    };

    // The calling user's running session, or a new one (after the backoff when the last ended).
    // Every new session lists the tools again, and a tool whose definition is not the pinned one
    // is refused, as it is when a running server says its tools changed.
    Result<std::shared_ptr<ForeignSession>> session_for(const std::string& tool, const Call& call,
                                                        InjectedSecrets secrets) const {
        std::lock_guard lock(mutex_);
        if (quarantine_) {
            slots_.clear();  // its processes end (a call still in flight keeps its own until it returns)
            return *quarantine_;
        }
        const auto now = Clock::now();
        Slot& slot = slots_[call.user_id];
        slot.last_used = now;
        if (slot.session && slot.session->secrets_fingerprint != secrets.fingerprint) {
            // The user changed a secret: this instance was started with the old value (a call still
            // in flight on it keeps it until it returns; no crash is counted).
            spdlog::info("MCP server '{}': user '{}' changed a secret; their instance starts again", server_.name,
                         call.user_id);
            slot.session.reset();
        }
        if (slot.session && !slot.session->channel->closed()) {
            if (slot.session->tools_changed->exchange(false)) {
                auto listed = list_locked(*slot.session, call.user_id);
                if (!listed) return listed.error();
                if (announce_locked(*listed) && options_.isolation.on_tools_changed)
                    options_.isolation.on_tools_changed(server_.name);
            }
            return check_pin_locked(slot.session, tool, call);
        }
        if (slot.session) crashed_locked(slot, slot.session, slot.session->channel->closed_reason());
        if (quarantine_) return *quarantine_;
        if (now < slot.next_start) {
            const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(slot.next_start - now).count();
            Error error{errors::kPluginRestarting, "MCP server '" + server_.name +
                                                       "' is restarting after it ended; retry in " +
                                                       std::to_string(wait) + " ms"};
            error.details["retry_after_ms"] = wait;
            return error;
        }
        retire_idle_locked(call.user_id);
        auto started = start_foreign_session(server_, options_, plan_,
                                             ForeignSessionUser{call.user_id, call.workspace_root, call.data_dir},
                                             std::move(secrets));
        if (!started) {
            note_crash_locked(slot, "it could not be started: " + started.error().message);
            return with_manifest(std::move(started.error()), server_);
        }
        if (auto listed = list_locked(**started, call.user_id); !listed) {
            note_crash_locked(slot, "its tools could not be listed: " + listed.error().message);
            return listed.error();
        }
        slot.session = std::move(started.value());
        if (const auto told = slot.session->roots_answered_at->load(); told != 0) {
            const auto settled = Clock::time_point(Clock::duration(told)) + kForeignRootsSettle;
            if (settled > Clock::now()) std::this_thread::sleep_until(settled);
        }
        return check_pin_locked(slot.session, tool, call);
    }

    // Keeps at most `kMaxInstances` users' servers: the one used longest ago goes (a call still in
    // flight on it keeps its session until it returns).
    void retire_idle_locked(const std::string& keep) const {
        while (slots_.size() > kMaxInstances) {
            auto oldest = slots_.end();
            for (auto it = slots_.begin(); it != slots_.end(); ++it) {
                if (it->first != keep && (oldest == slots_.end() || it->second.last_used < oldest->second.last_used))
                    oldest = it;
            }
            if (oldest == slots_.end()) return;
            slots_.erase(oldest);
        }
    }

    // Lists the tools again (a new session, or the server said they changed): what a call on this
    // session is checked against from now on. Definitions not yet accepted are shown to the pins at
    // once, so a change waits for its decision before anyone calls the tool.
    Result<upstream::ToolList> list_locked(ForeignSession& session, const std::string& user) const {
        auto listed = list_tools_of(session);
        if (!listed) return listed.error();
        if (auto taken = take_listing_locked(session, *listed, user); !taken) return taken.error();
        return listed;
    }

    Result<upstream::ToolList> list_tools_of(ForeignSession& session) const {
        upstream::ToolListLimits limits;
        limits.max_tools = server_.limits.max_tools;
        auto listed = session.client->list_tools(
            limits, Clock::now() + std::chrono::milliseconds(server_.limits.startup_timeout_ms));
        if (!listed) {
            session.redactor->redact(listed.error());
            return with_manifest(std::move(listed.error()), server_);
        }
        redact_listing(listed.value(), *session.redactor);
        return listed;
    }

    Status take_listing_locked(ForeignSession& session, const upstream::ToolList& listed,
                               const std::string& user) const {
        session.listed.clear();
        std::vector<ListedDefinition> unaccepted;
        if (!is_accepted_locked(session.instructions)) unaccepted.push_back(session.instructions);
        for (const auto& tool : listed.tools) {
            if (!server_.offers(tool.name)) continue;
            auto [entry, added] = session.listed.emplace(tool.name, tool_listed(tool));
            if (added && !is_accepted_locked(entry->second)) unaccepted.push_back(entry->second);
        }
        if (unaccepted.empty()) return {};
        auto verdicts = pins_->check(server_.name, unaccepted, user);
        if (!verdicts) return with_manifest(std::move(verdicts.error()), server_);
        for (std::size_t i = 0; i < verdicts->size() && i < unaccepted.size(); ++i) {
            if ((*verdicts)[i].callable) accepted_[unaccepted[i].tool] = unaccepted[i].hash;
        }
        return {};
    }

    // Lists the tools again on every instance whose server said they changed since (the catalog's
    // relisted(), on a thread of its own), without holding the lock while the server answers: calls
    // go on meanwhile. An instance that cannot list them now lists them before its next call.
    void relist_announced() const {
        std::vector<std::pair<std::string, std::shared_ptr<ForeignSession>>> changed;
        {
            std::lock_guard lock(mutex_);
            for (const auto& [user, slot] : slots_) {
                if (slot.session && !slot.session->channel->closed() && slot.session->tools_changed->exchange(false))
                    changed.emplace_back(user, slot.session);
            }
        }
        for (const auto& [user, session] : changed) {
            auto listed = list_tools_of(*session);
            std::lock_guard lock(mutex_);
            Status taken = listed ? take_listing_locked(*session, *listed, user) : Status(listed.error());
            if (!taken) {
                session->tools_changed->store(true);
                spdlog::warn(
                    "MCP server '{}' said its tools changed, but listing them failed ({}: {}); they are "
                    "listed again before the next call",
                    server_.name, taken.error().code, taken.error().message);
                continue;
            }
            announce_locked(*listed);
        }
    }

    // Takes what the server listed after it said its tools changed as what it offers now; true when
    // that differs from what it offered before (the catalog then serves a new version).
    bool announce_locked(const upstream::ToolList& listed) const {
        auto offered = offered_by(listed);
        if (offered == shared_->offered) return false;
        shared_->offered = std::move(offered);
        shared_->announced = std::make_shared<const upstream::ToolList>(listed);
        ++shared_->generation;
        return true;
    }

    std::map<std::string, std::string> offered_by(const upstream::ToolList& listed) const {
        std::map<std::string, std::string> offered;
        for (const auto& tool : listed.tools)
            if (server_.offers(tool.name)) offered.emplace(tool.name, upstream::definition_hash(tool));
        return offered;
    }

    bool is_accepted_locked(const ListedDefinition& listed) const {
        const auto accepted = accepted_.find(listed.tool);
        return accepted != accepted_.end() && accepted->second == listed.hash;
    }

    // The session when `tool` as it lists it is the definition a call may run against: the server's
    // instructions and the tool's definition are pinned (or their change approved since), and an
    // approved call's definition is the one it was approved against.
    Result<std::shared_ptr<ForeignSession>> check_pin_locked(const std::shared_ptr<ForeignSession>& session,
                                                             const std::string& tool, const Call& call) const {
        const auto now = session->listed.find(tool);
        if (now == session->listed.end()) {
            Error error{errors::kUpstreamDefinitionChanged,
                        "tool '" + tool + "' of MCP server '" + server_.name +
                            "' is no longer listed by the server; it is not called until the server lists it again"};
            error.details["plugin"] = server_.name;
            error.details["tool"] = tool;
            return error;
        }
        if (!call.definition_hash.empty() && now->second.hash != call.definition_hash) {
            Error error{errors::kUpstreamDefinitionChanged,
                        "tool '" + tool + "' of MCP server '" + server_.name +
                            "' has another definition than the one this call was approved against; it does not run "
                            "against a definition nobody approved it for: request the call again to approve it as "
                            "the tool is now"};
            error.details["plugin"] = server_.name;
            error.details["tool"] = tool;
            error.details["approved_hash"] = call.definition_hash;
            error.details["listed_hash"] = now->second.hash;
            return error;
        }
        std::vector<ListedDefinition> unaccepted;
        if (!is_accepted_locked(session->instructions)) unaccepted.push_back(session->instructions);
        if (!is_accepted_locked(now->second)) unaccepted.push_back(now->second);
        if (unaccepted.empty()) return session;
        auto verdicts = pins_->check(server_.name, unaccepted, call.user_id);
        if (!verdicts) return with_manifest(std::move(verdicts.error()), server_);
        for (std::size_t i = 0; i < verdicts->size() && i < unaccepted.size(); ++i) {
            if (!(*verdicts)[i].callable) return blocked(unaccepted[i], (*verdicts)[i]);
            accepted_[unaccepted[i].tool] = unaccepted[i].hash;
        }
        return session;
    }

    // UPSTREAM_DEFINITION_CHANGED for a definition the pins do not let run: which one, what it waits
    // on and how a person reviews it.
    Error blocked(const ListedDefinition& listed, const PinVerdict& verdict) const {
        const bool instructions = listed.tool == kInstructionsPin;
        const std::string tool = "tool '" + listed.tool + "' of MCP server '" + server_.name + "'";
        std::string what = instructions ? "the instructions of MCP server '" + server_.name + "' changed"
                           : verdict.pinned_hash.empty() ? tool + " is new"
                                                         : tool + " has a different definition";
        what += std::string(" since the server was pinned; ") +
                (instructions ? "none of its tools is called" : "it is not called");
        if (verdict.decision_id.empty()) {
            what += verdict.review.empty() ? " until the declaration is reloaded and the new definition reviewed"
                                           : " until the change is reviewed (" + verdict.review + ")";
        } else if (verdict.decision_state == "rejected") {
            what += ": its definition change " + verdict.decision_id + " was rejected (" + verdict.review + ")";
        } else {
            what += " until an owner approves definition change " + verdict.decision_id + " (" + verdict.review + ")";
        }
        Error error{errors::kUpstreamDefinitionChanged, std::move(what)};
        error.details["plugin"] = server_.name;
        error.details["tool"] = listed.tool;
        if (!verdict.pinned_hash.empty()) error.details["pinned_hash"] = verdict.pinned_hash;
        error.details["listed_hash"] = listed.hash;
        if (!verdict.decision_id.empty()) {
            error.details["decision_id"] = verdict.decision_id;
            error.details["decision_state"] = verdict.decision_state;
        }
        return error;
    }

    // A call ran past its deadline: a server that answers no ping either is wedged (it reads
    // nothing, or its loop is stuck), and is ended at once (its other calls fail, not wait) and
    // started again on the next call, after the crash backoff.
    void end_if_wedged(const std::string& user, const std::shared_ptr<ForeignSession>& session, Error& error) const {
        auto pong = session->channel->call("ping", json::object{}, Clock::now() + kWedgeProbe);
        if (pong || !pong.error().is(errors::kUpstreamTimeout)) return;
        const std::string reason = "it answered neither a call by its deadline nor a ping within " +
                                   std::to_string(kWedgeProbe.count()) + " ms (wedged), so it was ended";
        session->channel->close(reason);
        crashed(user, session, reason);
        error.message += "; MCP server '" + server_.name +
                         "' answered no ping either, so it was ended: the next "
                         "call starts it again";
        error.details["wedged"] = true;
    }

    void crashed(const std::string& user, const std::shared_ptr<ForeignSession>& session,
                 const std::string& reason) const {
        std::lock_guard lock(mutex_);
        const auto slot = slots_.find(user);
        if (slot != slots_.end()) crashed_locked(slot->second, session, reason);
    }

    // Counts the end of `session` once (every call in flight on it reports it).
    void crashed_locked(Slot& slot, const std::shared_ptr<ForeignSession>& session, const std::string& reason) const {
        if (slot.session != session || !slot.session) return;
        slot.session.reset();
        note_crash_locked(slot, reason);
    }

    void note_crash_locked(Slot& slot, const std::string& reason) const {
        const auto now = Clock::now();
        crashes_.push_back(now);
        while (!crashes_.empty() && now - crashes_.front() > options_.isolation.crash_window) crashes_.pop_front();
        auto backoff = options_.isolation.restart_backoff;
        for (std::size_t i = 1; i < crashes_.size() && backoff < kMaxBackoff; ++i) backoff *= 2;
        slot.next_start = now + std::min(backoff, kMaxBackoff);
        spdlog::warn("MCP server '{}' ended ({}); {} crash(es) in the window", server_.name, reason, crashes_.size());
        if (crashes_.size() >= options_.isolation.crash_limit) {
            Error error{errors::kPluginQuarantined, "MCP server '" + server_.name + "' is quarantined: it ended " +
                                                        std::to_string(crashes_.size()) + " times within " +
                                                        std::to_string(options_.isolation.crash_window.count() / 1000) +
                                                        " s (last: " + reason +
                                                        "); fix it and touch its declaration to reload it"};
            error.details["plugin"] = server_.name;
            error.details["crashes"] = crashes_.size();
            quarantine_ = std::move(error);
            if (options_.isolation.on_quarantine) options_.isolation.on_quarantine(server_.name);
        }
    }

    const manifest::ForeignServer server_;
    const ForeignOptions options_;
    const ForeignSandboxPlan plan_;
    json::object sandbox_;  // what the sandbox of the listing process enforced (each process gets the same)
    manifest::Manifest manifest_;
    std::map<std::string, std::string, std::less<>> tools_;  // skill id -> upstream tool name
    const std::shared_ptr<DefinitionPins> pins_ = options_.pins ? options_.pins : memory_definition_pins();

    const std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
    const std::uint64_t generation_ = 0;  // of shared_->announced this version offers (0: the load's)
    std::mutex& mutex_ = shared_->mutex;
    std::map<std::string, Slot>& slots_ = shared_->slots;
    std::deque<Clock::time_point>& crashes_ = shared_->crashes;
    std::optional<Error>& quarantine_ = shared_->quarantine;
    std::map<std::string, std::string>& accepted_ = shared_->accepted;
};

// The rest of load_foreign_server, once a declared package is installed and filled in.
Result<std::shared_ptr<LoadedPlugin>> load_installed_server(const manifest::ForeignServer& server,
                                                            const ForeignOptions& options);

}  // namespace

Result<std::shared_ptr<LoadedPlugin>> load_foreign_server(const manifest::ForeignServer& server,
                                                          const ForeignOptions& options) {
    // A declared package runs only from its verified install (${package} filled in).
    Result<manifest::ForeignServer> installed = with_installed_package(server, options.packages_dir);
    if (!installed) return installed.error();
    return load_installed_server(installed.value(), options);
}

namespace {

Result<std::shared_ptr<LoadedPlugin>> load_installed_server(const manifest::ForeignServer& server,
                                                            const ForeignOptions& options) {
    // A process of its own, for the listing only: each user's calls get theirs.
    Result<ForeignSandboxPlan> plan = plan_foreign_sandbox(options);
    if (!plan) return with_manifest(std::move(plan.error()), server);
    // With the secrets of the first owner that are set (a server may need one to list its tools).
    auto secrets = inject_secrets(server, options.secrets.get(), options.listing_user, false);
    if (!secrets) return with_manifest(std::move(secrets.error()), server);
    std::string left_out;
    for (const std::string& name : secrets->left_out) left_out += (left_out.empty() ? "" : ", ") + name;
    const auto without_secrets = [&](Error error) {
        if (!left_out.empty())
            error.message += " (it was started without secret(s) " + left_out + ", which user '" +
                             options.listing_user + "' has not set: `skillhost secrets set NAME --user " +
                             options.listing_user + "`)";
        return with_manifest(std::move(error), server);
    };
    auto session =
        start_foreign_session(server, options, plan.value(), ForeignSessionUser{}, std::move(secrets.value()));
    if (!session) return without_secrets(std::move(session.error()));
    upstream::ToolListLimits limits;
    limits.max_tools = server.limits.max_tools;
    auto tools = (*session)->client->list_tools(
        limits, Clock::now() + std::chrono::milliseconds(server.limits.startup_timeout_ms));
    if (!tools) {
        (*session)->redactor->redact(tools.error());
        return without_secrets(std::move(tools.error()));
    }
    redact_listing(tools.value(), *(*session)->redactor);
    // The first listing ever pins the server; a later one (a restart, a reload) is checked against it.
    std::vector<ListedDefinition> definitions{(*session)->instructions};
    for (const auto& tool : tools->tools)
        if (server.offers(tool.name)) definitions.push_back(tool_listed(tool));
    ForeignOptions pinned = options;
    if (!pinned.pins) pinned.pins = memory_definition_pins();
    auto verdicts = pinned.pins->check(server.name, definitions, "");
    if (!verdicts) return with_manifest(std::move(verdicts.error()), server);
    std::string sandbox_report = (*session)->process ? (*session)->process->sandbox_report() : std::string();
    return std::shared_ptr<LoadedPlugin>(
        std::make_shared<ForeignPlugin>(server, std::move(pinned), std::move(plan.value()), (*session)->info,
                                        tools.value(), definitions, *verdicts, std::move(sandbox_report)));
}

}  // namespace

Result<std::shared_ptr<LoadedPlugin>> PluginLoader::load_foreign(const manifest::ForeignServer& server) const {
    ForeignOptions options;
    options.isolation = options_.isolation;
    options.completions = options_.completions;
    options.pins = options_.pins;
    options.secrets = options_.secrets;
    options.listing_user = options_.listing_user;
    options.grants = options_.grants;
    options.packages_dir = options_.packages_dir;
    return load_foreign_server(server, options);
}

}  // namespace skillhost::plugin
