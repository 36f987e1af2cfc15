#include "decisions/elicitation_record.hpp"

#include <boost/json/serialize.hpp>

namespace skillhost::decisions {

namespace json = boost::json;

json::object ElicitationAnswer::to_json() const {
    json::object out{{"action", action}};
    if (action == "accept") out["content"] = content;
    return out;
}

json::object ElicitationRecord::request_json() const {
    return json::object{{"message", message}, {"requestedSchema", requested_schema}};
}

namespace {

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
    json::object out = call_json(to_string(state));
    out["message"] = message;
    out["requestedSchema"] = requested_schema;
    out["answer"] = answer ? json::value(answer->to_json()) : json::value(nullptr);
    add_outcome_json(out, "answered_by", answered_by, "answered_at", answered_at);
    out["earlier_answers"] = prior_answers.size();
    return out;
}

std::string ElicitationRecord::summary_line() const {
    return summary(to_string(state), state == ElicitationState::pending, "answered", answered_at, message);
}

std::string ElicitationRecord::to_text() const {
    std::string out = call_text(to_string(state), "asks", message);
    if (answer) append_field_line(out, "answer", json::serialize(answer->to_json()));
    out += outcome_text("answered_by", answered_by, "answered_at", answered_at);
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
