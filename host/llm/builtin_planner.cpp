#include "llm/builtin_planner.hpp"

#include "llm/goal_analysis.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace skillhost::llm::builtin {
namespace {

namespace json = boost::json;

struct Tool {
    std::string id;
    std::set<std::string> id_words;
    std::set<std::string> description_words;
    json::object properties;
    std::vector<std::string> required;
    std::vector<std::pair<std::set<std::string>, json::object>> examples;  // description words, args
    bool read_only = false;
    std::size_t order = 0;
};

struct Step {
    std::string tool;
    json::object args;
    bool ok = false;
    std::string error_code;
};

std::string string_field(const json::object& object, std::string_view key) {
    const auto* value = object.if_contains(key);
    return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

std::set<std::string> word_set(std::string_view text) {
    const auto words = keywords_of(text);
    return {words.begin(), words.end()};
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
        tool.description_words = word_set(string_field(object, "description"));
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
                tool.examples.emplace_back(word_set(string_field(example.as_object(), "description")),
                                           args && args->is_object() ? args->as_object() : json::object{});
            }
        }
        if (const auto* read_only = object.if_contains("read_only"); read_only && read_only->is_bool()) {
            tool.read_only = read_only->as_bool();
        }
        tool.order = tools.size();
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
        step.error_code = string_field(object, "error_code");
        steps.push_back(std::move(step));
    }
    return steps;
}

// Words a tool uses for each intent and each data domain.
const std::map<GoalVerb, std::set<std::string>>& verb_words() {
    static const std::map<GoalVerb, std::set<std::string>> words = {
        {GoalVerb::list, {"list", "all"}},
        {GoalVerb::read, {"read", "get", "show", "open", "view", "content"}},
        {GoalVerb::search, {"search", "find", "query", "lookup"}},
        {GoalVerb::create, {"create", "add", "capture", "write", "new", "save"}},
        {GoalVerb::update, {"update", "edit", "complete", "modify"}},
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
        } else if (goal.verb == GoalVerb::recall && any_in(tool.id_words, verb_words().at(GoalVerb::search))) {
            score += 2;  // searching memory is the next best way to recall
        } else if (goal.verb == GoalVerb::list && any_in(tool.id_words, verb_words().at(GoalVerb::recall))) {
            score += 1;
        }
    }
    int overlap = 0;
    for (const auto& word : goal.content_words) {
        if (tool.id_words.contains(word) || tool.description_words.contains(word)) ++overlap;
    }
    score += std::min(overlap, 3);
    for (const auto& [words, args] : tool.examples) {
        if (goal.content_words.empty() || words.empty()) continue;
        int shared = 0;
        for (const auto& word : goal.words) shared += words.contains(word) ? 1 : 0;
        if (shared * 2 >= static_cast<int>(words.size())) {
            score += 2;
            break;
        }
    }
    const bool writes = goal.verb == GoalVerb::create || goal.verb == GoalVerb::update || goal.verb == GoalVerb::remove;
    if (!tool.read_only && !writes) score -= 4;  // never change data for a question
    if (tool.read_only && writes) score -= 3;
    return score;
}

// The enum of a property, when it has one; a value outside it is not used.
bool allowed_value(const json::object& property, const std::string& value) {
    const auto* values = property.if_contains("enum");
    if (!values || !values->is_array()) return true;
    for (const auto& allowed : values->as_array()) {
        if (allowed.is_string() && allowed.as_string() == value) return true;
    }
    return false;
}

std::string property_type(const json::object& property) {
    return string_field(property, "type");
}

// Fills the tool's inputs from what the goal says; only properties the tool declares.
json::object extract_args(const Tool& tool, const GoalAnalysis& goal) {
    json::object args;
    const auto put = [&](std::string_view name, const std::string& value) {
        const auto* property = tool.properties.if_contains(name);
        if (!property || !property->is_object() || value.empty()) return;
        if (!allowed_value(property->as_object(), value)) return;
        args[name] = value;
    };
    const bool creates = goal.verb == GoalVerb::create;
    if (creates && goal.title) {
        put("title", *goal.title);
        if (!args.contains("title")) put("text", *goal.title);
    }
    if (goal.priority) put("priority", *goal.priority);
    if (goal.file_name) {
        put("path", *goal.file_name);
    } else if (goal.directory) {
        put("path", *goal.directory);
    }
    if (goal.time_phrase) put("when", *goal.time_phrase);
    if (!creates && !goal.query.empty()) {
        put("query", goal.query);
        if (!args.contains("query")) put("text", goal.query);
    }
    if (goal.glob) {
        put("pattern", *goal.glob);
        put("glob", *goal.glob);
    } else if (goal.file_name && tool.properties.contains("pattern") && !tool.properties.contains("path")) {
        put("pattern", *goal.file_name);
    }
    const auto set_flag = [&](std::string_view name) {
        const auto* property = tool.properties.if_contains(name);
        if (property && property->is_object() && property_type(property->as_object()) == "boolean") args[name] = true;
    };
    // A file-type pattern ("all markdown files") means the whole tree, not one directory.
    if (goal.glob && !goal.directory) set_flag("recursive");
    if (goal.wants_completed) set_flag("include_completed");
    return args;
}

