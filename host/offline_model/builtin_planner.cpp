#include "offline_model/builtin_planner.hpp"

#include "offline_model/builtin_plan_context.hpp"
#include "language/text_scan.hpp"

#include <algorithm>

namespace skillhost::offline_model {

using namespace language;  // the offline model reads goals with the host's rule-based text analysis
namespace {

namespace json = boost::json;

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

// A value for `input` learnt from the tool's examples: the example "Weather in Paris" with
// {city: "Paris"} says the city follows "in", so "the weather in Lisbon" gives "Lisbon".
std::optional<std::string> value_like_examples(const Tool& tool, std::string_view input, std::string_view goal) {
    const std::string lower_goal = lowercase(goal);
    for (const auto& [description, args] : tool.examples) {
        const auto* value = args.if_contains(input);
        if (!value || !value->is_string() || value->as_string().empty()) continue;
        const std::string lower_description = lowercase(description);
        const auto at = find_phrase(lower_description, lowercase(std::string(value->as_string())));
        if (at == std::string::npos || at < 2) continue;
        // The word just before the value in the example.
        std::size_t end = at;
        while (end > 0 && lower_description[end - 1] == ' ') --end;
        std::size_t start = end;
        while (start > 0 && is_word_byte(lower_description[start - 1])) --start;
        if (start == end) continue;
        const std::string lead = lower_description.substr(start, end - start) + " ";
        const auto found = find_phrase(lower_goal, lead);
        if (found == std::string::npos) continue;
        std::string rest(goal.substr(found + lead.size()));
        const auto stop = rest.find_first_of(",.?!;\n");
        if (stop != std::string::npos) rest.resize(stop);
        rest = trim(rest);
        if (!rest.empty() && rest.size() <= 80) return rest;
    }
    return std::nullopt;
}

// Fills the tool's inputs from what the goal says; only properties the tool declares.
json::object extract_args(const Tool& tool, const GoalAnalysis& goal, std::string_view goal_text) {
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
    } else if (goal.file_name && declares(tool, "pattern") && !declares(tool, "path")) {
        put("pattern", *goal.file_name);
    }
    const auto set_flag = [&](std::string_view name) {
        const auto* property = tool.properties.if_contains(name);
        if (property && property->is_object() && property_type(property->as_object()) == "boolean") args[name] = true;
    };
    // A file-type pattern ("all markdown files") means the whole tree, not one directory.
    if (goal.glob && !goal.directory) set_flag("recursive");
    if (goal.wants_completed) set_flag("include_completed");

    // A tool from another plugin: its required text inputs, learnt from its examples, or the goal's
    // words when only one is missing.
    std::vector<std::string> missing;
    for (const auto& name : tool.required) {
        const auto* property = tool.properties.if_contains(name);
        if (args.contains(name) || !property || !property->is_object()) continue;
        const std::string type = property_type(property->as_object());
        if (!type.empty() && type != "string") continue;
        if (auto value = value_like_examples(tool, name, goal_text)) {
            put(name, *value);
        } else {
            missing.push_back(name);
        }
    }
    if (missing.size() == 1 && !goal.query.empty()) put(missing.front(), goal.query);
    return args;
}

// After a failed read of a missing file, look for it by name instead.
json::object recovery_args(const Tool& tool, const GoalAnalysis& goal) {
    json::object args;
    if (!goal.file_name) return args;
    const std::string base = goal.file_name->substr(goal.file_name->find_last_of('/') + 1);
    for (const char* name : {"pattern", "name", "glob"}) {
        if (declares(tool, name)) {
            args[name] = base;
            return args;
        }
    }
    if (declares(tool, "query")) args["query"] = base;
    return args;
}

bool shares_words(const Tool& tool, const GoalAnalysis& goal) {
    return std::any_of(goal.content_words.begin(), goal.content_words.end(), [&](const std::string& word) {
        return tool.id_words.contains(word) || tool.description_words.contains(word);
    });
}

std::string describe_goal(const GoalAnalysis& goal) {
    std::string text = "The goal asks to " + std::string(to_string(goal.verb));
    if (goal.domain != GoalDomain::none) text += " " + std::string(to_string(goal.domain)) + " data";
    if (goal.time_phrase) text += " for " + *goal.time_phrase;
    return text;
}

// What failed, with the fixes the tools suggested, for the answer; without any, the other tools
// for the same data are the alternative.
std::string failure_note(const std::vector<Step>& steps, const std::vector<Tool>& tools, const GoalAnalysis& goal) {
    std::string note;
    bool suggested = false;
    for (const auto& step : steps) {
        if (step.ok) continue;
        note += (note.empty() ? "" : "\n") + step.tool + " failed";
        if (!step.error_code.empty()) note += " (" + step.error_code + ")";
        if (!step.error_message.empty()) note += ": " + step.error_message;
        for (const auto& suggestion : step.suggestions) note += "\n  Suggested: " + suggestion;
        suggested = suggested || !step.suggestions.empty();
    }
    if (note.empty() || suggested) return note;
    std::string others;
    for (const auto& tool : tools) {
        const bool used = std::any_of(steps.begin(), steps.end(), [&](const Step& s) { return s.tool == tool.id; });
        if (used || !tool.read_only || !tool_in_domain(tool, goal.domain)) continue;
        others += (others.empty() ? "" : ", ") + tool.id;
    }
    note += "\n  Suggested: fix the cause above and ask again";
    if (!others.empty()) note += ", or ask for what " + others + " can give instead";
    return note + ".";
}

}  // namespace

