#include "exec/resource_reply_check.hpp"
#include "exec/error_codes.hpp"

#include <boost/json/parse.hpp>

#include <initializer_list>
#include <string>
#include <system_error>

namespace skillhost::exec {
namespace {

namespace json = boost::json;

Error invalid(const ResourceReplySource& source, const std::string& problem) {
    Error e{errors::kPluginInvalidResult,
            "plugin '" + std::string(source.plugin) + "' answered resources " + std::string(source.function) +
                " with " + problem + "; the plugin must answer as skill_abi.h describes (report it to its author)"};
    e.details["plugin"] = source.plugin;
    e.details["function"] = source.function;
    return e;
}

// The array under `member` of the reply object, at most `limit` long.
Result<json::array> reply_array(const ResourceReplySource& source, std::string_view reply_json, const char* member,
                                std::size_t limit) {
    std::error_code ec;
    json::value reply = json::parse(reply_json, ec);
    if (ec) return invalid(source, "text that is not JSON (" + ec.message() + ")");
    const json::object* object = reply.if_object();
    const json::value* items = object ? object->if_contains(member) : nullptr;
    if (!items || !items->is_array()) return invalid(source, std::string("no \"") + member + "\" array");
    if (items->get_array().size() > limit) {
        Error e = invalid(source, std::to_string(items->get_array().size()) + " entries in \"" + member +
                                      "\", more than the host's limit of " + std::to_string(limit));
        e.details["limit"] = limit;
        return e;
    }
    return std::move(reply.as_object()[member].as_array());
}

std::string where(const char* member, std::size_t index, std::string_view field) {
    return std::string(member) + "[" + std::to_string(index) + "]." + std::string(field);
}

// Copies the string members `names` that are present; false (and `problem`) for a non-string one,
// or for a missing or empty one among the first `required`.
bool copy_strings(const json::object& from, json::object& to, std::initializer_list<const char*> names,
                  std::size_t required, const char* member, std::size_t index, std::string& problem) {
    std::size_t n = 0;
    for (const char* name : names) {
        const json::value* v = from.if_contains(name);
        const bool must = n++ < required;
        if (!v || v->is_null()) {
            if (!must) continue;
            problem = where(member, index, name) + " missing";
            return false;
        }
        if (!v->is_string() || (must && v->get_string().empty())) {
            problem = where(member, index, name) + (v->is_string() ? " empty" : " not a string");
            return false;
        }
        to[name] = *v;
    }
    return true;
}

bool uri_acceptable(const ResourceReplySource& source, std::string_view uri) {
    return uri.size() <= kMaxResourceUriBytes && uri.size() > source.uri_prefix.size() &&
           uri.substr(0, source.uri_prefix.size()) == source.uri_prefix;
}

std::string uri_problem(const ResourceReplySource& source, const std::string& field) {
    return field + " not a URI of at most " + std::to_string(kMaxResourceUriBytes) +
           " bytes starting with the plugin's prefix '" + std::string(source.uri_prefix) + "'";
}

bool is_base64(std::string_view text) {
    if (text.size() % 4 != 0) return false;
    std::size_t padding = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '=') {
            if (i + 2 < text.size()) return false;  // padding only in the last two places
            ++padding;
            continue;
        }
        if (padding > 0) return false;
        const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && c != '+' && c != '/') return false;
    }
    return true;
}

// The entries of a list answer: `names` are the string members kept (the first two required, the
// first a URI under the prefix); `with_size` keeps a non-negative integer "size" too.
Result<json::array> check_entries(const ResourceReplySource& source, std::string_view reply_json, const char* member,
                                  std::initializer_list<const char*> names, bool with_size) {
    auto items = reply_array(source, reply_json, member, kMaxResourcesPerPlugin);
    if (!items) return items.error();
    const char* uri_key = *names.begin();
    json::array out;
    for (std::size_t i = 0; i < items->size(); ++i) {
        const json::object* item = (*items)[i].if_object();
        if (!item) return invalid(source, where(member, i, "") + " not an object");
        json::object entry;
        std::string problem;
        if (!copy_strings(*item, entry, names, 2, member, i, problem)) return invalid(source, problem);
        if (!uri_acceptable(source, entry[uri_key].get_string()))
            return invalid(source, uri_problem(source, where(member, i, uri_key)));
        if (const json::value* size = item->if_contains("size"); with_size && size && !size->is_null()) {
            if (!(size->is_uint64() || (size->is_int64() && size->get_int64() >= 0)))
                return invalid(source, where(member, i, "size") + " not a non-negative integer");
            entry["size"] = *size;
        }
        out.push_back(std::move(entry));
    }
    return out;
}

}  // namespace

Result<json::array> check_resource_list(const ResourceReplySource& source, std::string_view reply_json) {
    return check_entries(source, reply_json, "resources", {"uri", "name", "title", "description", "mimeType"}, true);
}

Result<json::array> check_resource_templates(const ResourceReplySource& source, std::string_view reply_json) {
    return check_entries(source, reply_json, "resourceTemplates",
                         {"uriTemplate", "name", "title", "description", "mimeType"}, false);
}

Result<json::array> check_resource_contents(const ResourceReplySource& source, std::string_view reply_json) {
    auto items = reply_array(source, reply_json, "contents", kMaxResourceContents);
    if (!items) return items.error();
    if (items->empty()) return invalid(source, "an empty \"contents\" array");
    json::array out;
    for (std::size_t i = 0; i < items->size(); ++i) {
        const json::object* item = (*items)[i].if_object();
        if (!item) return invalid(source, where("contents", i, "") + " not an object");
        json::object content;
        std::string problem;
        if (!copy_strings(*item, content, {"uri", "mimeType", "text", "blob"}, 1, "contents", i, problem))
            return invalid(source, problem);
        if (!uri_acceptable(source, content["uri"].get_string()))
            return invalid(source, uri_problem(source, where("contents", i, "uri")));
        const bool text = content.contains("text");
        const bool blob = content.contains("blob");
        if (text == blob)
            return invalid(source, where("contents", i, "") + " with " + (text ? "both" : "neither") +
                                       " of \"text\" and \"blob\"");
        if (blob && !is_base64(content["blob"].get_string()))
            return invalid(source, where("contents", i, "blob") + " not standard base64");
        out.push_back(std::move(content));
    }
    return out;
}

}  // namespace skillhost::exec
