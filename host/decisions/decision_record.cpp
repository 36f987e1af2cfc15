#include "decisions/decision_record.hpp"

#include <boost/json/serialize.hpp>

namespace skillhost::decisions {

namespace json = boost::json;

namespace {

json::value time_or_null(const std::optional<TimePoint>& time) {
    return time ? json::value(format_utc_timestamp(*time)) : json::value(nullptr);
}

json::value text_or_null(const std::string& text) {
    return text.empty() ? json::value(nullptr) : json::value(text);
}

}  // namespace

void append_field_line(std::string& out, std::string_view name, const std::string& value) {
    if (!value.empty()) out += std::string(name) + ": " + value + "\n";
}

json::object DecisionRecord::call_json(std::string_view state) const {
    json::object out;
    out["id"] = id;
    out["user"] = user_id;
    out["skill"] = skill_id;
    out["arguments"] = arguments;
    out["requested_at"] = format_utc_timestamp(requested_at);
    out["requested_by"] = requested_by.to_text();
    if (!requested_token.empty()) out["requested_token"] = requested_token;
    out["expires_at"] = format_utc_timestamp(expires_at);
    out["state"] = state;
    return out;
}

void DecisionRecord::add_outcome_json(json::object& out, std::string_view by_key, const std::string& by,
                                      std::string_view at_key, const std::optional<TimePoint>& at) const {
    out[by_key] = text_or_null(by);
    out[at_key] = time_or_null(at);
    out["completed_at"] = time_or_null(completed_at);
    out["reason"] = text_or_null(reason);
    out["result"] = result;
}

std::string DecisionRecord::call_text(std::string_view state, std::string_view label, const std::string& value) const {
    std::string out;
    append_field_line(out, "id", id);
    append_field_line(out, "state", std::string(state));
    append_field_line(out, "user", user_id);
    append_field_line(out, "skill", skill_id);
    append_field_line(out, label, value);
    append_field_line(out, "arguments", json::serialize(arguments));
    append_field_line(out, "requested_by", requested_by.to_text());
    append_field_line(out, "requested_at", format_utc_timestamp(requested_at));
    append_field_line(out, "expires_at", format_utc_timestamp(expires_at));
    return out;
}

std::string DecisionRecord::outcome_text(std::string_view by_label, const std::string& by, std::string_view at_label,
                                         const std::optional<TimePoint>& at) const {
    std::string out;
    append_field_line(out, by_label, by);
    if (at) append_field_line(out, at_label, format_utc_timestamp(*at));
    if (completed_at) append_field_line(out, "completed_at", format_utc_timestamp(*completed_at));
    append_field_line(out, "reason", reason);
    if (!result.is_null()) append_field_line(out, "result", json::serialize(result));
    return out;
}

std::string DecisionRecord::summary(std::string_view state, bool pending, std::string_view done_word,
                                    const std::optional<TimePoint>& done_at, const std::string& what) const {
    std::string line = id + "  " + std::string(state) + "  " + user_id + "  " + skill_id + "  ";
    if (pending)
        line += "expires " + format_utc_timestamp(expires_at);
    else if (done_at)
        line += std::string(done_word) + " " + format_utc_timestamp(*done_at);
    return line + "  " + what;
}

}  // namespace skillhost::decisions
