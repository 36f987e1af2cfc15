// What the builtin model reads out of a goal without a language model: the intent verb, the data
// domain, and the common arguments (a file name, a title, a time phrase, a search query).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::llm::builtin {

enum class GoalVerb { none, list, read, search, create, update, remove, recall };
enum class GoalDomain { none, task, file, memory };

std::string_view to_string(GoalVerb verb);
std::string_view to_string(GoalDomain domain);

struct GoalAnalysis {
    std::string lower;                  // the goal in lower case
    std::vector<std::string> words;     // lower-case words, file names kept whole
    std::vector<std::string> content_words;  // words minus stop words, verbs and domain words
    GoalVerb verb = GoalVerb::none;
    GoalDomain domain = GoalDomain::none;
    std::optional<std::string> file_name;   // "README.md", "docs/guide.txt"
    std::optional<std::string> directory;   // "docs" from "in the docs folder"
    std::optional<std::string> quoted;      // text between quotes
    std::optional<std::string> time_phrase; // "yesterday", "last week", "last 3 days"
    std::optional<std::string> priority;    // high | medium | low
    std::optional<std::string> title;       // for create: "call the dentist"
    std::optional<std::string> glob;        // "*.md"
    bool wants_completed = false;           // "completed tasks", "all tasks including done"
    std::string query;                      // search words, or the quoted text
};

GoalAnalysis analyse_goal(std::string_view goal);

// Lower-case words of any text (tool ids split on '_', descriptions), lightly stemmed ("tasks" → "task").
std::vector<std::string> keywords_of(std::string_view text);

}  // namespace skillhost::llm::builtin
