// A task as stored by the tasks plugin, and the vocabularies of its status and priority fields.
#pragma once

#include <skillhost/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost_builtin::tasks {

inline constexpr const char* kStatuses[] = {"open", "in_progress", "done", "cancelled"};
inline constexpr const char* kPriorities[] = {"low", "medium", "high"};

struct Task {
    std::int64_t id = 0;
    std::string title;
    std::string notes;
    std::string status = "open";
    std::string priority = "medium";
    std::vector<std::string> tags;
    std::string created_at;                   // ISO-8601, UTC
    std::string updated_at;                   // ISO-8601, UTC
    std::optional<std::string> due;           // YYYY-MM-DD or an ISO-8601 date-time
    std::optional<std::string> completed_at;  // set while status is done

    skillhost::Json to_json() const;
};

// Maps what a user or model writes ("In progress", "completed", "todo") to a canonical status.
// Throws SkillError INVALID_STATUS (listing the valid statuses) for anything else.
std::string normalize_status(std::string_view text);

// Trims, lower-cases, strips control characters and de-duplicates tags, dropping empty ones;
// keeps first-seen order.
std::vector<std::string> normalize_tags(const skillhost::Json& tags);

// Validates a due date (YYYY-MM-DD or ISO-8601 date-time) and returns its stored form.
// Throws SkillError INVALID_DUE_DATE.
std::string normalize_due(std::string_view text);

std::string utc_now_iso();

}  // namespace skillhost_builtin::tasks
