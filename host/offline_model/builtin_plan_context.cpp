#include "offline_model/builtin_plan_context.hpp"

#include <algorithm>

namespace skillhost::offline_model {
namespace {

namespace json = boost::json;

std::set<std::string> word_set(std::string_view text) {
    const auto words = keywords_of(text);
    return {words.begin(), words.end()};
}

}  // namespace

std::string string_field(const json::object& object, std::string_view key) {
    const auto* value = object.if_contains(key);
    return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

std::vector<const json::object*> result_items(const json::value& data) {
    std::vector<const json::object*> items;
    const json::array* list = data.is_array() ? &data.as_array() : nullptr;
    if (!list && data.is_object()) {
        for (const auto& field : data.as_object()) {
            if (field.value().is_array()) {
                list = &field.value().as_array();
                break;
            }
        }
    }
    if (!list) return items;
    for (const auto& item : *list) {
        if (item.is_object()) items.push_back(&item.as_object());
    }
    return items;
}

std::vector<Tool> read_tools(const json::object& context) {
    std::vector<Tool> tools;
    const auto* list = context.if_contains("tools");
    if (!list || !list->is_array()) return tools;
    for (const auto& item : list->as_array()) {
        if (!item.is_object()) continue;
        const auto& object = item.as_object();
        Tool tool;
        tool.id = string_field(object, "id");
        if (tool.id.empty()) continue;
        tool.id_words = word_set(tool.id);
        tool.description = string_field(object, "description");
        tool.description_words = word_set(tool.description);
        if (const auto* inputs = object.if_contains("inputs"); inputs && inputs->is_object()) {
            if (const auto* props = inputs->as_object().if_contains("properties"); props && props->is_object()) {
                tool.properties = props->as_object();
            }
            if (const auto* required = inputs->as_object().if_contains("required"); required && required->is_array()) {
                for (const auto& name : required->as_array()) {
                    if (name.is_string()) tool.required.emplace_back(name.as_string());
                }
            }
        }
        if (const auto* examples = object.if_contains("examples"); examples && examples->is_array()) {
            for (const auto& example : examples->as_array()) {
                if (!example.is_object()) continue;
                const auto* args = example.as_object().if_contains("args");
                const std::string description = string_field(example.as_object(), "description");
                tool.example_words.push_back(word_set(description));
                tool.examples.emplace_back(description, args && args->is_object() ? args->as_object() : json::object{});
            }
        }
        if (const auto* outputs = object.if_contains("outputs"); outputs && outputs->is_object()) {
            if (const auto* props = outputs->as_object().if_contains("properties"); props && props->is_object()) {
                for (const auto& field : props->as_object()) tool.outputs.emplace(field.key());
            }
        }
        if (const auto* read_only = object.if_contains("read_only"); read_only && read_only->is_bool()) {
            tool.read_only = read_only->as_bool();
        }
        tools.push_back(std::move(tool));
    }
    return tools;
}

std::vector<Step> read_steps(const json::object& context) {
    std::vector<Step> steps;
    const auto* list = context.if_contains("steps");
    if (!list || !list->is_array()) return steps;
    for (const auto& item : list->as_array()) {
        if (!item.is_object()) continue;
        const auto& object = item.as_object();
        Step step;
        step.tool = string_field(object, "tool");
        if (const auto* args = object.if_contains("args"); args && args->is_object()) step.args = args->as_object();
        if (const auto* ok = object.if_contains("ok"); ok && ok->is_bool()) step.ok = ok->as_bool();
        if (const auto* data = object.if_contains("data")) step.data = *data;
        step.error_code = string_field(object, "error_code");
        step.error_message = string_field(object, "error_message");
        if (const auto* suggestions = object.if_contains("suggestions"); suggestions && suggestions->is_array()) {
            for (const auto& s : suggestions->as_array()) {
                if (s.is_string()) step.suggestions.emplace_back(s.as_string());
            }
        }
        steps.push_back(std::move(step));
    }
    return steps;
}

const std::map<GoalVerb, std::set<std::string>>& verb_words() {
    static const std::map<GoalVerb, std::set<std::string>> words = {
        {GoalVerb::list, {"list", "all"}},
        {GoalVerb::read, {"read", "get", "show", "open", "view", "content"}},
        {GoalVerb::search, {"search", "find", "query", "lookup"}},
        {GoalVerb::create, {"create", "add", "capture", "write", "new", "save"}},
        {GoalVerb::update, {"update", "edit", "complete", "modify", "set", "rename"}},
        {GoalVerb::remove, {"delete", "remove"}},
        {GoalVerb::recall, {"recent", "timeline", "history", "happened"}}};
    return words;
}

const std::map<GoalDomain, std::set<std::string>>& domain_words() {
    static const std::map<GoalDomain, std::set<std::string>> words = {
        {GoalDomain::task, {"task", "todo"}},
        {GoalDomain::file, {"fs", "file", "directory", "folder", "workspace"}},
        {GoalDomain::memory, {"memory", "memorie", "episodic", "remember"}}};
    return words;
}

bool any_in(const std::set<std::string>& haystack, const std::set<std::string>& needles) {
    return std::any_of(needles.begin(), needles.end(), [&](const auto& w) { return haystack.contains(w); });
}

bool tool_in_domain(const Tool& tool, GoalDomain domain) {
    return domain != GoalDomain::none && any_in(tool.id_words, domain_words().at(domain));
}

bool tool_does(const Tool& tool, GoalVerb verb) {
    return verb != GoalVerb::none && any_in(tool.id_words, verb_words().at(verb));
}

bool declares(const Tool& tool, std::string_view input) {
    return tool.properties.contains(input);
}

bool has_required(const Tool& tool, const json::object& args) {
    return std::all_of(tool.required.begin(), tool.required.end(),
                       [&](const std::string& name) { return args.contains(name); });
}

std::string short_description(const Tool& tool) {
    std::string text = tool.description;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '.' && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n')) {
            text.resize(i);
            break;
        }
    }
    for (auto& c : text) {
        if (c == '\n') c = ' ';
    }
    if (text.size() > 100) text = text.substr(0, 100) + "...";
    return text;
}

