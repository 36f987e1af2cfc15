#include "language/goal_analysis.hpp"

#include "language/text_scan.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

namespace skillhost::language {
namespace {

std::string stem(std::string word) {
    if (word.size() > 3 && word.ends_with("ies")) return word.substr(0, word.size() - 3) + "y";
    if (word.size() > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us")) word.pop_back();
    return word;
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_alpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_alnum(char c) {
    return is_alpha(c) || is_digit(c);
}
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
// Characters of a file or directory name: A-Z a-z 0-9 _ . - (and '/' between path segments).
bool is_name_char(char c) {
    return is_alnum(c) || c == '_' || c == '.' || c == '-';
}

struct Token {
    std::size_t pos;
    std::string_view text;
};

// The pieces of `text` between any of `separators`.
std::vector<Token> split(std::string_view text, std::string_view separators) {
    std::vector<Token> tokens;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || separators.find(text[i]) != std::string_view::npos) {
            if (i > start) tokens.push_back({start, text.substr(start, i - start)});
            start = i + 1;
        }
    }
    return tokens;
}

const std::set<std::string>& stop_words() {
    static const std::set<std::string> words = {
        "a",        "an",        "the",       "my",      "me",       "i",       "you",        "your",
        "do",       "does",      "did",       "is",      "are",      "was",     "were",       "what",
        "which",    "who",       "where",     "when",    "how",      "have",    "has",        "had",
        "to",       "of",        "in",        "on",      "for",      "about",   "with",       "and",
        "or",       "all",       "any",       "some",    "please",   "can",     "could",      "would",
        "will",     "there",     "that",      "this",    "it",       "its",     "from",       "at",
        "by",       "be",        "am",        "tell",    "give",     "get",     "let",        "us",
        "we",       "our",       "these",     "those",   "them",     "they",    "up",         "out",
        "into",     "now",       "currently", "mention", "mentions", "contain", "containing", "mentioning",
        "called",   "named",     "list",      "show",    "find",     "search",  "look",       "read",
        "open",     "display",   "create",    "add",     "make",     "new",     "task",       "todo",
        "file",     "folder",    "directory", "memory",  "memorie",  "note",    "happened",   "yesterday",
        "today",    "week",      "month",     "morning", "last",     "past",    "ago",        "everything",
        "anything", "something", "thing",     "things",  "working"};
    return words;
}

// Words that say what to change rather than which item: left out of the item's description.
const std::set<std::string>& change_words() {
    static const std::set<std::string> words = {
        "mark",         "done",         "complete",   "completed",    "finish",       "finished",   "close",
        "closed",       "rename",       "change",     "set",          "update",       "edit",       "priority",
        "high",         "medium",       "low",        "urgent",       "normal",       "prioritise", "prioritize",
        "reprioritise", "reprioritize", "re",         "deprioritise", "deprioritize", "tag",        "label",
        "as",           "one",          "unfinished", "unfinish",     "pending",      "cancel",     "cancelled",
        "canceled",     "reopen",       "start",      "started",      "progress",     "delete",     "remove",
        "erase",        "due",          "date",       "title",        "name",         "item",       "entry",
        "tick",         "off",          "check",      "then",         "so",           "not",        "should",
        "be",           "instead",      "first",      "important",    "asap",         "status",     "titled",
        "mine",         "just",         "only",       "move",         "reschedule",   "postpone",   "deadline",
        "working"};
    return words;
}

// At most this many words go into a search query or an item's description.
constexpr std::size_t kMaxQueryWords = 12;

// Longest first, so "last week" wins over "week".
constexpr std::array<std::string_view, 13> kTimePhrases = {
    "this morning", "this afternoon", "this evening", "last night", "last week", "last month", "last year",
    "this week",    "this month",     "this year",    "yesterday",  "tonight",   "today"};

// A goal's own words for a window ("summarize my week") and the window they mean, with the word
// that is then no search word. "My week" is the seven days behind, whatever the weekday: on a
// Monday the calendar's "this week" holds only today.
struct OwnTimePhrase {
    std::string_view goal_words;
    std::string_view window;
    std::string_view time_word;
};
constexpr std::array<OwnTimePhrase, 2> kOwnTimePhrases = {{
    {"my week", "last 7 days", "week"},
    {"my day", "today", "day"},
}};

std::optional<std::string> find_time_phrase(const std::string& lower) {
    // "last 3 days", "past 12 hours"
    for (std::string_view lead : {"last ", "past "}) {
        for (auto pos = find_phrase(lower, lead); pos != std::string::npos; pos = find_phrase(lower, lead, pos + 1)) {
            std::size_t i = pos + lead.size();
            const std::size_t digits_start = i;
            while (i < lower.size() && is_digit(lower[i]) && i - digits_start < 4) ++i;
            const std::size_t digits = i - digits_start;
            if (digits >= 1 && digits <= 3 && i < lower.size() && lower[i] == ' ') {
                for (std::string_view unit : {"day", "hour", "week", "month"}) {
                    if (lower.compare(i + 1, unit.size(), unit) != 0) continue;
                    std::size_t end = i + 1 + unit.size();
                    if (end < lower.size() && lower[end] == 's') ++end;
                    if (end == lower.size() || !is_word_byte(lower[end])) {
                        return "last " + lower.substr(digits_start, digits) + " " + std::string(unit) + "s";
                    }
                }
            }
        }
    }
    for (auto phrase : kTimePhrases) {
        if (has_phrase(lower, phrase)) return std::string(phrase);
    }
    for (const auto& own : kOwnTimePhrases)
        if (has_phrase(lower, own.goal_words)) return std::string(own.window);
    return std::nullopt;
}

std::optional<std::string> find_quoted(std::string_view goal) {
    // "..." : the first pair of double quotes with something between them.
    for (auto open = goal.find('"'); open != std::string_view::npos;) {
        const auto close = goal.find('"', open + 1);
        if (close == std::string_view::npos) break;
        if (close > open + 1) return std::string(goal.substr(open + 1, close - open - 1));
        open = close;
    }
    constexpr std::string_view kOpen = "\xE2\x80\x9C", kClose = "\xE2\x80\x9D";
    if (const auto open = goal.find(kOpen); open != std::string_view::npos) {
        const auto close = goal.find(kClose, open + kOpen.size());
        if (close != std::string_view::npos && close > open + kOpen.size()) {
            return std::string(goal.substr(open + kOpen.size(), close - open - kOpen.size()));
        }
    }
    // '...' opened after a space and closed before a space or punctuation (not an apostrophe).
    for (auto open = goal.find('\''); open != std::string_view::npos; open = goal.find('\'', open + 1)) {
        if (open > 0 && !is_space(goal[open - 1])) continue;
        const auto close = goal.find('\'', open + 1);
        if (close == std::string_view::npos) break;
        const bool closes = close + 1 == goal.size() || is_space(goal[close + 1]) ||
                            std::string_view(".,!?").find(goal[close + 1]) != std::string_view::npos;
        if (closes && close > open + 1) return std::string(goal.substr(open + 1, close - open - 1));
    }
    return std::nullopt;
}

constexpr std::array<std::string_view, 5> kLevels = {"high", "medium", "low", "normal", "urgent"};

std::string level_name(std::string_view level) {
    if (level == "urgent") return "high";
    if (level == "normal") return "medium";
    return std::string(level);
}

std::optional<std::string> find_priority(const std::string& lower) {
    for (auto level : kLevels) {
        const std::string name(level);
        if (has_phrase(lower, name + " priority") || has_phrase(lower, name + "-priority")) return level_name(level);
    }
    for (auto level : kLevels) {
        const std::string name(level);
        for (std::string_view link : {"", "of ", "to ", "is ", "as "}) {
            if (has_phrase(lower, "priority " + std::string(link) + name)) return level_name(level);
        }
    }
    // "set the priority of the review to low"
    if (has_phrase(lower, "priority")) {
        for (auto level : kLevels) {
            if (has_phrase(lower, "to " + std::string(level)) || has_phrase(lower, "as " + std::string(level))) {
                return level_name(level);
            }
        }
    }
    if (has_any_phrase(lower, {"deprioritise", "deprioritize", "lower the priority", "less important"})) return "low";
    if (has_any_phrase(lower, {"urgent", "urgently", "asap", "important"})) return "high";
    return std::nullopt;
}

// Erases every bounded occurrence of `phrase` (lower case) from `text`, case-blind, in one pass.
void erase_phrase(std::string& text, std::string_view phrase) {
    const std::string lower = lowercase(text);
    std::string out;
    std::size_t copied = 0;
    for (auto pos = find_phrase(lower, phrase); pos != std::string::npos;
         pos = find_phrase(lower, phrase, pos + phrase.size())) {
        std::size_t start = pos;
        // The words that only introduced the phrase go with it: "with a", "at", "as", ", ".
        for (;;) {
            std::size_t s = start;
            while (s > copied && is_space(text[s - 1])) --s;
            if (s > copied && text[s - 1] == ',') {
                start = s - 1;
                continue;
            }
            bool cut = false;
            for (std::string_view word : {"with", "at", "as", "a"}) {
                if (s >= copied + word.size() && lower.compare(s - word.size(), word.size(), word) == 0 &&
                    (s == word.size() || !is_word_byte(lower[s - word.size() - 1]))) {
                    start = s - word.size();
                    cut = true;
                    break;
                }
            }
            if (!cut) {
                start = s;
                break;
            }
        }
        out.append(text, copied, start - copied);
        copied = pos + phrase.size();
    }
    out.append(text, copied);
    text = std::move(out);
}

// Removes priority wording, trailing list references and punctuation from a title.
std::string clean_title(std::string title) {
    const std::string lower = lowercase(title);
    std::size_t cut = std::string::npos;
    for (std::string_view prep : {" to ", " on ", " in "}) {
        for (std::string_view det : {"my ", "the ", ""}) {
            for (std::string_view noun : {"task list", "tasks", "todo list", "todos", "list"}) {
                const std::string phrase = std::string(prep) + std::string(det) + std::string(noun);
                cut = std::min(cut, find_phrase(lower, phrase));
            }
        }
    }
    if (cut != std::string::npos) title.resize(cut);
    for (auto level : kLevels) {
        const std::string name(level);
        erase_phrase(title, name + " priority");
        erase_phrase(title, name + "-priority");
        for (std::string_view link : {"of ", "to ", "is ", ""})
            erase_phrase(title, "priority " + std::string(link) + name);
    }
    for (std::string_view word : {"urgently", "urgent", "asap"}) erase_phrase(title, word);
    std::string collapsed;
    for (char c : title) {
        if (is_space(c) && (collapsed.empty() || collapsed.back() == ' ')) continue;
        collapsed += is_space(c) ? ' ' : c;
    }
    return trim(collapsed);
}

std::optional<std::string> find_title(std::string_view goal, const std::string& lower,
                                      const std::optional<std::string>& quoted) {
    if (quoted) return clean_title(*quoted);
    // "a task to call the dentist", "a reminder to ...", "a todo: buy milk", "a task called X"
    for (std::string_view noun : {"task", "todo", "to-do", "reminder", "item", "note"}) {
        for (std::size_t pos = find_phrase(lower, noun); pos != std::string::npos;
             pos = find_phrase(lower, noun, pos + 1)) {
            std::size_t i = pos + noun.size();
            if (i < lower.size() && lower[i] == 's') ++i;
            while (i < lower.size() && is_space(lower[i])) ++i;
            if (i < lower.size() && lower[i] == ':') {
                std::size_t j = i + 1;
                while (j < lower.size() && is_space(lower[j])) ++j;
                if (j > i + 1 && j < lower.size()) return clean_title(std::string(goal.substr(j)));
            }
            for (std::string_view link : {"to", "called", "named", "titled", "for", "that"}) {
                if (lower.compare(i, link.size(), link) != 0) continue;
                std::size_t j = i + link.size();
                if (j >= lower.size() || !is_space(lower[j])) continue;
                while (j < lower.size() && is_space(lower[j])) ++j;
                if (j < lower.size()) return clean_title(std::string(goal.substr(j)));
            }
        }
    }
    for (std::string_view lead : {"remind me to", "remember that", "note that"}) {
        if (const auto pos = find_phrase(lower, lead); pos != std::string::npos) {
            const std::string rest = trim(goal.substr(pos + lead.size()), " \t\r\n");
            if (!rest.empty()) return clean_title(rest);
        }
    }
    // "add buy milk to my tasks"
    if (const auto verb = first_phrase(lower, {"add", "create"})) {
        for (std::string_view det : {"my ", "the ", ""}) {
            for (std::string_view noun : {"task", "todo"}) {
                const std::string phrase = " to " + std::string(det) + std::string(noun);
                const auto to = lower.find(phrase, verb.end());
                if (to == std::string::npos || to <= verb.end() + 1) continue;
                return clean_title(std::string(goal.substr(verb.end() + 1, to - verb.end() - 1)));
            }
        }
    }
    return std::nullopt;
}

// A name with an extension, optionally with a directory part: README.md, docs/guide.txt.
bool is_file_name(std::string_view name) {
    const auto slash = name.rfind('/');
    const std::string_view base = slash == std::string_view::npos ? name : name.substr(slash + 1);
    if (slash != std::string_view::npos) {
        for (const auto& segment : split(name.substr(0, slash + 1), "/")) {
            if (!std::all_of(segment.text.begin(), segment.text.end(), is_name_char)) return false;
        }
        if (name.find("//") != std::string_view::npos || name.front() == '/') return false;
    }
    if (base.empty() || !(is_alnum(base.front()) || base.front() == '_' || base.front() == '-')) return false;
    if (!std::all_of(base.begin(), base.end(), is_name_char)) return false;
    const auto dot = base.rfind('.');
    if (dot == std::string_view::npos || dot == 0) return false;
    const std::string_view extension = base.substr(dot + 1);
    return !extension.empty() && extension.size() <= 8 && is_alpha(extension.front()) &&
           std::all_of(extension.begin(), extension.end(), is_alnum);
}

std::optional<std::string> find_file_name(std::string_view text) {
    for (const auto& token : split(text, " \t\r\n\"'`(),;:!?")) {
        std::string_view name = token.text;
        if (name.ends_with('.')) name.remove_suffix(1);  // the sentence's full stop
        if (!name.empty() && is_file_name(name)) return std::string(name);
    }
    return std::nullopt;
}

std::optional<std::string> find_directory(std::string_view text) {
    const auto tokens = split(text, " \t\r\n");
    const auto word = [&](std::size_t i) { return lowercase(trim(tokens[i].text, ".,;:!?")); };
    for (std::size_t i = 2; i < tokens.size(); ++i) {
        const std::string kind = word(i);
        if (kind != "folder" && kind != "directory" && kind != "dir") continue;
        const std::string_view name = tokens[i - 1].text;
        if (!std::all_of(name.begin(), name.end(), [](char c) { return is_name_char(c) || c == '/'; })) continue;
        std::size_t lead = i - 2;
        if ((word(lead) == "the" || word(lead) == "my") && lead > 0) --lead;
        const std::string preposition = word(lead);
        if (preposition == "in" || preposition == "under" || preposition == "inside" || preposition == "of") {
            return std::string(name);
        }
    }
    for (const auto& token : tokens) {
        std::string_view name = token.text;
        while (!name.empty() && std::string_view("?.!,").find(name.back()) != std::string_view::npos &&
               !name.ends_with('/')) {
            name.remove_suffix(1);
        }
        if (name.size() < 2 || !name.ends_with('/')) continue;
        if (!std::all_of(name.begin(), name.end(), [](char c) { return is_name_char(c) || c == '/'; })) continue;
        std::string dir(name);
        while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
        return dir;
    }
    return std::nullopt;
}

std::optional<std::string> find_glob(std::string_view text, const std::string& lower) {
    for (const auto& token : split(text, " \t\r\n")) {
        const std::string_view name = token.text;
        if (name.find('*') == std::string_view::npos) continue;
        if (std::all_of(name.begin(), name.end(), [](char c) { return is_name_char(c) || c == '*'; })) {
            return std::string(name);
        }
    }
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kinds = {{{"markdown", "*.md"},
                                                                                            {"text", "*.txt"},
                                                                                            {"python", "*.py"},
                                                                                            {"json", "*.json"},
                                                                                            {"yaml", "*.yaml"},
                                                                                            {"c++", "*.cpp"},
                                                                                            {"cpp", "*.cpp"}}};
    for (const auto& [kind, pattern] : kinds) {
        if (has_phrase(lower, std::string(kind) + " file") || has_phrase(lower, std::string(kind) + " files")) {
            return std::string(pattern);
        }
    }
    return std::nullopt;
}

bool asks_to_recall(const std::string& lower) {
    for (std::string_view aux : {"did", "have"}) {
        for (std::string_view what : {"do", "done", "been doing", "been up to", "work", "worked on"}) {
            if (has_phrase(lower, "what " + std::string(aux) + " i " + std::string(what))) return true;
        }
    }
    return has_any_phrase(lower, {"what happened", "how was my", "what was i doing"});
}

bool asks_to_tag(const std::string& lower) {
    return has_any_phrase(lower, {"add the tag", "add a tag", "add tag", "tag the", "tag my", "label the", "tag it"});
}

GoalVerb find_verb(const std::string& lower, bool has_file, bool has_priority) {
    if (asks_to_recall(lower)) return GoalVerb::recall;
    if (asks_to_tag(lower)) return GoalVerb::update;
    // "make the lockbox task high priority" changes a task; "make a task" creates one.
    if (has_priority && starts_with_any_phrase(lower, {"make", "please make", "give", "please give"}) &&
        !has_any_phrase(lower, {"make a", "make an", "make new", "give me"})) {
        return GoalVerb::update;
    }
    if (has_any_phrase(lower, {"create", "add", "make", "remind me", "remember that", "note that", "new task",
                               "new todo", "new note", "capture", "write"})) {
        return GoalVerb::create;
    }
    if (has_any_phrase(lower, {"delete", "remove", "erase"})) return GoalVerb::remove;
    if (has_any_phrase(lower, {"mark",         "complete",     "finish",       "update",        "rename",
                               "change",       "edit",         "set",          "tag",           "label",
                               "cancel",       "reopen",       "re-open",      "close",         "prioritise",
                               "prioritize",   "reprioritise", "reprioritize", "re-prioritise", "re-prioritize",
                               "deprioritise", "deprioritize", "tick off",     "check off",     "start working on",
                               "retitle",      "move",         "reschedule",   "postpone"})) {
        return GoalVerb::update;
    }
    if (has_any_phrase(lower, {"find", "search", "look for", "look up", "grep", "contain", "containing", "mention",
                               "mentions", "mentioning"})) {
        return GoalVerb::search;
    }
    if (has_file) return GoalVerb::read;
    if (has_any_phrase(lower, {"list", "show", "what", "which", "all", "my", "have", "any", "pending", "open"})) {
        return GoalVerb::list;
    }
    return GoalVerb::none;
}

GoalDomain find_domain(const std::string& lower, GoalVerb verb, bool has_file, bool has_time) {
    if (has_any_phrase(lower, {"task", "tasks", "todo", "todos", "to-do", "to-dos", "to do list", "working on",
                               "reminder", "reminders", "remind me", "due", "overdue", "deadline", "deadlines"}) &&
        !has_phrase(lower, "remember that")) {
        return GoalDomain::task;
    }
    if (has_file || has_any_phrase(lower, {"file", "files", "folder", "folders", "directory", "directories",
                                           "workspace", "readme", "document", "documents", "doc", "docs"})) {
        return GoalDomain::file;
    }
    if (verb == GoalVerb::recall || has_time ||
        has_any_phrase(lower, {"memory", "memories", "remember", "note", "notes", "journal", "meeting", "meetings",
                               "happened", "event", "events"})) {
        return GoalDomain::memory;
    }
    return GoalDomain::none;
}

std::string find_action_word(const std::string& lower) {
    std::string_view text = lower;
    for (bool stripped = true; stripped;) {
        stripped = false;
        text = text.substr(std::min(text.size(), text.find_first_not_of(" \t\r\n")));
        for (std::string_view lead : {"please", "can you", "could you", "would you", "will you", "i want to",
                                      "i'd like to", "i would like to", "help me", "go ahead and", "kindly", "now"}) {
            if (starts_with_any_phrase(text, {lead})) {
                text.remove_prefix(lead.size());
                stripped = true;
            }
        }
    }
    std::string word;
    for (char c : text) {
        if (!is_alpha(c) && c != '-') break;
        word += c;
    }
    return word;
}

std::optional<std::string> find_entity(std::string_view goal, const std::string& lower) {
    const auto hit = first_phrase(
        lower, {"what do you know about", "what do i know about", "what do we know about", "what do you have on",
                "what do i have on", "tell me everything about", "tell me what you know about", "tell me about",
                "everything about", "anything about", "information about", "info about", "info on", "who is", "who's"});
    if (!hit) return std::nullopt;
    std::string entity = trim(goal.substr(hit.end()), " \t\r\n.,;:!?\"'");
    for (std::string_view article : {"the ", "The "}) {
        if (entity.starts_with(article)) entity.erase(0, article.size());
    }
    const auto words = split(entity, " ");
    if (entity.empty() || words.size() > 5) return std::nullopt;
    // "Who is on the team?" asks what the data says about a place or a role, not about a name.
    if (starts_with_any_phrase(lowercase(entity), {"on", "in", "at", "for", "with", "from", "of", "to", "by"})) {
        return std::nullopt;
    }
    return entity;
}

// "What did Priya say?", "Is Maya on the team?": a question whose subject is a capitalised name (not
// the first word, not "I") is about that name.
std::optional<std::string> find_named_subject(std::string_view goal, const std::string& lower) {
    if (!starts_with_any_phrase(lower, {"what", "who", "when", "where", "which", "how", "did", "does", "do", "is",
                                        "are", "has", "have", "any"})) {
        return std::nullopt;
    }
    const auto tokens = split(goal, " \t\r\n");
    std::string name;
    for (std::size_t i = 1; i < tokens.size(); ++i) {
        const std::string word = trim(tokens[i].text, ".,;:!?\"'()");
        const bool capital = !word.empty() && word.front() >= 'A' && word.front() <= 'Z' && word != "I";
        if (capital) {
            name += (name.empty() ? "" : " ") + (word.ends_with("'s") ? word.substr(0, word.size() - 2) : word);
        } else if (!name.empty() || i >= 2) {
            break;  // the name is the question's subject, right after "what did" — not "the weather in Lisbon"
        }
    }
    if (name.empty() || name.size() > 60) return std::nullopt;
    return name;
}

std::optional<std::string> find_date(std::string_view text) {
    for (std::size_t i = 0; i + 10 <= text.size(); ++i) {
        const auto d = text.substr(i, 10);
        const bool shaped = is_digit(d[0]) && is_digit(d[1]) && is_digit(d[2]) && is_digit(d[3]) && d[4] == '-' &&
                            is_digit(d[5]) && is_digit(d[6]) && d[7] == '-' && is_digit(d[8]) && is_digit(d[9]);
        const bool bounded =
            (i == 0 || !is_word_byte(text[i - 1])) && (i + 10 == text.size() || !is_word_byte(text[i + 10]));
        if (shaped && bounded) return std::string(d);
    }
    return std::nullopt;
}

// For update and remove goals: the change, and the text that describes the item.
void find_change(std::string_view goal, GoalAnalysis& analysis) {
    const std::string& lower = analysis.lower;
    std::string target_text(goal);
    const auto value_after = [&](std::size_t from) { return trim(goal.substr(from), " \t\r\n.,;:!?\"'"); };
    if (const auto rename = first_phrase(lower, {"rename", "retitle", "change the title of", "change the name of"})) {
        if (const auto to = find_phrase(lower, "to", rename.end()); to != std::string::npos) {
            // value_after drops the quotes of 'Rename "A" to "B"'.
            analysis.change.title = value_after(to + 2);
            target_text = std::string(goal.substr(rename.end(), to - rename.end()));
        }
    }
    if (!analysis.change.title && asks_to_tag(lower)) {
        if (const auto add = first_phrase(lower, {"add the tag", "add a tag", "add tag"})) {
            const auto to = find_phrase(lower, "to", add.end());
            const std::size_t end = to == std::string::npos ? goal.size() : to;
            analysis.change.tag = lowercase(trim(goal.substr(add.end(), end - add.end()), " \t\r\n.,;:!?\"'"));
            target_text = to == std::string::npos ? std::string() : std::string(goal.substr(to + 2));
        } else if (const auto tag = first_phrase(lower, {"tag", "label"})) {
            const auto link = first_phrase(lower, {"as", "with"}, tag.end());
            if (link) {
                analysis.change.tag = lowercase(value_after(link.end()));
                target_text = std::string(goal.substr(tag.end(), link.pos - tag.end()));
            }
        }
        if (analysis.change.tag && analysis.change.tag->empty()) analysis.change.tag.reset();
    }
    const bool priority_change =
        has_any_phrase(lower, {"priority", "prioritise", "prioritize", "reprioritise", "reprioritize", "re-prioritise",
                               "re-prioritize", "deprioritise", "deprioritize", "urgent", "important"});
    if (priority_change && analysis.priority) analysis.change.priority = analysis.priority;
    if (has_any_phrase(lower, {"due", "deadline", "reschedule", "postpone", "move"}))
        analysis.change.due = find_date(goal);
    if (!analysis.change.title || has_phrase(lower, "mark")) {
        if (has_any_phrase(lower, {"in progress", "in_progress", "start working on", "started", "as started"})) {
            analysis.change.status = "in_progress";
        } else if (has_any_phrase(lower, {"cancel", "cancelled", "canceled"})) {
            analysis.change.status = "cancelled";
        } else if (has_any_phrase(lower, {"reopen", "re-open", "as open", "not done", "as not done", "undone"})) {
            analysis.change.status = "open";
        } else if (has_any_phrase(lower, {"done", "complete", "completed", "finish", "finished", "close", "tick off",
                                          "check off"})) {
            analysis.change.status = "done";
        }
    }
    // The item's description: the words that are neither stop words nor about the change.
    std::set<std::string> value_words;
    for (const auto& value : {analysis.change.title, analysis.change.tag, analysis.change.due}) {
        if (!value) continue;
        for (auto& w : keywords_of(*value)) value_words.insert(std::move(w));
    }
    std::vector<std::string> target;
    std::set<std::string> seen;
    for (auto& word : keywords_of(target_text)) {
        const bool number = std::all_of(word.begin(), word.end(), is_digit);  // "task 5"
        if (stop_words().contains(word) || change_words().contains(word) || (word.size() < 2 && !number)) continue;
        if (target_text.size() == goal.size() && value_words.contains(word)) continue;
        if (target.size() < kMaxQueryWords && seen.insert(word).second) target.push_back(std::move(word));
    }
    for (const auto& word : target) analysis.target += (analysis.target.empty() ? "" : " ") + word;
    if (analysis.quoted && analysis.quoted != analysis.change.title && analysis.quoted != analysis.change.tag) {
        analysis.target = *analysis.quoted;
    }
    analysis.lists_first = starts_with_any_phrase(lower, {"find", "list", "show", "get", "look at", "go through"}) &&
                           has_phrase(lower, "and");
}

}  // namespace

std::string_view to_string(GoalVerb verb) {
    switch (verb) {
        case GoalVerb::list: return "list";
        case GoalVerb::read: return "read";
        case GoalVerb::search: return "search";
        case GoalVerb::create: return "create";
        case GoalVerb::update: return "update";
        case GoalVerb::remove: return "remove";
        case GoalVerb::recall: return "recall";
        case GoalVerb::none: break;
    }
    return "none";
}

std::string_view to_string(GoalDomain domain) {
    switch (domain) {
        case GoalDomain::task: return "task";
        case GoalDomain::file: return "file";
        case GoalDomain::memory: return "memory";
        case GoalDomain::none: break;
    }
    return "none";
}

std::vector<std::string> keywords_of(std::string_view text) {
    std::vector<std::string> words;
    std::string current;
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u)) {
            current += static_cast<char>(std::tolower(u));
        } else if (!current.empty()) {
            words.push_back(stem(std::move(current)));
            current.clear();
        }
    }
    if (!current.empty()) words.push_back(stem(std::move(current)));
    return words;
}