bool has_required(const Tool& tool, const json::object& args) {
    return std::all_of(tool.required.begin(), tool.required.end(),
                       [&](const std::string& name) { return args.contains(name); });
}

// After a failed read of a missing file, look for it by name instead.
json::object recovery_args(const Tool& tool, const GoalAnalysis& goal) {
    json::object args;
    if (!goal.file_name) return args;
    const std::string base = goal.file_name->substr(goal.file_name->find_last_of('/') + 1);
    for (const char* name : {"pattern", "name", "glob"}) {
        if (tool.properties.contains(name)) {
            args[name] = base;
            return args;
        }
    }
    if (tool.properties.contains("query")) args["query"] = base;
    return args;
}

json::object respond(std::string thought) {
    return json::object{{"thought", std::move(thought)}, {"respond", true}};
}

json::object act(std::string thought, const std::string& tool, json::object args) {
    return json::object{{"thought", std::move(thought)},
                        {"action", json::object{{"tool", tool}, {"args", std::move(args)}}}};
}

std::string describe_goal(const GoalAnalysis& goal) {
    std::string text = "The goal asks to " + std::string(to_string(goal.verb));
    if (goal.domain != GoalDomain::none) text += " " + std::string(to_string(goal.domain)) + " data";
    if (goal.time_phrase) text += " for " + *goal.time_phrase;
    return text;
}

}  // namespace

json::object plan_next_step(const json::object& context) {
    const std::string goal_text = string_field(context, "goal");
    const GoalAnalysis goal = analyse_goal(goal_text);
    const std::vector<Tool> tools = read_tools(context);
    const std::vector<Step> steps = read_steps(context);

    for (const auto& step : steps) {
        if (step.ok) {
            return respond("The observation from " + step.tool + " has the data for the goal; answering from it.");
        }
    }
    constexpr std::size_t kMaxAttempts = 3;
    if (steps.size() >= kMaxAttempts) {
        return respond("Tried " + std::to_string(steps.size()) + " actions without success; reporting what failed.");
    }
    const auto tried = [&](const std::string& id, const json::object& args) {
        return std::any_of(steps.begin(), steps.end(),
                           [&](const Step& s) { return s.tool == id && s.args == args; });
    };
    const auto tried_tool = [&](const std::string& id) {
        return std::any_of(steps.begin(), steps.end(), [&](const Step& s) { return s.tool == id; });
    };

    // A missing file: search for it by name with a search or list tool of the file domain.
    if (!steps.empty() && steps.back().error_code == "FILE_NOT_FOUND") {
        for (const auto& tool : tools) {
            if (!tool.read_only || tried_tool(tool.id)) continue;
            const bool file_tool = any_in(tool.id_words, domain_words().at(GoalDomain::file));
            const bool finds = any_in(tool.id_words, verb_words().at(GoalVerb::search));
            if (!file_tool || !finds) continue;
            json::object args = recovery_args(tool, goal);
            if (!args.empty() && has_required(tool, args)) {
                return act(steps.back().tool + " reported FILE_NOT_FOUND; searching for the file by name with " +
                               tool.id + ".",
                           tool.id, std::move(args));
            }
        }
    }

    if (goal.verb == GoalVerb::none && goal.domain == GoalDomain::none) {
        return respond("The goal does not ask for data any tool provides; answering directly.");
    }

    struct Candidate {
        const Tool* tool;
        int score;
    };
    std::vector<Candidate> ranked;
    for (const auto& tool : tools) ranked.push_back({&tool, score_tool(tool, goal)});
    std::stable_sort(ranked.begin(), ranked.end(), [](const Candidate& a, const Candidate& b) { return a.score > b.score; });

    constexpr int kMinimumScore = 4;
    std::string missing;
    for (const auto& candidate : ranked) {
        if (candidate.score < kMinimumScore) break;
        const Tool& tool = *candidate.tool;
        json::object args = extract_args(tool, goal);
        if (!has_required(tool, args)) {
            if (missing.empty()) {
                for (const auto& name : tool.required) {
                    if (!args.contains(name)) missing += (missing.empty() ? "" : ", ") + name;
                }
                missing = tool.id + " needs " + missing;
            }
            continue;
        }
        if (tried(tool.id, args)) continue;
        std::string thought = describe_goal(goal) + "; " + tool.id + " fits best";
        if (!args.empty()) thought += ", with arguments taken from the goal";
        return act(thought + ".", tool.id, std::move(args));
    }
    if (!steps.empty()) {
        return respond("The actions tried did not succeed and no other tool fits; reporting what failed.");
    }
    if (!missing.empty()) {
        return respond("No tool can be called: " + missing + ", which the goal does not say.");
    }
    return respond("No available tool matches the goal; answering directly.");
}

}  // namespace skillhost::llm::builtin
