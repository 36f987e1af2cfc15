#include "store/run_record.hpp"
#include "store/error_codes.hpp"

#include <boost/json.hpp>

#include <array>
#include <random>

namespace skillhost::store {
namespace {

namespace json = boost::json;

constexpr std::array<const char*, 8> kStatusNames = {"running", "completed", "awaiting_approval", "needs_guidance",
                                                     "failed",  "cancelled", "interrupted",       "awaiting_input"};
constexpr std::array<const char*, 3> kModeNames = {"narrative", "structured", "verbatim"};

std::string str(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::int64_t integer(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    if (!v) return 0;
    if (v->is_int64()) return v->as_int64();
    if (v->is_uint64()) return static_cast<std::int64_t>(v->as_uint64());
    if (v->is_double()) return static_cast<std::int64_t>(v->as_double());
    return 0;
}

bool boolean(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_bool() && v->as_bool();
}

std::vector<std::string> strings(const json::object& o, std::string_view key) {
    std::vector<std::string> out;
    const auto* v = o.if_contains(key);
    if (!v || !v->is_array()) return out;
    for (const auto& item : v->as_array()) {
        if (item.is_string()) out.emplace_back(item.as_string());
    }
    return out;
}

json::array to_array(const std::vector<std::string>& items) {
    json::array out;
    for (const auto& item : items) out.emplace_back(item);
    return out;
}

json::object error_json(const Error& error) {
    json::object out{{"code", error.code.str()}, {"message", error.message}, {"details", error.details}};
    out["suggestions"] = to_array(error.suggestions);
    return out;
}

Error error_from(const json::object& o) {
    Error error = Error::restored(str(o, "code"), str(o, "message"));
    error.suggestions = strings(o, "suggestions");
    if (const auto* d = o.if_contains("details"); d && d->is_object()) error.details = d->as_object();
    return error;
}

json::object entry_json(const ScratchpadEntry& entry) {
    json::object out{{"step", entry.step}, {"thought", entry.thought}};
    if (entry.action) out["action"] = json::object{{"tool", entry.action->tool}, {"args", entry.action->args}};
    if (entry.observation) {
        const auto& obs = *entry.observation;
        json::object o{
            {"mode", to_string(obs.mode)}, {"content", obs.content}, {"raw", obs.raw}, {"success", obs.success}};
        if (obs.error) {
            json::object e{{"code", obs.error->code}, {"message", obs.error->message}};
            e["suggestions"] = to_array(obs.error->suggestions);
            o["error"] = std::move(e);
        }
        out["observation"] = std::move(o);
    }
    if (!entry.warnings.empty()) out["warnings"] = to_array(entry.warnings);
    out["started_ms"] = entry.started_ms;
    out["duration_us"] = entry.duration_us;
    return out;
}

ScratchpadEntry entry_from(const json::object& o) {
    ScratchpadEntry entry;
    entry.step = static_cast<int>(integer(o, "step"));
    entry.thought = str(o, "thought");
    if (const auto* a = o.if_contains("action"); a && a->is_object()) {
        Action action{str(a->as_object(), "tool"), {}};
        if (const auto* args = a->as_object().if_contains("args"); args && args->is_object())
            action.args = args->as_object();
        entry.action = std::move(action);
    }
    if (const auto* ov = o.if_contains("observation"); ov && ov->is_object()) {
        const auto& oo = ov->as_object();
        Observation obs;
        obs.mode = parse_observation_mode(str(oo, "mode")).value_or(ObservationMode::narrative);
        obs.content = str(oo, "content");
        if (const auto* raw = oo.if_contains("raw")) obs.raw = *raw;
        obs.success = boolean(oo, "success");
        if (const auto* e = oo.if_contains("error"); e && e->is_object()) {
            obs.error = ObservationError{str(e->as_object(), "code"), str(e->as_object(), "message"),
                                         strings(e->as_object(), "suggestions")};
        }
        entry.observation = std::move(obs);
    }
    entry.warnings = strings(o, "warnings");
    entry.started_ms = integer(o, "started_ms");
    entry.duration_us = integer(o, "duration_us");
    return entry;
}

}  // namespace

const char* to_string(RunStatus status) {
    return kStatusNames[static_cast<std::size_t>(status)];
}

std::optional<RunStatus> parse_run_status(std::string_view text) {
    for (std::size_t i = 0; i < kStatusNames.size(); ++i) {
        if (text == kStatusNames[i]) return static_cast<RunStatus>(i);
    }
    return std::nullopt;
}

const char* to_string(ObservationMode mode) {
    return kModeNames[static_cast<std::size_t>(mode)];
}

std::optional<ObservationMode> parse_observation_mode(std::string_view text) {
    for (std::size_t i = 0; i < kModeNames.size(); ++i) {
        if (text == kModeNames[i]) return static_cast<ObservationMode>(i);
    }
    return std::nullopt;
}

json::object Run::to_json() const {
    json::object out{{"id", id}, {"goal", goal}, {"user", user_id}, {"mode", mode}, {"status", to_string(status)}};
    json::array step_list;
    for (const auto& entry : steps) step_list.emplace_back(entry_json(entry));
    out["steps"] = std::move(step_list);
    out["history"] = to_array(history);
    out["created_ms"] = created_ms;
    out["updated_ms"] = updated_ms;
    out["finished_ms"] = finished_ms;
    if (!token_id.empty()) {
        out["token_id"] = token_id;
        out["token_scopes"] = token_scopes;
    }
    json::object token_json;
    for (const auto& [role, usage] : tokens) {
        token_json[role] =
            json::object{{"prompt", usage.prompt}, {"completion", usage.completion}, {"calls", usage.calls}};
    }
    out["tokens"] = std::move(token_json);
    out["answer"] = answer;
    out["response_style"] = response_style;
    out["verbatim"] = verbatim;
    json::object g{{"checked", grounding.checked}, {"passed", grounding.passed}};
    g["offending"] = to_array(grounding.offending);
    if (!grounding.regenerated_offending.empty())
        g["regenerated_offending"] = to_array(grounding.regenerated_offending);
    if (!grounding.outcome.empty()) g["outcome"] = grounding.outcome;
    g["result"] = !grounding.checked ? "not_checked" : grounding.passed ? "passed" : "failed";
    out["grounding"] = std::move(g);
    if (error) out["error"] = error_json(*error);
    if (!approval_id.empty()) out["approval_id"] = approval_id;
    if (!elicitation_id.empty()) out["elicitation_id"] = elicitation_id;
    out["attempt"] = attempt;
    out["attempt_first_step"] = attempt_first_step;
    out["route"] = route;
    out["playbooks_used"] = to_array(playbooks_used);
    if (!guidance_id.empty()) out["guidance_id"] = guidance_id;
    if (!plugin_versions.empty()) {
        json::object versions;
        for (const auto& [plugin, version] : plugin_versions) versions[plugin] = version;
        out["plugin_versions"] = std::move(versions);
    }
    return out;
}

Result<Run> Run::from_json(const json::value& value) {
    if (!value.is_object()) {
        return Error{
            errors::kRunRecordInvalid, "a stored run is not a JSON object; the database may be damaged", {}, {}};
    }
    const auto& o = value.as_object();
    Run run;
    run.id = str(o, "id");
    run.goal = str(o, "goal");
    run.user_id = str(o, "user");
    run.mode = str(o, "mode");
    run.token_id = str(o, "token_id");
    run.token_scopes = str(o, "token_scopes");
    const auto status = parse_run_status(str(o, "status"));
    if (run.id.empty() || !status) {
        Error error{errors::kRunRecordInvalid,
                    "a stored run has no id or an unknown status; the database may be damaged",
                    {},
                    {}};
        error.details["id"] = run.id;
        error.details["status"] = str(o, "status");
        return error;
    }
    run.status = *status;
    if (const auto* s = o.if_contains("steps"); s && s->is_array()) {
        for (const auto& item : s->as_array()) {
            if (item.is_object()) run.steps.push_back(entry_from(item.as_object()));
        }
    }
    run.history = strings(o, "history");
    run.created_ms = integer(o, "created_ms");
    run.updated_ms = integer(o, "updated_ms");
    run.finished_ms = integer(o, "finished_ms");
    if (const auto* t = o.if_contains("tokens"); t && t->is_object()) {
        for (const auto& [role, usage] : t->as_object()) {
            if (!usage.is_object()) continue;
            run.tokens[std::string(role)] =
                TokenUsage{integer(usage.as_object(), "prompt"), integer(usage.as_object(), "completion"),
                           static_cast<int>(integer(usage.as_object(), "calls"))};
        }
    }
    run.answer = str(o, "answer");
    run.response_style = str(o, "response_style");
    run.verbatim = boolean(o, "verbatim");
    if (const auto* g = o.if_contains("grounding"); g && g->is_object()) {
        run.grounding.checked = boolean(g->as_object(), "checked");
        const auto* passed = g->as_object().if_contains("passed");
        run.grounding.passed = !passed || !passed->is_bool() || passed->as_bool();
        run.grounding.offending = strings(g->as_object(), "offending");
        run.grounding.regenerated_offending = strings(g->as_object(), "regenerated_offending");
        run.grounding.outcome = str(g->as_object(), "outcome");
    }
    if (const auto* e = o.if_contains("error"); e && e->is_object()) run.error = error_from(e->as_object());
    run.approval_id = str(o, "approval_id");
    run.elicitation_id = str(o, "elicitation_id");
    run.attempt = static_cast<int>(integer(o, "attempt"));
    if (run.attempt < 1) run.attempt = 1;
    const auto first = integer(o, "attempt_first_step");
    run.attempt_first_step =
        first > 0 && static_cast<std::size_t>(first) <= run.steps.size() ? static_cast<std::size_t>(first) : 0;
    run.route = str(o, "route");
    run.playbooks_used = strings(o, "playbooks_used");
    run.guidance_id = str(o, "guidance_id");
    if (const auto* v = o.if_contains("plugin_versions"); v && v->is_object())
        for (const auto& [plugin, version] : v->as_object())
            if (version.is_string()) run.plugin_versions[std::string(plugin)] = std::string(version.as_string());
    return run;
}

std::int64_t unix_ms_now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string new_id(std::string_view prefix) {
    static thread_local std::mt19937_64 generator{std::random_device{}()};
    static constexpr char kHex[] = "0123456789abcdef";
    std::uint64_t bits = generator();
    std::string id(prefix);
    id += '-';
    for (int i = 15; i >= 0; --i) id += kHex[(bits >> (i * 4)) & 0xF];
    return id;
}

}  // namespace skillhost::store