GoalAnalysis analyse_goal(std::string_view goal) {
    GoalAnalysis analysis;
    analysis.lower = lowercase(goal);
    const std::string& lower = analysis.lower;
    analysis.quoted = find_quoted(goal);
    analysis.file_name = find_file_name(goal);
    analysis.directory = find_directory(goal);
    analysis.time_phrase = find_time_phrase(lower);
    analysis.priority = find_priority(lower);
    analysis.glob = find_glob(goal, lower);
    analysis.verb = find_verb(lower, analysis.file_name.has_value(), analysis.priority.has_value());
    analysis.domain =
        find_domain(lower, analysis.verb, analysis.file_name.has_value(), analysis.time_phrase.has_value());
    if (analysis.verb == GoalVerb::none && analysis.domain != GoalDomain::none) analysis.verb = GoalVerb::list;
    // "Which tasks are about the lockbox?": a question about some tasks is a search, not the list.
    if (analysis.verb == GoalVerb::list && analysis.domain == GoalDomain::task &&
        has_any_phrase(lower, {"about", "regarding", "related to", "status of", "the one", "called", "named"})) {
        analysis.verb = GoalVerb::search;
    }
    if (analysis.verb == GoalVerb::create) analysis.title = find_title(goal, lower, analysis.quoted);
    analysis.wants_completed =
        has_any_phrase(lower, {"completed", "finished", "done", "closed", "all tasks", "including done"});
    analysis.only_unfinished =
        has_any_phrase(lower, {"unfinished", "open", "pending", "incomplete", "not done", "outstanding"});
    analysis.action_word = find_action_word(lower);
    if (analysis.domain == GoalDomain::none && !analysis.file_name) {
        analysis.entity = find_entity(goal, lower);
        if (!analysis.entity) analysis.entity = find_named_subject(goal, lower);
    }
    if (analysis.verb == GoalVerb::update || analysis.verb == GoalVerb::remove) find_change(goal, analysis);

    analysis.words = keywords_of(goal);
    const auto& stops = stop_words();
    std::set<std::string> time_words;
    if (analysis.time_phrase) {
        for (auto& w : keywords_of(*analysis.time_phrase)) time_words.insert(w);
        // The goal's own words for it ("my week" is "last 7 days") are no search words either.
        for (const auto& own : kOwnTimePhrases)
            if (has_phrase(lower, own.goal_words)) time_words.insert(std::string(own.time_word));
    }
    std::set<std::string> seen;
    for (const auto& word : analysis.words) {
        if (stops.contains(word) || time_words.contains(word) || word.size() < 2) continue;
        if (seen.insert(word).second) analysis.content_words.push_back(word);
    }
    if (analysis.quoted) {
        analysis.query = *analysis.quoted;
    } else {
        // A search needs a few words; thousands would only slow the skill down.
        for (std::size_t i = 0; i < analysis.content_words.size() && i < kMaxQueryWords; ++i) {
            analysis.query += (analysis.query.empty() ? "" : " ") + analysis.content_words[i];
        }
    }
    return analysis;
}

}  // namespace skillhost::language
