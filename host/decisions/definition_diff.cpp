#include "decisions/definition_diff.hpp"

#include <boost/json/serialize.hpp>

#include <set>
#include <string_view>

namespace skillhost::decisions {
namespace json = boost::json;

namespace {

const json::object& object_or_empty(const json::value* value) {
    static const json::object empty;
    return value != nullptr && value->is_object() ? value->get_object() : empty;
}

void compare(json::array& out, const std::string& field, const json::value* old_value, const json::value* new_value) {
    if (old_value != nullptr && new_value != nullptr && *old_value == *new_value) return;
    json::object entry{{"field", field}};
    entry["change"] = old_value == nullptr ? "added" : new_value == nullptr ? "removed" : "changed";
    if (old_value != nullptr) entry["old"] = *old_value;
    if (new_value != nullptr) entry["new"] = *new_value;
    out.push_back(std::move(entry));
}

std::set<std::string> keys_of(const json::object& a, const json::object& b) {
    std::set<std::string> keys;
    for (const auto& member : a) keys.emplace(member.key());
    for (const auto& member : b) keys.emplace(member.key());
    return keys;
}

// Each member of two objects compared on its own, under `prefix.`; `nested` (the schemas'
// "properties") one level further.
void compare_members(json::array& out, const std::string& prefix, const json::object& old_object,
                     const json::object& new_object, std::string_view nested) {
    for (const auto& key : keys_of(old_object, new_object)) {
        const json::value* old_value = old_object.if_contains(key);
        const json::value* new_value = new_object.if_contains(key);
        if (key == nested && old_value != nullptr && new_value != nullptr && old_value->is_object() &&
            new_value->is_object()) {
            compare_members(out, prefix + "." + key, old_value->get_object(), new_value->get_object(), {});
        } else {
            compare(out, prefix + "." + key, old_value, new_value);
        }
    }
}

}  // namespace

json::array definition_diff(const json::value& old_definition, const json::object& new_definition) {
    const json::object& old_object = object_or_empty(&old_definition);
    json::array out;
    for (const auto& key : keys_of(old_object, new_definition)) {
        const json::value* old_value = old_object.if_contains(key);
        const json::value* new_value = new_definition.if_contains(key);
        const bool both_objects =
            old_value != nullptr && new_value != nullptr && old_value->is_object() && new_value->is_object();
        if (both_objects && (key == "inputSchema" || key == "outputSchema")) {
            compare_members(out, key, old_value->get_object(), new_value->get_object(), "properties");
        } else if (both_objects && key == "annotations") {
            compare_members(out, key, old_value->get_object(), new_value->get_object(), {});
        } else {
            compare(out, key, old_value, new_value);
        }
    }
    return out;
}

std::string diff_text(const json::array& diff) {
    std::string out;
    for (const json::value& item : diff) {
        const json::object& entry = item.as_object();
        out += "  " + std::string(entry.at("field").as_string()) + ": " + std::string(entry.at("change").as_string()) +
               "\n";
        for (const char* side : {"old", "new"}) {
            const json::value* value = entry.if_contains(side);
            if (value == nullptr) continue;
            out += std::string(side[0] == 'o' ? "    - " : "    + ") +
                   (value->is_string() ? std::string(value->get_string()) : json::serialize(*value)) + "\n";
        }
    }
    return out;
}

}  // namespace skillhost::decisions
