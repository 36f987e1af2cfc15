#include "exec/prompt_reply_check.hpp"
#include "exec/error_codes.hpp"

#include "plugin/call_content.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <set>
#include <string>
#include <system_error>

namespace skillhost::exec {
namespace {

namespace json = boost::json;

Error invalid(const PromptReplySource& source, const std::string& problem) {
    Error e{errors::kPluginInvalidResult,
            "plugin '" + std::string(source.plugin) + "' answered prompts " + std::string(source.function) + " with " +
                problem + "; the plugin must answer as skill_prompts.h describes (report it to its author)"};
    e.details["plugin"] = source.plugin;
    e.details["function"] = source.function;
    return e;
}

Result<json::object> reply_object(const PromptReplySource& source, std::string_view reply_json) {
    if (reply_json.size() > kMaxPromptAnswerBytes)
        return invalid(source,
                       "an answer over the host's limit of " + std::to_string(kMaxPromptAnswerBytes) + " bytes");
    std::error_code ec;
    json::value reply = json::parse(reply_json, ec);
    if (ec) return invalid(source, "text that is not JSON (" + ec.message() + ")");
    if (!reply.is_object()) return invalid(source, "a JSON value that is not an object");
    return std::move(reply.as_object());
}

// The array `member` of `from`, at most `limit` long; absent is an empty array when not `required`.
Result<json::array> array_member(const PromptReplySource& source, const json::object& from, const std::string& where,
                                 const char* member, std::size_t limit, bool required) {
    const json::value* v = from.if_contains(member);
    if (!v || v->is_null()) {
        if (required) return invalid(source, "no \"" + where + member + "\" array");
        return json::array();
    }
    if (!v->is_array()) return invalid(source, "\"" + where + member + "\" that is not an array");
    if (v->get_array().size() > limit)
        return invalid(source, std::to_string(v->get_array().size()) + " entries in \"" + where + member +
                                   "\", more than the host's limit of " + std::to_string(limit));
    return v->get_array();
}

bool has_control_characters(std::string_view text) {
    for (char c : text)
        if (static_cast<unsigned char>(c) < 0x20) return true;
    return false;
}

// Copies the name (required: 1 to kMaxPromptNameBytes bytes, no control characters) and the optional
// title and description of `from`; an empty string names the problem.
std::string copy_names(const json::object& from, json::object& to, const std::string& where) {
    const json::value* name = from.if_contains("name");
    if (!name || !name->is_string()) return where + "name missing or not a string";
    const std::string_view n = name->get_string();
    if (n.empty() || n.size() > kMaxPromptNameBytes || has_control_characters(n))
        return where + "name not 1 to " + std::to_string(kMaxPromptNameBytes) + " bytes without control characters";
    to["name"] = n;
    for (const char* field : {"title", "description"}) {
        const json::value* v = from.if_contains(field);
        if (!v || v->is_null()) continue;
        if (!v->is_string() || v->get_string().size() > kMaxPromptTextBytes)
            return where + field + " not a string of at most " + std::to_string(kMaxPromptTextBytes) + " bytes";
        to[field] = *v;
    }
    return {};
}

Result<json::object> check_argument(const PromptReplySource& source, const json::value& value,
                                    const std::string& where) {
    const json::object* from = value.if_object();
    if (!from) return invalid(source, where + " not an object");
    json::object out;
    if (std::string problem = copy_names(*from, out, where + "."); !problem.empty()) return invalid(source, problem);
    if (const json::value* required = from->if_contains("required"); required && !required->is_null()) {
        if (!required->is_bool()) return invalid(source, where + ".required not a boolean");
        out["required"] = *required;
    }
    auto values = array_member(source, *from, where + ".", "enum", kMaxCompletionValues, false);
    if (!values) return values.error();
    for (const auto& v : *values)
        if (!v.is_string() || v.get_string().size() > kMaxCompletionValueBytes)
            return invalid(source, where + ".enum holding something other than strings of at most " +
                                       std::to_string(kMaxCompletionValueBytes) + " bytes");
    if (!values->empty()) out["enum"] = std::move(*values);
    return out;
}

Result<json::object> check_prompt(const PromptReplySource& source, const json::value& value, std::size_t index) {
    const std::string where = "prompts[" + std::to_string(index) + "]";
    const json::object* from = value.if_object();
    if (!from) return invalid(source, where + " not an object");
    json::object out;
    if (std::string problem = copy_names(*from, out, where + "."); !problem.empty()) return invalid(source, problem);
    auto arguments = array_member(source, *from, where + ".", "arguments", kMaxPromptArguments, false);
    if (!arguments) return arguments.error();
    json::array checked;
    std::set<std::string, std::less<>> names;
    for (std::size_t i = 0; i < arguments->size(); ++i) {
        auto argument = check_argument(source, (*arguments)[i], where + ".arguments[" + std::to_string(i) + "]");
        if (!argument) return argument.error();
        if (!names.emplace(argument->at("name").as_string()).second)
            return invalid(source,
                           where + " with two arguments named '" + std::string(argument->at("name").as_string()) + "'");
        checked.push_back(std::move(*argument));
    }
    out["arguments"] = std::move(checked);
    return out;
}

}  // namespace

Result<json::array> check_prompt_list(const PromptReplySource& source, std::string_view reply_json) {
    auto reply = reply_object(source, reply_json);
    if (!reply) return reply.error();
    auto prompts = array_member(source, *reply, "", "prompts", kMaxPromptsPerPlugin, true);
    if (!prompts) return prompts.error();
    json::array out;
    std::set<std::string, std::less<>> names;
    for (std::size_t i = 0; i < prompts->size(); ++i) {
        auto prompt = check_prompt(source, (*prompts)[i], i);
        if (!prompt) return prompt.error();
        if (!names.emplace(prompt->at("name").as_string()).second)
            return invalid(source, "two prompts named '" + std::string(prompt->at("name").as_string()) + "'");
        out.push_back(std::move(*prompt));
    }
    return out;
}

Result<json::object> check_prompt_messages(const PromptReplySource& source, std::string_view reply_json) {
    auto reply = reply_object(source, reply_json);
    if (!reply) return reply.error();
    json::object out;
    if (const json::value* d = reply->if_contains("description"); d && !d->is_null()) {
        if (!d->is_string() || d->get_string().size() > kMaxPromptTextBytes)
            return invalid(source, "a description that is not a string of at most " +
                                       std::to_string(kMaxPromptTextBytes) + " bytes");
        out["description"] = *d;
    }
    auto messages = array_member(source, *reply, "", "messages", kMaxPromptMessages, true);
    if (!messages) return messages.error();
    json::array checked;
    for (std::size_t i = 0; i < messages->size(); ++i) {
        const std::string where = "messages[" + std::to_string(i) + "]";
        const json::object* message = (*messages)[i].if_object();
        if (!message) return invalid(source, where + " not an object");
        const json::value* role = message->if_contains("role");
        if (!role || !role->is_string() || (role->get_string() != "user" && role->get_string() != "assistant"))
            return invalid(source, where + ".role not \"user\" or \"assistant\"");
        const json::value* content = message->if_contains("content");
        if (!content || !content->is_object()) return invalid(source, where + ".content not an object");
        auto item = plugin::parse_content_item(json::serialize(*content));
        if (!item) return invalid(source, where + ".content not a content item: " + item.error().message);
        checked.push_back(json::object{{"role", *role}, {"content", std::move(*item)}});
    }
    out["messages"] = std::move(checked);
    return out;
}

Result<json::object> check_completion(const PromptReplySource& source, std::string_view reply_json) {
    auto reply = reply_object(source, reply_json);
    if (!reply) return reply.error();
    auto values = array_member(source, *reply, "", "values", kMaxCompletionValues, true);
    if (!values) return values.error();
    for (const auto& v : *values)
        if (!v.is_string() || v.get_string().size() > kMaxCompletionValueBytes)
            return invalid(
                source, "values other than strings of at most " + std::to_string(kMaxCompletionValueBytes) + " bytes");
    json::object out{{"values", std::move(*values)}};
    if (const json::value* total = reply->if_contains("total"); total && !total->is_null()) {
        if (!total->is_int64() && !total->is_uint64()) return invalid(source, "a total that is not an integer");
        if (total->is_int64() && total->get_int64() < 0) return invalid(source, "a negative total");
        out["total"] = *total;
    }
    if (const json::value* more = reply->if_contains("hasMore"); more && !more->is_null()) {
        if (!more->is_bool()) return invalid(source, "a hasMore that is not a boolean");
        out["hasMore"] = *more;
    }
    return out;
}

}  // namespace skillhost::exec
