#include "decisions/elicitation_record.hpp"

#include <boost/json/serialize.hpp>

namespace skillhost::decisions {

namespace json = boost::json;

const char* to_string(ElicitationState state) {
    switch (state) {
        case ElicitationState::pending: return "pending";
        case ElicitationState::answered: return "answered";
        case ElicitationState::completed: return "completed";
        case ElicitationState::failed: return "failed";
        case ElicitationState::expired: return "expired";
    }
    return "pending";
}

std::optional<ElicitationState> parse_elicitation_state(std::string_view text) {
    for (auto state : {ElicitationState::pending, ElicitationState::answered, ElicitationState::completed,
                       ElicitationState::failed, ElicitationState::expired}) {
        if (text == to_string(state)) return state;
    }
    return std::nullopt;
}

ElicitationState elicitation_state(DecisionState state) {
    switch (state) {
        case DecisionState::pending: return ElicitationState::pending;
        case DecisionState::claimed: return ElicitationState::answered;
        case DecisionState::succeeded: return ElicitationState::completed;
        case DecisionState::expired: return ElicitationState::expired;
        case DecisionState::failed:
        case DecisionState::rejected: return ElicitationState::failed;
    }
    return ElicitationState::failed;
}

DecisionState decision_state(ElicitationState state) {
    switch (state) {
        case ElicitationState::pending: return DecisionState::pending;
        case ElicitationState::answered: return DecisionState::claimed;
        case ElicitationState::completed: return DecisionState::succeeded;
        case ElicitationState::failed: return DecisionState::failed;
        case ElicitationState::expired: return DecisionState::expired;
    }
    return DecisionState::failed;
}

json::object ElicitationAnswer::to_json() const {
    json::object out{{"action", action}};
    if (action == "accept") out["content"] = content;
    return out;
}

json::object ElicitationRecord::request_json() const {
    return json::object{{"message", message}, {"requestedSchema", requested_schema}};
}

namespace {

json::value time_or_null(const std::optional<TimePoint>& time) {
    return time ? json::value(format_utc_timestamp(*time)) : json::value(nullptr);
}

json::value text_or_null(const std::string& text) {
    return text.empty() ? json::value(nullptr) : json::value(text);
}

std::string_view string_member(const json::object& object, std::string_view key) {
    const json::value* v = object.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

// "  name (string, required): Your name — one of red, green; default red"
std::string field_line(std::string_view name, const json::object& field, bool required) {
    std::string line = "  " + std::string(name) + " (" + std::string(string_member(field, "type"));
    if (required) line += ", required";
    line += ")";
    if (auto title = string_member(field, "title"); !title.empty()) line += ": " + std::string(title);
    if (auto description = string_member(field, "description"); !description.empty())
        line += " — " + std::string(description);
    std::string choices;
    auto add_choices = [&](const json::value* list, std::string_view key) {
        if (!list || !list->is_array()) return;
        for (const auto& option : list->get_array()) {
            const std::string_view text = option.is_string()   ? std::string_view(option.get_string())
                                          : option.is_object() ? string_member(option.get_object(), key)
                                                               : std::string_view();
            if (!text.empty()) choices += (choices.empty() ? "" : ", ") + std::string(text);
        }
    };
    add_choices(field.if_contains("enum"), "");
    add_choices(field.if_contains("oneOf"), "const");
    if (const json::value* items = field.if_contains("items"); items && items->is_object()) {
        add_choices(items->get_object().if_contains("enum"), "");
        add_choices(items->get_object().if_contains("anyOf"), "const");
    }
    if (!choices.empty()) line += "; one of " + choices;
    if (const json::value* d = field.if_contains("default")) line += "; default " + json::serialize(*d);
    return line;
}

}  // namespace

json::object ElicitationRecord::to_json() const {
    json::object out;
    out["id"] = id;
    out["user"] = user_id;
    out["skill"] = skill_id;
    out["arguments"] = arguments;
    out["message"] = message;
    out["requestedSchema"] = requested_schema;
    out["requested_at"] = format_utc_timestamp(requested_at);
    out["requested_by"] = requested_by.to_text();
    if (!requested_token.empty()) out["requested_token"] = requested_token;
    out["expires_at"] = format_utc_timestamp(expires_at);
    out["state"] = to_string(state);
    out["answer"] = answer ? json::value(answer->to_json()) : json::value(nullptr);
    out["answered_by"] = text_or_null(answered_by);
    out["answered_at"] = time_or_null(answered_at);
    out["completed_at"] = time_or_null(completed_at);
    out["reason"] = text_or_null(reason);
    out["result"] = result;
    out["earlier_answers"] = prior_answers.size();
    return out;
}

std::string ElicitationRecord::summary_line() const {
    std::string line = id + "  " + to_string(state) + "  " + user_id + "  " + skill_id + "  ";
    if (state == ElicitationState::pending)
        line += "expires " + format_utc_timestamp(expires_at);
    else if (answered_at)
        line += "answered " + format_utc_timestamp(*answered_at);
    return line + "  " + message;
}

std::string ElicitationRecord::to_text() const {
    std::string out;
    auto field = [&](const char* name, const std::string& value) {
        if (!value.empty()) out += std::string(name) + ": " + value + "\n";
    };
    field("id", id);
    field("state", to_string(state));
    field("user", user_id);
    field("skill", skill_id);
    field("asks", message);
    field("arguments", json::serialize(arguments));
    field("requested_by", requested_by.to_text());
    field("requested_at", format_utc_timestamp(requested_at));
    field("expires_at", format_utc_timestamp(expires_at));
    if (answer) field("answer", json::serialize(answer->to_json()));
    field("answered_by", answered_by);
    if (answered_at) field("answered_at", format_utc_timestamp(*answered_at));
    if (completed_at) field("completed_at", format_utc_timestamp(*completed_at));
    field("reason", reason);
    if (!result.is_null()) field("result", json::serialize(result));
    out += "fields:\n";
    const json::value* properties = requested_schema.if_contains("properties");
    const json::value* required = requested_schema.if_contains("required");
    if (properties && properties->is_object()) {
        for (const auto& member : properties->get_object()) {
            bool is_required = false;
            if (required && required->is_array())
                for (const auto& name : required->get_array())
                    if (name.is_string() && name.get_string() == member.key()) is_required = true;
            if (member.value().is_object())
                out += field_line(member.key(), member.value().get_object(), is_required) + "\n";
        }
    }
    return out;
}

}  // namespace skillhost::decisions
