// The passages of the data that answer a question: the sentences of a text, the rows of a table,
// a Markdown heading with its section, a record's text and notes, each with where it came from
// (file and line, or skill and id), ranked by the question's words they share (rarer words count
// more) and by whether they hold the kind of value asked for (a date for "when", a number for "how
// much").
#pragma once

#include "offline_model/builtin_plan_context.hpp"
#include "language/goal_analysis.hpp"

#include <boost/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace skillhost::offline_model {

using namespace language;  // the offline model reads goals with the host's rule-based text analysis

// Two word forms of one word: equal, or sharing their first five letters ("rotate", "rotation"),
// or the shorter (four letters or more) beginning the longer ("plan", "planned").
bool same_word(const std::string& a, const std::string& b);
// How many of `keys` are among `words` (as forms of one word).
int words_matched(const std::vector<std::string>& keys, const std::vector<std::string>& words);
// A string or integer value as text; empty for others.
std::string text_of(const boost::json::value& value);

// The kind of value the question asks for, and whether a text has one.
enum class Wanted { any, when, amount, who };
Wanted wanted_of(const GoalAnalysis& goal);

// One sentence, line or row of the data, where it came from, and how well it answers the goal.
struct Passage {
    std::string text;
    std::string source;      // "notes/lockbox.md, line 3", "memory_search, id 6"
    std::vector<bool> has;   // which of the question's words it has
    bool has_value = false;  // the kind of value the question asks for (a date, a number)
    double score = 0;
};

struct PassageFinder {
    std::vector<std::string> keys;
    Wanted wanted;
    std::vector<Passage> passages;

    // `context`: words the passage is about without saying them (the path of the file it is in:
    // a row of docs/budget.csv is about the budget). `shown`: what the answer quotes when it is
    // more than the words matched (a heading's section).
    void add(std::string text, std::string source, std::string_view context = {}, std::string shown = {});
    // A file's lines: CSV-like rows whole (with the header row named), prose cut into sentences, a
    // Markdown heading matched by its own words and quoted with the lines of its section.
    void add_file(const std::string& path, std::string_view content);
    // A search result: its matching lines (files), or its own text (memories, tasks, notes).
    void add_item(const Step& step, const boost::json::object& item);
    // Scores and sorts the passages, best first.
    void rank();

    // "Team: Maya (product), ..." for "## Team" and the lines under it.
    static std::string heading_section(const std::vector<std::string_view>& lines, std::size_t at);
};

}  // namespace skillhost::offline_model
