#include "llm/goal_analysis.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>
#include <map>
#include <set>

namespace skillhost::llm::builtin {
namespace {

std::string lowercase(std::string_view text) {
    std::string out(text);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string trim(std::string text, std::string_view junk = " \t\r\n.,;:!?\"'") {
    const auto first = text.find_first_not_of(junk);
    if (first == std::string::npos) return {};
    const auto last = text.find_last_not_of(junk);
    return text.substr(first, last - first + 1);
}

std::string stem(std::string word) {
    if (word.size() > 3 && word.ends_with("ies")) return word.substr(0, word.size() - 3) + "y";
    if (word.size() > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us")) word.pop_back();
    return word;
}

bool search(const std::string& text, const char* pattern) {
    return std::regex_search(text, std::regex(pattern, std::regex::ECMAScript | std::regex::icase));
}

const std::set<std::string>& stop_words() {
    static const std::set<std::string> words = {
        "a", "an", "the", "my", "me", "i", "you", "your", "do", "does", "did", "is", "are", "was", "were",
        "what", "which", "who", "where", "when", "how", "have", "has", "had", "to", "of", "in", "on", "for",
        "about", "with", "and", "or", "all", "any", "some", "please", "can", "could", "would", "will", "there",
        "that", "this", "it", "its", "from", "at", "by", "be", "am", "tell", "give", "get", "let", "us", "we",
        "our", "these", "those", "them", "they", "up", "out", "into", "now", "currently", "mention", "mentions",
        "contain", "containing", "mentioning", "called", "named", "list", "show", "find", "search", "look", "read", "open",
        "display", "create", "add", "make", "new", "task", "todo", "file", "folder", "directory", "memory",
        "memorie", "note", "happened", "yesterday", "today", "week", "month", "morning", "last", "past", "ago",
        "everything", "anything", "something", "thing", "things", "working"};
    return words;
}

// Longest first, so "last week" wins over "week".
constexpr std::array<const char*, 13> kTimePhrases = {
    "this morning", "this afternoon", "this evening", "last night", "last week", "last month", "last year",
    "this week", "this month", "this year", "yesterday", "tonight", "today"};

std::optional<std::string> find_time_phrase(const std::string& lower) {
    std::smatch match;
    if (std::regex_search(lower, match, std::regex(R"(\b(?:last|past) (\d{1,3}) (day|hour|week|month)s?\b)"))) {
        return "last " + match[1].str() + " " + match[2].str() + "s";
    }
    for (const char* phrase : kTimePhrases) {
        if (std::regex_search(lower, std::regex(std::string("\\b") + phrase + "\\b"))) return std::string(phrase);
    }
    return std::nullopt;
}

std::optional<std::string> find_quoted(std::string_view goal) {
    const std::string text(goal);
    std::smatch match;
    if (std::regex_search(text, match, std::regex("\"([^\"]+)\"")) ||
        std::regex_search(text, match, std::regex("\xE2\x80\x9C([^\xE2]+)\xE2\x80\x9D")) ||
        std::regex_search(text, match, std::regex(R"((?:^|\s)'([^']+)'(?:\s|$|[.,!?]))"))) {
        return match[1].str();
    }
    return std::nullopt;
}

std::optional<std::string> find_priority(const std::string& lower) {
    std::smatch match;
    if (std::regex_search(lower, match, std::regex(R"(\b(high|medium|low|normal|urgent)[- ]priority\b)")) ||
        std::regex_search(lower, match, std::regex(R"(\bpriority (?:of |to |is )?(high|medium|low|normal|urgent)\b)"))) {
        const std::string level = match[1].str();
        if (level == "urgent") return "high";
        if (level == "normal") return "medium";
        return level;
    }
    if (search(lower, R"(\b(urgent|urgently|asap|important)\b)")) return "high";
    return std::nullopt;
}

// Removes priority wording, trailing list references and punctuation from a title.
std::string clean_title(std::string title) {
    static const std::array<std::regex, 4> noise = {
        std::regex(R"(\s*,?\s*(?:with |at |as )?(?:a )?(?:high|medium|low|normal|urgent)[- ]priority\b)", std::regex::icase),
        std::regex(R"(\s*,?\s*(?:with )?priority (?:of |to |is )?(?:high|medium|low|normal|urgent)\b)", std::regex::icase),
        std::regex(R"(\s+(?:to|on|in) (?:my |the )?(?:task list|tasks|todo list|todos|list)\b.*$)", std::regex::icase),
        std::regex(R"(\s*,?\s*\b(?:urgent|urgently|asap)\b)", std::regex::icase)};
    for (const auto& pattern : noise) title = std::regex_replace(title, pattern, "");
    return trim(title);
}

std::optional<std::string> find_title(std::string_view goal, const std::optional<std::string>& quoted) {
    if (quoted) return clean_title(*quoted);
    const std::string text(goal);
    std::smatch match;
    // "a task to call the dentist", "a reminder to ...", "a todo: buy milk", "a task called X"
    if (std::regex_search(text, match,
                          std::regex(R"(\b(?:task|todo|to-do|reminder|item|note)s?\b\s*(?:to|:|called|named|titled|for|that)\s+(.+))",
                                     std::regex::icase))) {
        return clean_title(match[1].str());
    }
    if (std::regex_search(text, match, std::regex(R"(\bremind me to\s+(.+))", std::regex::icase))) {
        return clean_title(match[1].str());
    }
    if (std::regex_search(text, match, std::regex(R"(\b(?:remember|note) that\s+(.+))", std::regex::icase))) {
        return clean_title(match[1].str());
    }
    // "add buy milk to my tasks"
    if (std::regex_search(text, match, std::regex(R"(\b(?:add|create)\s+(.+?)\s+to (?:my |the )?(?:task|todo)s?(?: list)?\b)",
                                                  std::regex::icase))) {
        return clean_title(match[1].str());
    }
    return std::nullopt;
}

std::optional<std::string> find_file_name(const std::string& text) {
    std::smatch match;
    // A name with an extension, optionally with a directory part: README.md, docs/guide.txt.
    static const std::regex file(R"((?:^|[\s"'`(])((?:[A-Za-z0-9_.\-]+/)*[A-Za-z0-9_\-][A-Za-z0-9_.\-]*\.[A-Za-z][A-Za-z0-9]{0,7})(?=$|[\s"'`),;:!?]|\.(?:\s|$)))");
    if (std::regex_search(text, match, file)) {
        std::string name = match[1].str();
        if (name.find('*') == std::string::npos) return name;
    }
    return std::nullopt;
}

std::optional<std::string> find_directory(const std::string& text) {
    std::smatch match;
    if (std::regex_search(text, match,
                          std::regex(R"(\b(?:in|under|inside|of) (?:the |my )?([A-Za-z0-9_.\-/]+) (?:folder|directory|dir)\b)",
                                     std::regex::icase))) {
        return match[1].str();
    }
    if (std::regex_search(text, match, std::regex(R"((?:^|\s)((?:[A-Za-z0-9_.\-]+/)+)(?=$|[\s?.!,]))"))) {
        std::string dir = match[1].str();
        while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
        return dir;
    }
    return std::nullopt;
}

GoalVerb find_verb(const std::string& lower, bool has_file) {
    if (search(lower, R"(\bwhat (?:did|have) i (?:do|done|been doing|been up to|work(?:ed)? on)\b|\bwhat happened\b|\bhow was my\b|\bwhat was i doing\b)")) {
        return GoalVerb::recall;
    }
    if (search(lower, R"(\b(?:create|add|make|remind me|remember that|note that|new (?:task|todo|note)|capture|write)\b)")) {
        return GoalVerb::create;
    }
    if (search(lower, R"(\b(?:delete|remove)\b)")) return GoalVerb::remove;
    if (search(lower, R"(\b(?:mark|complete|finish|update|rename|change|edit)\b)")) return GoalVerb::update;
    if (search(lower, R"(\b(?:find|search|look for|look up|grep|contain|containing|mention|mentions|mentioning)\b)")) {
        return GoalVerb::search;
    }
    if (has_file && search(lower, R"(\b(?:show|read|open|display|cat|print|view|what(?:'s| is) in|contents? of)\b)")) {
        return GoalVerb::read;
    }
    if (has_file) return GoalVerb::read;
    if (search(lower, R"(\b(?:list|show|what|which|all|my|have|any|pending|open)\b)")) return GoalVerb::list;
    return GoalVerb::none;
}

GoalDomain find_domain(const std::string& lower, GoalVerb verb, bool has_file, bool has_time) {
    if (search(lower, R"(\b(?:tasks?|todos?|to-dos?|to do list|working on|reminders?)\b)") &&
        !search(lower, R"(\bremember that\b)")) {
        return GoalDomain::task;
    }
    if (has_file || search(lower, R"(\b(?:files?|folders?|director(?:y|ies)|workspace|readme|documents?|docs?)\b)")) {
        return GoalDomain::file;
    }
    if (verb == GoalVerb::recall || has_time ||
        search(lower, R"(\b(?:memor(?:y|ies)|remember|notes?|journal|meetings?|happened|events?)\b)")) {
        return GoalDomain::memory;
    }
    return GoalDomain::none;
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
    analysis.quoted = find_quoted(goal);
    analysis.file_name = find_file_name(std::string(goal));
    analysis.directory = find_directory(std::string(goal));
    analysis.time_phrase = find_time_phrase(analysis.lower);
    analysis.priority = find_priority(analysis.lower);
    std::smatch glob;
    const std::string text(goal);
    if (std::regex_search(text, glob, std::regex(R"((?:^|\s)(\*?[A-Za-z0-9_.\-]*\*[A-Za-z0-9_.\-*]*))"))) {
        analysis.glob = glob[1].str();
    } else if (std::regex_search(analysis.lower, glob, std::regex(R"(\b(markdown|text|python|json|yaml|c\+\+|cpp) files?\b)"))) {
        static const std::map<std::string, std::string> by_kind = {
            {"markdown", "*.md"}, {"text", "*.txt"}, {"python", "*.py"}, {"json", "*.json"},
            {"yaml", "*.yaml"}, {"c++", "*.cpp"}, {"cpp", "*.cpp"}};
        analysis.glob = by_kind.at(glob[1].str());
    }
    analysis.verb = find_verb(analysis.lower, analysis.file_name.has_value());
    analysis.domain = find_domain(analysis.lower, analysis.verb, analysis.file_name.has_value(),
                                  analysis.time_phrase.has_value());
    if (analysis.verb == GoalVerb::none && analysis.domain != GoalDomain::none) analysis.verb = GoalVerb::list;
    if (analysis.verb == GoalVerb::create) analysis.title = find_title(goal, analysis.quoted);
    analysis.wants_completed = search(analysis.lower, R"(\b(?:completed|finished|done|closed|all tasks|including done)\b)");

    analysis.words = keywords_of(goal);
    const auto& stops = stop_words();
    std::set<std::string> time_words;
    if (analysis.time_phrase) {
        for (auto& w : keywords_of(*analysis.time_phrase)) time_words.insert(w);
    }
    for (const auto& word : analysis.words) {
        if (stops.contains(word) || time_words.contains(word) || word.size() < 2) continue;
        if (std::find(analysis.content_words.begin(), analysis.content_words.end(), word) == analysis.content_words.end()) {
            analysis.content_words.push_back(word);
        }
    }
    if (analysis.quoted) {
        analysis.query = *analysis.quoted;
    } else {
        for (const auto& word : analysis.content_words) analysis.query += (analysis.query.empty() ? "" : " ") + word;
    }
    return analysis;
}

}  // namespace skillhost::llm::builtin
