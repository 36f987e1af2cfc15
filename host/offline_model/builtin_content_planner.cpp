// The builtin planner for questions whose answer sits inside the data rather than in a task title or
// an event list: "When do the lockbox codes rotate?", "How much is budgeted for insurance?", "Show me
// the meeting notes". It searches every read-only skill that takes free text (file contents, notes,
// memories, whatever the plugins offer), reads the file that matches best with a read-only skill
// that takes a path, and answers with the sentences or rows that answer the question, each cited.
// Tools are chosen by what their manifests declare (read-only, a free-text input, a path input, the
// fields of what they return), never by id.
#include "offline_model/builtin_answer.hpp"
#include "offline_model/builtin_passages.hpp"
#include "offline_model/builtin_plan_context.hpp"
#include "language/text_scan.hpp"

#include <algorithm>
#include <set>

namespace skillhost::offline_model {

using namespace language;  // the offline model reads goals with the host's rule-based text analysis
namespace {

namespace json = boost::json;

constexpr std::size_t kMaxPassages = 4;

// Words that shape a question but name nothing to look for.
const std::set<std::string>& question_words() {
    static const std::set<std::string> words = {"much", "many", "long", "often", "time", "date",  "day",  "say",
                                                "said", "know", "want", "wants", "need", "needs", "talk", "s",
                                                "me",   "kind", "sort", "like",  "doe",  "we",    "get"};
    return words;
}

bool is_question(const GoalAnalysis& goal) {
    return goal.lower.find('?') != std::string::npos ||
           starts_with_any_phrase(
               goal.lower, {"what", "when", "where", "who", "how", "which", "why", "did", "do", "does", "is", "are",
                            "was", "were", "has", "have", "show", "tell me", "give me"});
}

bool asks_to_show(const GoalAnalysis& goal) {
    return starts_with_any_phrase(goal.lower, {"show", "show me", "open", "read", "display", "give me"});
}

// The goal asks about something inside the data that is neither a task, a file named by its path,
// nor a time window of events.
bool asks_about_content(const GoalAnalysis& goal) {
    if (goal.file_name || goal.glob || goal.directory || goal.time_phrase || goal.entity || goal.quoted) return false;
    // "When did I write the budget draft?" asks about the past, whatever its verb would do.
    const bool about_the_past = starts_with_any_phrase(
        goal.lower, {"when did", "did i", "did we", "have i", "what did", "where did", "how did", "when was"});
    if (!about_the_past && goal.verb != GoalVerb::none && goal.verb != GoalVerb::list && goal.verb != GoalVerb::read) {
        return false;
    }
    if (goal.domain == GoalDomain::task || goal.domain == GoalDomain::file) return false;
    // A goal that names memory itself ("what do I remember", "my memories") is a memory lookup.
    if (goal.domain == GoalDomain::memory &&
        has_any_phrase(goal.lower, {"memory", "memories", "remember", "remembered", "happened", "event", "events"})) {
        return false;
    }
    return is_question(goal);
}

std::vector<std::string> key_words(const GoalAnalysis& goal) {
    std::vector<std::string> words;
    for (const auto& word : goal.content_words) {
        if (!question_words().contains(word)) words.push_back(word);
    }
    return words;
}

// The free-text input of a search skill.
std::string text_input_of(const Tool& tool) {
    for (const char* name : {"query", "text", "q", "term", "keywords"}) {
        const auto* property = tool.properties.if_contains(name);
        if (property && property->is_object() && string_field(property->as_object(), "type") != "boolean") {
            return name;
        }
    }
    return {};
}

// A read-only skill that searches by free text and needs nothing else.
bool is_searcher(const Tool& tool) {
    if (!tool.read_only) return false;
    const std::string input = text_input_of(tool);
    if (input.empty()) return false;
    return std::all_of(tool.required.begin(), tool.required.end(), [&](const std::string& r) { return r == input; });
}

// A read-only skill that returns one file's content for its path.
bool is_reader(const Tool& tool) {
    if (!tool.read_only || !declares(tool, "path") || !text_input_of(tool).empty()) return false;
    const bool path_required = std::find(tool.required.begin(), tool.required.end(), "path") != tool.required.end();
    return path_required && (tool.outputs.contains("content") || tool.description_words.contains("read"));
}

// A glob input ("name", "pattern", "glob") of a search skill, to find a file by its name.
std::string name_input_of(const Tool& tool) {
    for (const char* name : {"name", "pattern", "glob"}) {
        if (declares(tool, name)) return name;
    }
    return {};
}

std::vector<const Step*> steps_of(const std::vector<Step>& steps, const std::string& id) {
    std::vector<const Step*> found;
    for (const auto& step : steps) {
        if (step.tool == id) found.push_back(&step);
    }
    return found;
}

std::size_t count_items(const json::value& data) {
    return result_items(data).size();
}

// Files the searches found, best first: the goal's words in the path count most, then in the lines.
struct FileHit {
    std::string path;
    int score = 0;
    bool named = false;  // every word of the goal is in the path
};

std::vector<FileHit> files_found(const std::vector<Step>& steps, const std::vector<std::string>& keys) {
    std::vector<FileHit> files;
    for (const auto& step : steps) {
        if (!step.ok) continue;
        for (const auto* item : result_items(step.data)) {
            const auto* path_value = item->if_contains("path");
            if (!path_value || !path_value->is_string()) continue;
            if (const auto* type = item->if_contains("type"); type && type->is_string() && type->as_string() != "file")
                continue;
            const std::string path(path_value->as_string());
            const int in_path = words_matched(keys, keywords_of(path));
            int in_lines = 0;
            if (const auto* matches = item->if_contains("matches"); matches && matches->is_array()) {
                for (const auto& match : matches->as_array()) {
                    if (!match.is_object() || !match.as_object().contains("text")) continue;
                    in_lines =
                        std::max(in_lines, words_matched(keys, keywords_of(text_of(match.as_object().at("text")))));
                }
            }
            const int score = 3 * in_path + in_lines;
            auto it = std::find_if(files.begin(), files.end(), [&](const FileHit& f) { return f.path == path; });
            if (it == files.end()) {
                files.push_back({path, score, in_path == static_cast<int>(keys.size())});
            } else {
                it->score = std::max(it->score, score);
            }
        }
    }
    std::stable_sort(files.begin(), files.end(), [](const FileHit& a, const FileHit& b) { return a.score > b.score; });
    return files;
}

std::string joined(const std::vector<std::string>& words, std::string_view separator) {
    std::string out;
    for (const auto& word : words) out += (out.empty() ? "" : std::string(separator)) + word;
    return out;
}

}  // namespace

std::optional<json::object> plan_content_question(const GoalAnalysis& goal, const std::vector<Tool>& tools,
                                                  const std::vector<Step>& steps) {
    if (!asks_about_content(goal)) return std::nullopt;
    const std::vector<std::string> keys = key_words(goal);
    if (keys.empty()) return std::nullopt;
    // A read-only skill named for what the goal asks ("weather_forecast" for the weather) answers it
    // directly; a question never goes to a skill that writes ("fs_write" for "when did I write").
    for (const auto& tool : tools) {
        if (tool.read_only && std::any_of(keys.begin(), keys.end(),
                                          [&](const std::string& key) { return tool.id_words.contains(key); })) {
            return std::nullopt;
        }
    }
    std::vector<const Tool*> searchers;
    const Tool* reader = nullptr;
    for (const auto& tool : tools) {
        if (is_searcher(tool)) searchers.push_back(&tool);
        if (!reader && is_reader(tool)) reader = &tool;
    }
    if (searchers.empty()) return std::nullopt;
    // The planner never took a step that is not part of this search: any other step means another
    // part of the planner is at work.
    for (const auto& step : steps) {
        const bool ours =
            std::any_of(searchers.begin(), searchers.end(), [&](const Tool* t) { return t->id == step.tool; }) ||
            (reader && reader->id == step.tool);
        if (!ours) return std::nullopt;
    }
    const std::string query = joined(keys, " ");

    // 1. Every searcher, with all the words.
    for (const Tool* tool : searchers) {
        if (!steps_of(steps, tool->id).empty()) continue;
        return act("The answer may sit inside the data; searching with " + tool->id + " for \"" + query + "\".",
                   tool->id, json::object{{text_input_of(*tool), query}});
    }
    // 2. A searcher that found nothing for all the words: again with one word at a time, longest
    //    first (a skill that matches its text literally finds "insurance" where "budgeted
    //    insurance" fails), until it finds something.
    constexpr std::size_t kMaxWordRetries = 2;
    std::vector<std::string> by_length = keys;
    std::stable_sort(by_length.begin(), by_length.end(),
                     [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    const std::string& longest = by_length.front();
    for (const Tool* tool : searchers) {
        const std::string input = text_input_of(*tool);
        std::vector<const Step*> tries;
        for (const Step* s : steps_of(steps, tool->id)) {
            if (s->args.contains(input)) tries.push_back(s);
        }
        const bool settled =
            std::any_of(tries.begin(), tries.end(), [](const Step* s) { return !s->ok || count_items(s->data) > 0; });
        const std::size_t next = tries.size() - 1;
        if (settled || keys.size() < 2 || next >= std::min(kMaxWordRetries, by_length.size())) continue;
        const auto& last = tries.back()->args.at(input);
        return act(tool->id + " found nothing for \"" + (last.is_string() ? std::string(last.as_string()) : query) +
                       "\"; searching for \"" + by_length[next] + "\" alone.",
                   tool->id, json::object{{input, by_length[next]}});
    }
    std::vector<FileHit> files = files_found(steps, keys);
    // 3. "Show me the meeting notes": a file named by the goal's words, looked up by name when the
    //    text searches did not bring it.
    const bool show = asks_to_show(goal);
    const bool named_found = !files.empty() && files.front().named;
    if (show && !named_found) {
        for (const Tool* tool : searchers) {
            const std::string input = name_input_of(*tool);
            if (input.empty() || steps_of(steps, tool->id).size() >= 3) continue;
            const bool by_name = std::any_of(steps.begin(), steps.end(), [&](const Step& s) {
                return s.tool == tool->id && s.args.contains(input);
            });
            if (by_name) continue;
            return act("Looking for a file named like \"" + longest + "\" with " + tool->id + ".", tool->id,
                       json::object{{input, "*" + longest + "*"}});
        }
    }
    // 4. Read the file that matches best.
    const auto reads = reader ? steps_of(steps, reader->id) : std::vector<const Step*>{};
    const Step* read = reads.empty() ? nullptr : reads.back();
    const std::string best_path = files.empty() ? std::string() : files.front().path;
    if (reader && !read && !files.empty() && files.front().score > 0) {
        return act(files.front().path + " matches the goal best; reading it with " + reader->id + ".", reader->id,
                   json::object{{"path", files.front().path}});
    }

    std::string searched;
    for (const Tool* tool : searchers) searched += (searched.empty() ? "" : ", ") + tool->id;
    if (read && read->ok && read->data.is_object() && show && !files.empty() && files.front().named) {
        const auto& data = read->data.as_object();
        const std::string path = data.contains("path") ? text_of(data.at("path")) : best_path;
        const std::string content = data.contains("content") ? text_of(data.at("content")) : std::string();
        return respond("The goal names " + path + "; answering with its content.",
                       std::string(kAnswerLead) + path + " (read with " + reader->id + "):\n" + content);
    }

    PassageFinder finder{keys, wanted_of(goal), {}};
    if (read && read->ok && read->data.is_object()) {
        const auto& data = read->data.as_object();
        const std::string path = data.contains("path") ? text_of(data.at("path")) : best_path;
        if (data.contains("content")) finder.add_file(path, text_of(data.at("content")));
    }
    for (const auto& step : steps) {
        if (!step.ok || (reader && step.tool == reader->id)) continue;
        for (const auto* item : result_items(step.data)) finder.add_item(step, *item);
    }
    auto& found = finder.passages;
    // A search that failed is not a search that found nothing: say which failed and why.
    std::string failed;
    for (const auto& step : steps) {
        if (step.ok) continue;
        failed += "\n" + step.tool + " failed" + (step.error_code.empty() ? "" : " (" + step.error_code + ")") +
                  (step.error_message.empty() ? "" : ": " + step.error_message);
        for (const auto& suggestion : step.suggestions) failed += "\n  Suggested: " + suggestion;
    }
    if (found.empty()) {
        return respond("Nothing the searches returned answers the goal; saying what was searched.",
                       std::string(kAnswerLead) +
                           "None of the available skills has data that answers this: I searched with " + searched +
                           " for \"" + query + "\" and found nothing that answers it." + failed,
                       "default");
    }
    finder.rank();
    const double best = found.front().score;
    std::string answer;
    std::set<std::string> said, cited;
    std::size_t shown = 0;
    for (const auto& passage : found) {
        if (passage.score < best - 1e-9 || shown == kMaxPassages) break;
        // The same line once: a search's matching line and the line read from the file are one.
        const std::string line = passage.source.substr(0, passage.source.find(';'));
        if (!said.insert(lowercase(passage.text)).second || !cited.insert(line).second) continue;
        answer += (answer.empty() ? "" : "\n") + passage.text + " (" + passage.source + ")";
        ++shown;
    }
    if (!failed.empty()) answer += "\nSome searches failed:" + failed;
    return respond("The best match for the goal is in " + found.front().source + "; answering with it.",
                   std::string(kAnswerLead) + answer, "default");
}

}  // namespace skillhost::offline_model
