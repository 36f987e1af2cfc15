#include "plugin/foreign_result.hpp"

#include "plugin/error_codes.hpp"
#include "upstream/error_codes.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace skillhost::plugin {
namespace json = boost::json;

std::optional<std::string> file_path_of(std::string_view uri) {
    constexpr std::string_view scheme = "file://";
    if (uri.size() <= scheme.size() || uri.substr(0, scheme.size()) != scheme) return std::nullopt;
    uri.remove_prefix(scheme.size());
    if (uri.starts_with("localhost/")) uri.remove_prefix(9);
    std::string path;
    for (std::size_t i = 0; i < uri.size(); ++i) {
        const auto hex = [](char c) {
            return c >= '0' && c <= '9'   ? c - '0'
                   : c >= 'a' && c <= 'f' ? c - 'a' + 10
                   : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                          : -1;
        };
        if (uri[i] == '%' && i + 2 < uri.size() && hex(uri[i + 1]) >= 0 && hex(uri[i + 2]) >= 0) {
            path += static_cast<char>(hex(uri[i + 1]) * 16 + hex(uri[i + 2]));
            i += 2;
        } else {
            path += uri[i];
        }
    }
    return path;
}

namespace {

constexpr std::size_t kMaxErrorText = 2000;

std::string printable_text(std::string_view text) {
    std::string out(text.substr(0, kMaxErrorText));
    if (text.size() > kMaxErrorText) out += "...";
    return out;
}

// The file a content block links to or embeds (resource_link, resource), if it is a file:// URI.
std::optional<std::string> linked_file(const json::object& block) {
    const json::value* type = block.if_contains("type");
    if (type == nullptr || !type->is_string()) return std::nullopt;
    const json::object* holder = &block;
    if (type->get_string() == "resource") {
        const json::value* resource = block.if_contains("resource");
        holder = resource != nullptr ? resource->if_object() : nullptr;
    } else if (type->get_string() != "resource_link") {
        return std::nullopt;
    }
    const json::value* uri = holder != nullptr ? holder->if_contains("uri") : nullptr;
    if (uri == nullptr || !uri->is_string()) return std::nullopt;
    return file_path_of(uri->get_string());
}

// Path rules reach the files a result links to, as they reach the call's path inputs: a link or an
// embedded file the call's rules withhold is replaced by a note saying so.
void withhold_denied_files(json::array& content, const CallControl* control) {
    if (control == nullptr || !control->path_allowed) return;
    for (json::value& block : content) {
        const json::object* item = block.if_object();
        if (item == nullptr) continue;
        const std::optional<std::string> path = linked_file(*item);
        if (!path || control->path_allowed(*path)) continue;
        block = json::object{{"type", "text"},
                             {"text", "[withheld: a file a policy rule keeps from this call (" + *path + ")]"}};
    }
}

}  // namespace

RawOutcome outcome_of_tool_result(json::object result, CallControl* control) {
    std::string text;
    json::array content = result["content"].as_array();
    withhold_denied_files(content, control);
    for (const json::value& block : content) {
        const json::object* item = block.if_object();
        if (item == nullptr) continue;
        const json::value* type = item->if_contains("type");
        const json::value* body = item->if_contains("text");
        if (type != nullptr && type->is_string() && type->get_string() == "text" && body != nullptr &&
            body->is_string()) {
            if (!text.empty()) text += '\n';
            text += body->get_string();
        }
    }
    const json::value* is_error = result.if_contains("isError");
    if (is_error != nullptr && is_error->is_bool() && is_error->get_bool()) {
        Error error{errors::kUpstreamToolError,
                    text.empty() ? std::string("the tool reported an error without a message") : printable_text(text)};
        error.details["content"] = std::move(content);
        return RawOutcome::from_error(error);
    }
    if (control != nullptr) {
        for (const json::value& block : content) {
            const Status added = control->content.add(json::serialize(block));
            if (!added) {
                spdlog::debug("a content item of a foreign tool was not passed on: {}", added.error().message);
                break;
            }
        }
    }
    RawOutcome outcome;
    outcome.status = SKILLHOST_STATUS_OK;
    outcome.written = RawOutcome::Written::result;
    const json::value* structured = result.if_contains("structuredContent");
    if (structured != nullptr && structured->is_object()) {
        outcome.result_json = json::serialize(*structured);
    } else {
        outcome.result_json = json::serialize(json::object{{"text", text}});
    }
    return outcome;
}

}  // namespace skillhost::plugin
