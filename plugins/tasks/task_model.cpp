#include "task_model.hpp"

#include "../common/iso_time.hpp"

#include <skillhost/skill.hpp>

#include <algorithm>
#include <cctype>

namespace skillhost_builtin::tasks {

using skillhost::Json;
using skillhost::SkillError;

Json Task::to_json() const {
    Json tag_list = Json::array();
    for (const auto& t : tags) tag_list.push_back(t);
    Json out = Json::object({{"id", id},
                             {"title", title},
                             {"status", status},
                             {"priority", priority},
                             {"tags", tag_list},
                             {"notes", notes},
                             {"created", created_at},
                             {"updated", updated_at}});
    out["due"] = due ? Json(*due) : Json();
    out["completed"] = completed_at ? Json(*completed_at) : Json();
    return out;
}

namespace {

std::string lower_trimmed(std::string_view text) {
    std::size_t b = 0, e = text.size();
    while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
    std::string out;
    for (char c : text.substr(b, e - b)) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

std::string normalize_status(std::string_view text) {
    std::string s = lower_trimmed(text);
    std::replace(s.begin(), s.end(), ' ', '_');
    std::replace(s.begin(), s.end(), '-', '_');
    struct Alias {
        const char* word;
        const char* status;
    };
    static const Alias aliases[] = {
        {"open", "open"},
        {"todo", "open"},
        {"to_do", "open"},
        {"pending", "open"},
        {"in_progress", "in_progress"},
        {"inprogress", "in_progress"},
        {"doing", "in_progress"},
        {"started", "in_progress"},
        {"done", "done"},
        {"complete", "done"},
        {"completed", "done"},
        {"finished", "done"},
        {"cancelled", "cancelled"},
        {"canceled", "cancelled"},
    };
    for (const auto& a : aliases)
        if (s == a.word) return a.status;
    Json valid = Json::array();
    for (const char* v : kStatuses) valid.push_back(v);
    throw SkillError("INVALID_STATUS",
                     "'" + std::string(text) + "' is not a task status; use one of: open, in_progress, done, cancelled",
                     Json::object({{"status", std::string(text)}, {"valid_statuses", valid}}));
}

std::vector<std::string> normalize_tags(const Json& tags) {
    std::vector<std::string> out;
    if (tags.is_null()) return out;
    for (const auto& t : tags.as_array()) {
        std::string tag;
        for (char c : lower_trimmed(t.as_string()))
            if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) tag += c;
        if (tag.empty() || std::find(out.begin(), out.end(), tag) != out.end()) continue;
        out.push_back(std::move(tag));
    }
    return out;
}

std::string normalize_due(std::string_view text) {
    LocalZone zone = LocalZone::system();
    auto parsed = parse_iso8601(text, zone);
    if (!parsed)
        throw SkillError("INVALID_DUE_DATE",
                         "due '" + std::string(text) +
                             "' is not an ISO-8601 date; write YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z|+HH:MM]",
                         Json::object({{"due", std::string(text)}}));
    std::string trimmed(text);
    if (parsed->date_only) return trimmed;
    return format_iso8601(parsed->unix_seconds,
                          parsed->offset ? *parsed->offset : zone.offset_at(parsed->unix_seconds));
}

std::string utc_now_iso() {
    return format_iso8601(unix_now(), 0);
}

}  // namespace skillhost_builtin::tasks
