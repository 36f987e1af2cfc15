// What a goal asks for, read by rules without a language model (the operator's lightweight route and the
// offline model both use it): the intent verb, the data
// domain, the common arguments (a file name, a title, a time phrase, a search query), and for
// multi-step goals the item the goal is about, the change to make to it, and the entity asked after.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::language {

enum class GoalVerb { none, list, read, search, create, update, remove, recall };
enum class GoalDomain { none, task, file, memory };

std::string_view to_string(GoalVerb verb);
std::string_view to_string(GoalDomain domain);

// A change to one existing item ("mark X as done", "rename X to Y", "tag X as Z").
struct ItemChange {
    std::optional<std::string> status;    // open | in_progress | done | cancelled
    std::optional<std::string> title;     // the new title
    std::optional<std::string> priority;  // low | medium | high
    std::optional<std::string> tag;       // a tag to add
    std::optional<std::string> due;       // YYYY-MM-DD
    bool any() const { return status || title || priority || tag || due; }
};

struct GoalAnalysis {
    std::string lower;                       // the goal in lower case
    std::vector<std::string> words;          // lower-case words, file names kept whole
    std::vector<std::string> content_words;  // words minus stop words, verbs and domain words
    GoalVerb verb = GoalVerb::none;
    GoalDomain domain = GoalDomain::none;
    std::optional<std::string> file_name;    // "README.md", "docs/guide.txt"
    std::optional<std::string> directory;    // "docs" from "in the docs folder"
    std::optional<std::string> quoted;       // text between quotes
    std::optional<std::string> time_phrase;  // "yesterday", "last week", "last 3 days"
    std::optional<std::string> priority;     // high | medium | low
    std::optional<std::string> title;        // for create: "call the dentist"
    std::optional<std::string> glob;         // "*.md"
    bool wants_completed = false;            // "completed tasks", "all tasks including done"
    bool only_unfinished = false;            // "unfinished", "open", "pending"
    std::string query;                       // search words, or the quoted text

    // The imperative the goal starts with ("delete", "send", "book"), after "please", "can you".
    std::string action_word;
    // "What do you know about Priya?": the entity asked after, as written ("Priya").
    std::optional<std::string> entity;
    // update/remove: the words describing the item to change ("boat insurance"), and the change.
    std::string target;
    ItemChange change;
    // "Find my unfinished tasks and rename ...": the goal asks to list before it changes.
    bool lists_first = false;
};

GoalAnalysis analyse_goal(std::string_view goal);

// Lower-case words of any text (tool ids split on '_', descriptions), lightly stemmed ("tasks" → "task").
std::vector<std::string> keywords_of(std::string_view text);

}  // namespace skillhost::language
