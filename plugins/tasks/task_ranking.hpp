// Ranks tasks against a free-text query for task_find.
#pragma once

#include "task_model.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace skillhost_builtin::tasks {

struct RankedTask {
    const Task* task = nullptr;
    double score = 0;
    std::vector<std::string> matched_fields;  // "title", "tags", "notes"
};

// Lower-cased words of `query` (letters, digits and any non-ASCII byte form words).
std::vector<std::string> query_terms(std::string_view query);

// Scores every task that matches at least one term: the whole query inside the title counts most,
// then a term equal to a title word or a tag, then a term inside the title, then inside the notes.
// Tasks matching every term get a bonus; unfinished tasks win ties. Best first.
std::vector<RankedTask> rank_tasks(const std::vector<Task>& tasks, std::string_view query);

}  // namespace skillhost_builtin::tasks