json::object plan_next_step(const json::object& context) {
    const std::string goal_text = string_field(context, "goal");
    const GoalAnalysis goal = analyse_goal(goal_text);
    const std::vector<Tool> tools = read_tools(context);
    const std::vector<Step> steps = read_steps(context);

    // Bounded on its own: each search skill at most three times, one read.
    if (auto reply = plan_content_question(goal, tools, steps)) return *reply;
    constexpr std::size_t kMaxSteps = 6;
    if (steps.size() >= kMaxSteps) {
        return respond("Took " + std::to_string(steps.size()) + " actions; answering with what they found.",
                       failure_note(steps, tools, goal));
    }
    if (auto reply = plan_entity_question(goal, tools, steps)) return *reply;
    if (auto reply = plan_item_change(goal, tools, steps)) return *reply;
    if (auto reply = plan_named_file(goal, tools, steps)) return *reply;

    for (const auto& step : steps) {
        if (step.ok) {
            return respond("The observation from " + step.tool + " has the data for the goal; answering from it.");
        }
    }
    if (steps.empty()) {
        if (auto reply = plan_capability_gap(goal, tools)) return *reply;
    }
    constexpr std::size_t kMaxAttempts = 3;
    if (steps.size() >= kMaxAttempts) {
        return respond("Tried " + std::to_string(steps.size()) + " actions without success; reporting what failed.",
                       failure_note(steps, tools, goal));
    }
    const auto tried = [&](const std::string& id, const json::object& args) {
        return std::any_of(steps.begin(), steps.end(), [&](const Step& s) { return s.tool == id && s.args == args; });
    };
    const auto tried_tool = [&](const std::string& id) {
        return std::any_of(steps.begin(), steps.end(), [&](const Step& s) { return s.tool == id; });
    };

    // A missing file: search for it by name with a search or list tool of the file domain.
    if (!steps.empty() && steps.back().error_code == "FILE_NOT_FOUND") {
        for (const auto& tool : tools) {
            if (!tool.read_only || tried_tool(tool.id)) continue;
            if (!tool_in_domain(tool, GoalDomain::file) || !tool_does(tool, GoalVerb::search)) continue;
            json::object args = recovery_args(tool, goal);
            if (!args.empty() && has_required(tool, args)) {
                return act(steps.back().tool + " reported FILE_NOT_FOUND; searching for the file by name with " +
                               tool.id + ".",
                           tool.id, std::move(args));
            }
        }
    }
    // A failed step whose error names another tool as the fix: follow the suggestion.
    if (!steps.empty() && !steps.back().ok) {
        for (const auto& suggestion : steps.back().suggestions) {
            for (const auto& tool : tools) {
                if (tried_tool(tool.id) || find_phrase(suggestion, tool.id) == std::string::npos) continue;
                json::object args = extract_args(tool, goal, goal_text);
                if (!has_required(tool, args)) continue;
                return act(steps.back().tool + " failed with " + steps.back().error_code + "; its error suggests " +
                               tool.id + ".",
                           tool.id, std::move(args));
            }
        }
    }

    const std::vector<RankedTool> ranked = rank_tools(tools, goal);

    constexpr int kMinimumScore = 4;
    std::string missing;
    // "Write a poem" names no data and nothing to create: no tool fits it.
    const bool creates_nothing_known = goal.verb == GoalVerb::create && goal.domain == GoalDomain::none && !goal.title;
    for (const auto& candidate : ranked) {
        if (candidate.score < kMinimumScore || creates_nothing_known) break;
        const Tool& tool = *candidate.tool;
        // Without a kind of data in the goal, a tool must share a word with it ("weather").
        if (goal.domain == GoalDomain::none && !shares_words(tool, goal)) continue;
        // After a failure, only tools for the same data are an alternative.
        if (!steps.empty() && goal.domain != GoalDomain::none && !tool_in_domain(tool, goal.domain)) continue;
        json::object args = extract_args(tool, goal, goal_text);
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
        if (!steps.empty()) thought = steps.back().tool + " failed; trying " + tool.id + " instead";
        if (!args.empty()) thought += ", with arguments taken from the goal";
        return act(thought + ".", tool.id, std::move(args));
    }
    if (!steps.empty()) {
        return respond("The actions tried did not succeed and no other tool fits; reporting what failed.",
                       failure_note(steps, tools, goal));
    }
    if (auto reply = plan_no_fit(goal, tools); reply && missing.empty()) return *reply;
    if (goal.verb == GoalVerb::none && goal.domain == GoalDomain::none) {
        return respond("The goal does not ask for data any tool provides; answering directly.");
    }
    if (!missing.empty()) {
        return respond("No tool can be called: " + missing + ", which the goal does not say.",
                       "I could not do this: " + missing + ", which the request does not say.");
    }
    return respond("No available tool matches the goal; answering directly.");
}

}  // namespace skillhost::offline_model
