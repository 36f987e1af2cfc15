#include "decisions/approval_preview.hpp"

#include "audit/audit_redaction.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace skillhost::decisions {

namespace {

constexpr std::size_t max_shown_value = 60;
constexpr std::size_t max_shown_arguments = 6;

std::string shown_value(const boost::json::value& value) {
    std::string text = value.is_string() ? std::string(value.get_string().c_str(), value.get_string().size())
                                         : boost::json::serialize(value);
    if (text.size() > max_shown_value) {
        const std::size_t total = text.size();
        text.resize(max_shown_value);
        text += "… (" + std::to_string(total) + " chars)";
    }
    if (value.is_string()) {
        std::string quoted = "\"";
        for (char c : text) {
            if (c == '\n')
                quoted += "\\n";
            else if (c == '"')
                quoted += "\\\"";
            else
                quoted += c;
        }
        return quoted + "\"";
    }
    return text;
}

}  // namespace

std::string make_approval_preview(const manifest::SkillSpec& skill, const boost::json::value& args) {
    std::string out = (skill.title.empty() ? skill.id : skill.title) + " (" + skill.id + ")";
    const auto* object = args.if_object();
    if (object == nullptr || object->empty()) return out;
    std::vector<std::string> order;
    auto add = [&](const std::string& name) {
        if (object->contains(name) && std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
    };
    for (const auto& name : skill.path_inputs) add(name);
    for (const auto& name : skill.inputs.required) add(name);
    for (const auto& [name, _] : skill.inputs.properties) add(name);
    for (const auto& entry : *object) add(std::string(entry.key()));
    std::string list;
    std::size_t shown = 0;
    for (const auto& name : order) {
        if (shown == max_shown_arguments) {
            list += ", … " + std::to_string(order.size() - shown) + " more";
            break;
        }
        if (!list.empty()) list += ", ";
        list += name + "=" + (audit::is_secret_key(name) ? std::string("[redacted]") : shown_value(object->at(name)));
        ++shown;
    }
    return out + ": " + list;
}

}  // namespace skillhost::decisions
