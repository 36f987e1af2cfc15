#include "operator/planner_prompt.hpp"

#include "operator/planner_output.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace skillhost::op {
namespace {

namespace json = boost::json;

constexpr std::size_t kMaxBuiltinStepData = 64 * 1024;

constexpr std::string_view kRules =
    "You are the planner of a tool-using assistant. Decide the next step towards the user's goal.\n"
    "Rules:\n"
    "- Use only data from Observations. Never invent tasks, files, dates, numbers or names.\n"
    "- Call one tool per step, with arguments that match its inputs exactly.\n"
    "- When an action fails, read its error and suggestions and try a different tool or different arguments;\n"
    "  never repeat an action that already failed.\n"
    "- When the observations answer the goal, respond. Use response_style \"strict\" for factual data,\n"
    "  \"summary\" for long results, \"verbatim\" to show one tool's output as it is.\n"
    "- Answer only with JSON: {\"thought\": \"...\", \"action\": {\"tool\": \"id\", \"args\": {...}}}\n"
    "  or {\"thought\": \"...\", \"respond\": true, \"response_style\": \"default|strict|summary|verbatim\"}.\n"
    "- When no tool can do what the goal asks, or a reference is ambiguous, respond with a \"note\" that says so\n"
    "  (naming the closest tools, or the candidates to choose from).\n";

json::value sorted(const json::value& v) {
    if (v.is_object()) {
        std::vector<std::pair<std::string, json::value>> items;
        for (const auto& [k, sub] : v.as_object()) items.emplace_back(std::string(k), sorted(sub));
        std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        json::object out;
        for (auto& [k, sub] : items) out[k] = std::move(sub);
        return out;
    }
    if (v.is_array()) {
        json::array out;
        for (const auto& sub : v.as_array()) out.push_back(sorted(sub));
        return out;
    }
    if (v.is_string()) {
        // Trailing spaces and a leading "./" do not make a different action.
        std::string s(v.as_string());
        while (!s.empty() && s.back() == ' ') s.pop_back();
        if (s.starts_with("./")) s.erase(0, 2);
        return json::string(s);
    }
    return v;
}

std::string full_step(const store::ScratchpadEntry& entry) {
    std::string out = "Thought " + std::to_string(entry.step) + ": " + entry.thought + "\n";
    if (entry.action) {
        out += "Action " + std::to_string(entry.step) + ": " +
               json::serialize(json::object{{"tool", entry.action->tool}, {"args", entry.action->args}}) + "\n";
    }
    for (const auto& warning : entry.warnings) out += "Note: " + warning + "\n";
    if (entry.observation) {
        const auto& obs = *entry.observation;
        out += "Observation " + std::to_string(entry.step) + ": ";
        if (obs.success) {
            out += obs.content + "\n";
        } else if (obs.error) {
            out += "FAILED " + obs.error->code + ": " + obs.error->message + "\n";
            for (const auto& s : obs.error->suggestions) out += "  suggestion: " + s + "\n";
        }
    }
    return out;
}

}  // namespace

std::string action_key(const store::Action& action) {
    return action.tool + " " + json::serialize(sorted(action.args));
}

std::string condensed_step(const store::ScratchpadEntry& entry) {
    std::string out = "Step " + std::to_string(entry.step) + ": ";
    if (!entry.action) return out + "responded";
    out += entry.action->tool + " " + json::serialize(entry.action->args) + " → ";
    if (!entry.observation) return out + "no result";
    if (entry.observation->success) {
        // The gist is the first line of data; a narrative "<tool> returned:" header says nothing.
        std::string_view content = entry.observation->content;
        if (auto header_end = content.find(" returned:\n");
            header_end != std::string_view::npos && header_end < content.find('\n')) {
            content.remove_prefix(header_end + 11);
        }
        std::string gist(content.substr(0, content.find('\n')));
        if (gist.size() > 60) gist = gist.substr(0, 60) + "...";
        return out + "ok (" + gist + ")";
    }
    return out + (entry.observation->error ? entry.observation->error->code : std::string("failed"));
}

llm::ChatRequest build_planner_request(const PlannerPromptInput& input) {
    llm::ChatRequest request;
    request.role = "orchestrator";
    request.cognitive_mode = input.cognitive_mode;
    request.json_schema = planner_schema();
    request.schema_name = "plan";
    request.temperature = 0.0;

    std::string system(kRules);
    system += "\n## Tools\n";
    system += *input.catalog_text;
    if (!input.playbooks.empty()) system += "\n## Playbooks (what worked before for similar goals)\n" + input.playbooks;

    std::string user = "## Goal\n" + *input.goal + "\n";
    if (input.history && !input.history->empty()) {
        user += "\n## Conversation so far\n";
        for (const auto& turn : *input.history) user += "- " + turn + "\n";
    }
    if (!input.retry_context.empty()) user += "\n## Previous attempt\n" + input.retry_context;
    user += "\n## Scratchpad\n";
    const auto steps = input.steps;
    const std::size_t keep = static_cast<std::size_t>(std::max(1, input.trim_to_last_n));
    const std::size_t first_full = steps.size() > keep ? steps.size() - keep : 0;
    if (steps.empty()) user += "(no steps yet)\n";
    for (std::size_t i = 0; i < steps.size(); ++i) {
        if (i >= first_full) {
            user += full_step(steps[i]);
        } else {
            user += input.condensed.size() == steps.size() ? input.condensed[i] : condensed_step(steps[i]);
            user += '\n';
        }
    }
    for (const auto& warning : input.warnings) user += "Warning: " + warning + "\n";
    user += "\nThis is step " + std::to_string(input.step_number) + " of at most " + std::to_string(input.max_steps) +
            ". Answer with the JSON for the next step.";
    request.messages = {{"system", std::move(system)}, {"user", std::move(user)}};
    if (!input.with_builtin_context) return request;

    json::array step_context;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const auto& entry = steps[i];
        if (!entry.action) continue;
        json::object s{{"tool", entry.action->tool}, {"args", entry.action->args}};
        const bool ok = entry.observation && entry.observation->success;
        s["ok"] = ok;
        s["error_code"] =
            entry.observation && entry.observation->error ? entry.observation->error->code : std::string();
        // The builtin planner chains steps on what they returned (the id a find gave) and follows
        // the fixes an error suggests, so it gets the data and the error itself, within a bound.
        if (ok && json::serialize(entry.observation->raw).size() <= kMaxBuiltinStepData)
            s["data"] = entry.observation->raw;
        if (entry.observation && entry.observation->error) {
            s["error_message"] = entry.observation->error->message;
            json::array suggestions;
            for (const auto& suggestion : entry.observation->error->suggestions) suggestions.emplace_back(suggestion);
            s["suggestions"] = std::move(suggestions);
        }
        s["observation_summary"] = input.condensed.size() == steps.size() ? input.condensed[i] : condensed_step(entry);
        step_context.push_back(std::move(s));
    }
    request.context = json::object{
        {"task", "plan"}, {"goal", *input.goal}, {"tools", *input.catalog_tools}, {"steps", std::move(step_context)}};
    return request;
}

}  // namespace skillhost::op
