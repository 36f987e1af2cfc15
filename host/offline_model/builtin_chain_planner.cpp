// The builtin planner's multi-step parts: entity questions across every kind of data, find-then-act
// chains on one item, and the honest answer when no tool can do what the goal asks.
#include "offline_model/builtin_plan_context.hpp"
#include "language/text_scan.hpp"

#include <algorithm>

namespace skillhost::offline_model {

using namespace language;  // the offline model reads goals with the host's rule-based text analysis
namespace {

namespace json = boost::json;

bool tried_tool(const std::vector<Step>& steps, const std::string& id) {
    return std::any_of(steps.begin(), steps.end(), [&](const Step& s) { return s.tool == id; });
}

const Step* last_step_of(const std::vector<Step>& steps, const std::string& id) {
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
        if (it->tool == id) return &*it;
    }
    return nullptr;
}

// The free-text input of a search tool: query, text, q or term.
std::string text_input(const Tool& tool) {
    for (const char* name : {"query", "text", "q", "term", "keywords"}) {
        if (declares(tool, name)) return name;
    }
    return {};
}

// A read-only search tool for `domain` that takes free text.
const Tool* search_tool(const std::vector<Tool>& tools, GoalDomain domain) {
    for (const auto& tool : tools) {
        if (tool.read_only && tool_in_domain(tool, domain) && tool_does(tool, GoalVerb::search) &&
            !text_input(tool).empty()) {
            return &tool;
        }
    }
    return nullptr;
}

const Tool* list_tool(const std::vector<Tool>& tools, GoalDomain domain) {
    for (const auto& tool : tools) {
        if (tool.read_only && tool_in_domain(tool, domain) && tool_does(tool, GoalVerb::list) &&
            tool.required.empty()) {
            return &tool;
        }
    }
    return nullptr;
}

// A tool that changes (or deletes) one item of `domain` by its id.
const Tool* change_tool(const std::vector<Tool>& tools, GoalDomain domain, GoalVerb verb) {
    for (const auto& tool : tools) {
        if (tool.read_only || !tool_in_domain(tool, domain) || !tool_does(tool, verb)) continue;
        if (declares(tool, "id")) return &tool;
    }
    return nullptr;
}

std::string domain_noun(GoalDomain domain) {
    switch (domain) {
        case GoalDomain::task: return "task";
        case GoalDomain::file: return "file";
        case GoalDomain::memory: return "memory";
        case GoalDomain::none: break;
    }
    return "item";
}

std::string item_text(const json::object& item, std::string_view field) {
    const auto* value = item.if_contains(field);
    if (!value) return {};
    if (value->is_string()) return std::string(value->as_string());
    if (value->is_array()) {
        std::string joined;
        for (const auto& v : value->as_array()) {
            if (v.is_string()) joined += std::string(v.as_string()) + " ";
        }
        return joined;
    }
    return {};
}

std::string item_title(const json::object& item) {
    for (const char* field : {"title", "name", "path", "text"}) {
        if (auto text = item_text(item, field); !text.empty()) return text;
    }
    return json::serialize(item);
}

std::string item_id(const json::object& item) {
    const auto* id = item.if_contains("id");
    if (!id) return {};
    return id->is_string() ? std::string(id->as_string()) : json::serialize(*id);
}

// Every word of `target` is in `words` (a word matches one that starts with it: "lockbox" matches
// "lockboxes").
int words_found(const std::vector<std::string>& target, const std::vector<std::string>& words) {
    int found = 0;
    for (const auto& t : target) {
        const bool hit = std::any_of(words.begin(), words.end(), [&](const std::string& w) {
            return w == t || (t.size() >= 4 && w.starts_with(t)) || (w.size() >= 4 && t.starts_with(w));
        });
        found += hit ? 1 : 0;
    }
    return found;
}

struct Match {
    std::vector<const json::object*> exact;  // every word of the description in the title
    std::vector<const json::object*> loose;  // every word somewhere (title, notes, tags)
};

Match match_items(const std::vector<const json::object*>& items, const std::string& target) {
    const auto target_words = keywords_of(target);
    Match match;
    for (const auto* item : items) {
        if (item_id(*item) == target) {
            match.exact.push_back(item);
            continue;
        }
        const int want = static_cast<int>(target_words.size());
        if (words_found(target_words, keywords_of(item_title(*item))) == want) {
            match.exact.push_back(item);
            continue;
        }
        std::string all = item_title(*item);
        for (const char* field : {"notes", "tags", "text", "snippet"}) all += " " + item_text(*item, field);
        if (words_found(target_words, keywords_of(all)) == want) match.loose.push_back(item);
    }
    return match;
}

// What the change does, as an instruction ("rename it to ...") or as done ("renamed it to ...").
std::string describe_change(const ItemChange& change, GoalVerb verb, bool done = false) {
    if (verb == GoalVerb::remove) return done ? "deleted it" : "delete it";
    std::string text;
    const auto add = [&](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
    if (change.title) add((done ? "renamed it to \"" : "rename it to \"") + *change.title + "\"");
    if (change.status) add("set its status to " + *change.status);
    if (change.priority) add("set its priority to " + *change.priority);
    if (change.tag) add((done ? "tagged it " : "tag it ") + *change.tag);
    if (change.due) add((done ? "made it due " : "make it due ") + *change.due);
    return text;
}

json::object change_args(const Tool& tool, const json::object& item, const ItemChange& change) {
    json::object args;
    const auto* id = item.if_contains("id");
    if (id) args["id"] = *id;
    const auto put = [&](const char* name, const std::optional<std::string>& value) {
        if (value && declares(tool, name)) args[name] = *value;
    };
    put("title", change.title);
    put("status", change.status);
    put("priority", change.priority);
    put("due", change.due);
    if (change.tag && declares(tool, "tags")) {
        // The tool replaces the whole list: keep the item's tags and add the new one.
        json::array tags;
        if (const auto* old = item.if_contains("tags"); old && old->is_array()) tags = old->as_array();
        if (std::find(tags.begin(), tags.end(), json::value(*change.tag)) == tags.end()) tags.emplace_back(*change.tag);
        args["tags"] = std::move(tags);
    }
    return args;
}

std::string list_candidates(const std::vector<const json::object*>& items) {
    std::string text;
    std::size_t shown = 0;
    for (const auto* item : items) {
        if (shown++ == 5) {
            text += "\n- and " + std::to_string(items.size() - 5) + " more";
            break;
        }
        text += "\n- " + item_title(*item);
        if (auto id = item_id(*item); !id.empty()) text += " (id " + id + ")";
    }
    return text;
}

}  // namespace

std::optional<json::object> plan_entity_question(const GoalAnalysis& goal, const std::vector<Tool>& tools,
                                                 const std::vector<Step>& steps) {
    if (!goal.entity) return std::nullopt;
    std::vector<std::string> searched;
    for (auto domain : {GoalDomain::memory, GoalDomain::task, GoalDomain::file}) {
        const Tool* tool = search_tool(tools, domain);
        if (!tool) continue;
        searched.push_back(tool->id);
        if (tried_tool(steps, tool->id)) continue;
        json::object args{{text_input(*tool), *goal.entity}};
        return act("The goal asks about \"" + *goal.entity + "\"; searching " + domain_noun(domain) +
                       " data for it with " + tool->id + ".",
                   tool->id, std::move(args));
    }
    if (searched.empty()) return std::nullopt;
    std::string where;
    for (const auto& id : searched) where += (where.empty() ? "" : ", ") + id;
    return respond("Searched " + where + " for \"" + *goal.entity + "\"; answering from what they found.",
                   "What I found about " + *goal.entity + " (searched with " + where + "):");
}

std::optional<json::object> plan_item_change(const GoalAnalysis& goal, const std::vector<Tool>& tools,
                                             const std::vector<Step>& steps) {
    if (goal.verb != GoalVerb::update && goal.verb != GoalVerb::remove) return std::nullopt;
    // "Set an alarm": naming neither the data nor a change a tool makes, it is not a change to an item.
    if (goal.domain == GoalDomain::none && goal.verb == GoalVerb::update && !goal.change.any()) return std::nullopt;
    // Only tasks have items changed by id among the built-in data; other domains say so below.
    const GoalDomain domain = goal.domain == GoalDomain::none ? GoalDomain::task : goal.domain;
    const Tool* changer = change_tool(tools, domain, goal.verb);
    const Tool* finder = search_tool(tools, domain);
    const Tool* lister = list_tool(tools, domain);
    if (!changer || (!finder && !lister)) return std::nullopt;
    const std::string noun = domain_noun(domain);
    if (goal.verb == GoalVerb::update && !goal.change.any()) {
        return respond("The goal asks to change a " + noun + " but not what to change.",
                       "Which change do you want? I can set a " + noun +
                           "'s title, status, priority, tags or due date "
                           "with " +
                           changer->id + ". Nothing was changed.");
    }
    if (goal.target.empty()) {
        return respond("The goal does not say which " + noun + " to change.",
                       "Which " + noun + " do you mean? Name it by words from its title. Nothing was changed.");
    }
    // The change was made (or failed): answer with it.
    if (const Step* done = last_step_of(steps, changer->id)) {
        if (done->ok) {
            // The changed item as the tool returned it: {"task": {...}}.
            std::string item = "the " + noun;
            if (const auto* record = done->data.is_object() ? done->data.as_object().if_contains(noun) : nullptr;
                record && record->is_object()) {
                item = "\"" + item_title(record->as_object()) + "\"";
                if (auto id = item_id(record->as_object()); !id.empty()) item += " (id " + id + ")";
            }
            const std::string what = describe_change(goal.change, goal.verb, true);
            return respond(changer->id + " made the change; answering with the result.",
                           goal.verb == GoalVerb::remove
                               ? "Done: " + changer->id + " deleted " + item + "."
                               : "Done: " + changer->id + " " + what + "; the " + noun + " is now " + item + ".");
        }
        std::string note = "I found the " + noun + " but " + changer->id + " failed";
        if (!done->error_code.empty()) note += " (" + done->error_code + ": " + done->error_message + ")";
        for (const auto& s : done->suggestions) note += "\n  Suggested: " + s;
        return respond(changer->id + " failed; reporting it.", note + "\nNothing was changed.");
    }
    // "Find my unfinished tasks and ...": the list the goal asks for comes first.
    if (goal.lists_first && lister && !tried_tool(steps, lister->id)) {
        return act("The goal first asks for the " + noun + " list; listing with " + lister->id + ".", lister->id, {});
    }
    // Find the item: with the search tool, or when that failed, in the full list.
    // "Complete task 3": an id is looked up in the list, not searched for as words.
    const bool by_id = std::all_of(goal.target.begin(), goal.target.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (by_id && lister) finder = nullptr;
    if (by_id && lister && !tried_tool(steps, lister->id)) {
        json::object args;
        if (declares(*lister, "include_completed")) args["include_completed"] = true;
        if (declares(*lister, "limit")) args["limit"] = 500;
        return act("The goal names " + noun + " " + goal.target + " by id; listing to find it with " + lister->id + ".",
                   lister->id, std::move(args));
    }
    const Step* found = finder ? last_step_of(steps, finder->id) : nullptr;
    if (finder && !found) {
        json::object args{{text_input(*finder), goal.target}};
        if (goal.only_unfinished && declares(*finder, "include_completed")) args["include_completed"] = false;
        return act("To " + describe_change(goal.change, goal.verb) + " the " + noun + " must be found first; " +
                       finder->id + " looks for \"" + goal.target + "\".",
                   finder->id, std::move(args));
    }
    if (found && !found->ok) {
        const Step* listed = lister ? last_step_of(steps, lister->id) : nullptr;
        if (lister && !listed) {
            return act(finder->id + " failed (" + found->error_code + "); looking through the whole list with " +
                           lister->id + " instead.",
                       lister->id, json::object{});
        }
        found = listed;
    }
    if (!found && lister) found = last_step_of(steps, lister->id);
    if (!found || !found->ok) {
        std::string note = "I could not look the " + noun + " up, so nothing was changed.";
        for (const auto& step : steps) {
            if (!step.ok) note += "\n" + step.tool + " failed (" + step.error_code + "): " + step.error_message;
            for (const auto& s : step.suggestions) note += "\n  Suggested: " + s;
        }
        return respond("The " + noun + " could not be looked up.", note);
    }
    const auto items = result_items(found->data);
    const Match match = match_items(items, goal.target);
    const auto& candidates = !match.exact.empty() ? match.exact : match.loose;
    if (candidates.empty()) {
        std::string note = "No " + noun + " matches \"" + goal.target + "\", so nothing was changed.";
        if (!items.empty()) note += " The closest I found:" + list_candidates(items);
        return respond("No " + noun + " matches the description.", note);
    }
    if (candidates.size() > 1) {
        return respond("Several " + noun + "s match \"" + goal.target + "\"; asking which one.",
                       "Several " + noun + "s match \"" + goal.target + "\":" + list_candidates(candidates) +
                           "\nWhich one do you mean? Nothing was changed.");
    }
    const json::object& item = *candidates.front();
    if (!item.contains("id")) {
        return respond("The " + noun + " found has no id to change it by.",
                       "I found \"" + item_title(item) + "\" but it has no id " + changer->id + " could use.");
    }
    json::object args = change_args(*changer, item, goal.change);
    return act(found->tool + " found \"" + item_title(item) + "\" (id " + item_id(item) + "); " + changer->id +
                   " will " + describe_change(goal.change, goal.verb) + ".",
               changer->id, std::move(args));
}

std::optional<json::object> plan_named_file(const GoalAnalysis& goal, const std::vector<Tool>& tools,
                                            const std::vector<Step>& steps) {
    // "Read the README file": a file named without its exact path is found in the listing, then read.
    if (goal.domain != GoalDomain::file || goal.file_name || goal.glob || goal.directory) return std::nullopt;
    if (!has_any_phrase(goal.lower, {"read", "open", "show me the", "contents of", "content of", "what's in",
                                     "what is in", "display", "cat", "print"})) {
        return std::nullopt;
    }
    static const std::set<std::string> generic = {"file", "content", "me",    "doc", "document",
                                                  "read", "display", "print", "cat", "workspace"};
    std::vector<std::string> name;
    for (const auto& word : goal.content_words) {
        if (!generic.contains(word)) name.push_back(word);
    }
    if (name.empty()) return std::nullopt;
    const Tool* lister = list_tool(tools, GoalDomain::file);
    const Tool* reader = nullptr;
    for (const auto& tool : tools) {
        if (tool.read_only && tool_in_domain(tool, GoalDomain::file) && tool_does(tool, GoalVerb::read) &&
            declares(tool, "path")) {
            reader = &tool;
            break;
        }
    }
    if (!lister || !reader) return std::nullopt;
    if (const Step* read = last_step_of(steps, reader->id)) {
        return respond(read->ok ? "The file was read; answering with it." : reader->id + " failed; reporting it.");
    }
    const Step* listed = last_step_of(steps, lister->id);
    if (!listed) {
        json::object args;
        if (declares(*lister, "recursive")) args["recursive"] = true;
        return act("The goal names a file without its path; listing the workspace with " + lister->id + " to find it.",
                   lister->id, std::move(args));
    }
    if (!listed->ok) return std::nullopt;
    std::vector<const json::object*> files;
    for (const auto* entry : result_items(listed->data)) {
        if (item_text(*entry, "type") == "directory") continue;
        std::string path = item_text(*entry, "path");
        if (path.empty()) path = item_text(*entry, "name");
        const std::string base = path.substr(path.find_last_of('/') + 1);
        if (words_found(name, keywords_of(base)) == static_cast<int>(name.size())) files.push_back(entry);
    }
    std::string wanted;
    for (const auto& word : name) wanted += (wanted.empty() ? "" : " ") + word;
    if (files.size() == 1) {
        std::string path = item_text(*files.front(), "path");
        if (path.empty()) path = item_text(*files.front(), "name");
        return act(lister->id + " shows one file named like \"" + wanted + "\": " + path + "; reading it.", reader->id,
                   json::object{{"path", path}});
    }
    if (files.empty()) {
        return respond("No file is named like the goal says.",
                       "No file in the workspace is named like \"" + wanted + "\"; nothing was read.");
    }
    return respond("Several files match; asking which one.", "Several files are named like \"" + wanted + "\":" +
                                                                 list_candidates(files) + "\nWhich one do you mean?");
}

namespace {

// The honest answer when no tool can do what the goal asks: what cannot be done and the closest skills.
json::object explain_gap(const GoalAnalysis& goal, const std::vector<Tool>& tools, const std::string& what) {
    std::string object;
    if (goal.domain != GoalDomain::none) {
        object = goal.domain == GoalDomain::memory ? " memories" : " " + domain_noun(goal.domain) + "s";
    } else if (const auto at = find_phrase(goal.lower, goal.action_word); at != std::string::npos) {
        // "send an email", "book a flight": the action's object when an article introduces it.
        std::vector<std::string> words;
        std::string word;
        for (std::size_t i = at + goal.action_word.size(); i < goal.lower.size() && words.size() < 2; ++i) {
            const char c = goal.lower[i];
            if (c == ' ' || c == ',' || c == '.' || c == '?' || c == '!') {
                if (!word.empty()) words.push_back(std::move(word));
                word.clear();
            } else {
                word += c;
            }
        }
        if (!word.empty() && words.size() < 2) words.push_back(word);
        static const std::set<std::string> articles = {"a", "an", "the", "my", "some", "all"};
        if (words.size() == 2 && articles.contains(words[0])) object = " " + words[0] + " " + words[1];
    }

    std::vector<RankedTool> ranked = rank_tools(tools, goal);
    // Tools for the same data are closest, whatever they do.
    std::stable_partition(ranked.begin(), ranked.end(),
                          [&](const RankedTool& r) { return tool_in_domain(*r.tool, goal.domain); });
    std::string closest;
    for (std::size_t i = 0; i < ranked.size() && i < 3; ++i) {
        closest += "\n- " + ranked[i].tool->id + ": " + short_description(*ranked[i].tool);
    }
    std::string note = "I can't do that: none of the available skills can " + what + object + ", so nothing was done.";
    if (!closest.empty()) note += "\nThe closest skills are:" + closest;
    return respond("No tool can " + what + object + "; saying so and naming the closest skills.", note, "default");
}

}  // namespace

std::optional<json::object> plan_capability_gap(const GoalAnalysis& goal, const std::vector<Tool>& tools) {
    // Doing things in the world: only a tool that names the action can.
    static const std::set<std::string> outward = {
        "send",      "email", "e-mail",  "mail",    "text",     "message", "call",     "phone",  "book",    "buy",
        "purchase",  "order", "pay",     "print",   "share",    "upload",  "download", "post",   "tweet",   "publish",
        "translate", "move",  "copy",    "install", "deploy",   "run",     "execute",  "invite", "forward", "reply",
        "fax",       "play",  "archive", "zip",     "schedule", "rename",  "delete",   "remove", "erase"};
    std::string what;
    if (outward.contains(goal.action_word)) {
        const bool named = std::any_of(tools.begin(), tools.end(), [&](const Tool& tool) {
            const auto words = keywords_of(goal.action_word);
            return !words.empty() && (tool.id_words.contains(words.front()));
        });
        const bool domain_op =
            (goal.verb == GoalVerb::remove || goal.verb == GoalVerb::update) && goal.domain != GoalDomain::none;
        if (!named && !domain_op) what = goal.action_word;
    }
    const bool writes = goal.verb == GoalVerb::create || goal.verb == GoalVerb::update || goal.verb == GoalVerb::remove;
    if (what.empty() && writes && goal.domain != GoalDomain::none) {
        const bool can = std::any_of(tools.begin(), tools.end(), [&](const Tool& tool) {
            return !tool.read_only && tool_in_domain(tool, goal.domain) && tool_does(tool, goal.verb);
        });
        if (!can) what = (goal.action_word.empty() ? std::string(to_string(goal.verb)) : goal.action_word);
    }
    if (what.empty()) return std::nullopt;
    return explain_gap(goal, tools, what);
}

std::optional<json::object> plan_no_fit(const GoalAnalysis& goal, const std::vector<Tool>& tools) {
    static const std::set<std::string> not_actions = {
        "what",      "which",     "who",     "whom",     "whose", "where", "when",   "why",   "how",  "is",     "are",
        "was",       "were",      "do",      "does",     "did",   "can",   "could",  "would", "will", "should", "tell",
        "show",      "list",      "give",    "hello",    "hi",    "hey",   "thanks", "thank", "ok",   "okay",   "bye",
        "goodbye",   "good",      "cool",    "nice",     "great", "yes",   "no",     "sure",  "i",    "my",     "the",
        "a",         "an",        "it",      "this",     "that",  "there", "any",    "have",  "has",  "am",     "let",
        "summarize", "summarise", "explain", "describe", "recap", "count"};
    static const std::set<std::string> greetings = {"hello", "hi",  "hey",     "thanks", "thank", "ok",
                                                    "okay",  "bye", "goodbye", "good",   "cool",  "nice",
                                                    "great", "yes", "no",      "sure"};
    if (goal.action_word.empty() || greetings.contains(goal.action_word) || goal.content_words.empty()) {
        return std::nullopt;
    }
    const bool question = not_actions.contains(goal.action_word) || goal.lower.find('?') != std::string::npos;
    if (!question) return explain_gap(goal, tools, goal.action_word);
    // A question about something no skill has data on ("What's the weather in Lisbon?").
    std::string closest;
    for (const auto& ranked : rank_tools(tools, goal)) {
        if (closest.size() > 200) break;
        closest += (closest.empty() ? "" : ", ") + ranked.tool->id;
    }
    return respond("No tool has data for this question; saying so.",
                   "None of the available skills has data that answers this, so I cannot answer it from your "
                   "data. The skills I have: " +
                       closest + ".",
                   "default");
}

}  // namespace skillhost::offline_model
