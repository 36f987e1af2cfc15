#include "plugin/call_content.hpp"
#include "plugin/error_codes.hpp"

#include "base/json_text.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace skillhost::plugin {
namespace {

namespace json = boost::json;

Error invalid(std::string problem) {
    return Error{errors::kContentInvalid,
                 "the content item is invalid: " + problem +
                     "; see skillhost.content/1 in skill_abi.h for the item shapes (text, image, audio, "
                     "resource_link, resource)"};
}

bool is_base64(std::string_view text) {
    if (text.size() % 4 != 0) return false;
    std::size_t padding = 0;
    for (char c : text) {
        const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (c == '=') {
            ++padding;
        } else if (padding > 0 || !(alnum || c == '+' || c == '/')) {
            return false;  // '=' only at the end
        }
    }
    return padding <= 2;
}

// Checks that `field` of `object` is a string (non-empty when `required`); names it otherwise.
std::optional<Error> want_string(const json::object& object, std::string_view field, bool required,
                                 std::string_view where) {
    const json::value* value = object.if_contains(field);
    if (!value) {
        if (!required) return std::nullopt;
        return invalid(std::string(where) + " needs \"" + std::string(field) + "\" (a string)");
    }
    if (!value->is_string()) return invalid(std::string(where) + "." + std::string(field) + " must be a string");
    if (required && value->get_string().empty())
        return invalid(std::string(where) + "." + std::string(field) + " must not be empty");
    return std::nullopt;
}

std::optional<Error> want_base64(const json::object& object, std::string_view field, std::string_view where) {
    if (auto problem = want_string(object, field, true, where)) return problem;
    if (!is_base64(object.at(field).get_string()))
        return invalid(std::string(where) + "." + std::string(field) + " must be base64 (RFC 4648, padded)");
    return std::nullopt;
}

std::optional<Error> check_common(const json::object& item, std::string_view where) {
    for (std::string_view field : {"annotations", "_meta"})
        if (const json::value* v = item.if_contains(field); v && !v->is_object())
            return invalid(std::string(where) + "." + std::string(field) + " must be an object");
    return std::nullopt;
}

std::optional<Error> check_item(const json::object& item) {
    const json::value* type = item.if_contains("type");
    if (!type || !type->is_string())
        return invalid("\"type\" must be one of text, image, audio, resource_link, resource");
    const std::string_view kind = type->get_string();
    if (auto problem = check_common(item, "item")) return problem;
    if (kind == "text") {
        const json::value* text = item.if_contains("text");
        if (!text || !text->is_string()) return invalid("a text item needs \"text\" (a string)");
        return std::nullopt;
    }
    if (kind == "image" || kind == "audio") {
        const std::string where = std::string(kind) + " item";
        if (auto problem = want_base64(item, "data", where)) return problem;
        return want_string(item, "mimeType", true, where);
    }
    if (kind == "resource_link") {
        if (auto problem = want_string(item, "uri", true, "resource_link item")) return problem;
        if (auto problem = want_string(item, "name", true, "resource_link item")) return problem;
        for (std::string_view field : {"mimeType", "description", "title"})
            if (auto problem = want_string(item, field, false, "resource_link item")) return problem;
        return std::nullopt;
    }
    if (kind == "resource") {
        const json::value* resource = item.if_contains("resource");
        if (!resource || !resource->is_object())
            return invalid("a resource item needs \"resource\": {uri, mimeType?, text | blob}");
        const json::object& r = resource->get_object();
        if (auto problem = want_string(r, "uri", true, "resource")) return problem;
        if (auto problem = want_string(r, "mimeType", false, "resource")) return problem;
        const bool has_text = r.contains("text"), has_blob = r.contains("blob");
        if (has_text == has_blob) return invalid("resource needs exactly one of \"text\" and \"blob\"");
        if (has_text) return want_string(r, "text", false, "resource");
        return want_base64(r, "blob", "resource");
    }
    return invalid("\"type\" is \"" + std::string(kind.substr(0, 40)) +
                   "\"; use text, image, audio, resource_link or resource");
}

}  // namespace

Result<json::object> parse_content_item(std::string_view item_json) {
    json::value parsed;
    std::string problem;
    if (!parse_json(item_json, parsed, problem)) return invalid("it is not JSON (" + problem + ")");
    if (!parsed.is_object()) return invalid("it must be a JSON object");
    if (auto error = check_item(parsed.get_object())) return *error;
    return std::move(parsed.get_object());
}

Status CallContent::add(std::string_view item_json) {
    {
        // Cheap refusals first, before parsing what may be megabytes.
        std::lock_guard lock(mutex_);
        if (items_.size() >= max_items_)
            return Error{errors::kContentTooLarge,
                         "a call may add at most " + std::to_string(max_items_) +
                             " content items; combine items or put the rest in the structured result",
                         {{"max_items", max_items_}}};
        if (bytes_ + item_json.size() > max_bytes_)
            return Error{errors::kContentTooLarge,
                         "the content items of a call may hold at most " + std::to_string(max_bytes_) +
                             " bytes of JSON and this item would make " + std::to_string(bytes_ + item_json.size()) +
                             "; send smaller images or link to the resource instead (resource_link)",
                         {{"max_bytes", max_bytes_}}};
    }
    auto item = parse_content_item(item_json);
    if (!item) return item.error();
    std::lock_guard lock(mutex_);
    // Checked again: another thread of the call may have added meanwhile.
    if (items_.size() >= max_items_ || bytes_ + item_json.size() > max_bytes_)
        return Error{errors::kContentTooLarge, "the call's content items reached their limit (" +
                                                   std::to_string(max_items_) + " items, " +
                                                   std::to_string(max_bytes_) + " bytes); add fewer or smaller items"};
    bytes_ += item_json.size();
    items_.push_back(std::move(*item));
    return {};
}

json::array CallContent::take() {
    std::lock_guard lock(mutex_);
    json::array out = std::move(items_);
    items_ = json::array();
    bytes_ = 0;
    return out;
}

}  // namespace skillhost::plugin