json::object respond(std::string thought, std::string note, std::string style) {
    json::object reply{{"thought", std::move(thought)}, {"respond", true}};
    if (!style.empty()) reply["response_style"] = std::move(style);
    if (!note.empty()) reply["note"] = std::move(note);
    return reply;
}

json::object act(std::string thought, const std::string& tool, json::object args) {
    return json::object{{"thought", std::move(thought)},
                        {"action", json::object{{"tool", tool}, {"args", std::move(args)}}}};
}

int score_tool(const Tool& tool, const GoalAnalysis& goal) {
    int score = 0;
    if (goal.domain != GoalDomain::none) {
        const auto& words = domain_words().at(goal.domain);
        if (any_in(tool.id_words, words)) {
            score += 4;
        } else if (any_in(tool.description_words, words)) {
            score += 2;
        } else {
            score -= 2;  // a tool for other data
        }
    }
    if (goal.verb != GoalVerb::none) {
        const auto& words = verb_words().at(goal.verb);
        if (any_in(tool.id_words, words)) {
            score += 4;
        } else if (goal.verb == GoalVerb::recall && tool_does(tool, GoalVerb::search)) {
            score += 2;  // searching memory is the next best way to recall
        } else if (goal.verb == GoalVerb::list && tool_does(tool, GoalVerb::recall)) {
            score += 1;
        }
    }
    // A word of the goal in the tool's id says most (a third-party "weather_forecast" for "the
    // weather in Lisbon"); in its description, less.
    int id_overlap = 0, overlap = 0;
    for (const auto& word : goal.content_words) {
        if (tool.id_words.contains(word)) {
            ++id_overlap;
        } else if (tool.description_words.contains(word)) {
            ++overlap;
        }
    }
    score += 3 * std::min(id_overlap, 2) + std::min(overlap, 3);
    if (!goal.action_word.empty() && tool.id_words.contains(goal.action_word) &&
        std::find(goal.content_words.begin(), goal.content_words.end(), goal.action_word) == goal.content_words.end()) {
        score += 3;
    }
    for (const auto& words : tool.example_words) {
        if (goal.content_words.empty() || words.empty()) continue;
        int shared = 0;
        for (const auto& word : goal.words) shared += words.contains(word) ? 1 : 0;
        if (shared * 2 >= static_cast<int>(words.size())) {
            score += 2;
            break;
        }
    }
    const bool writes = goal.verb == GoalVerb::create || goal.verb == GoalVerb::update || goal.verb == GoalVerb::remove;
    if (!tool.read_only && !writes && id_overlap == 0) score -= 4;  // never change data for a question
    if (tool.read_only && writes) score -= 3;
    return score;
}

std::vector<RankedTool> rank_tools(const std::vector<Tool>& tools, const GoalAnalysis& goal) {
    std::vector<RankedTool> ranked;
    for (const auto& tool : tools) ranked.push_back({&tool, score_tool(tool, goal)});
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const RankedTool& a, const RankedTool& b) { return a.score > b.score; });
    return ranked;
}

}  // namespace skillhost::offline_model
