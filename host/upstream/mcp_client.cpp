#include "upstream/mcp_client.hpp"

#include "base/sha256.hpp"
#include "upstream/error_codes.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <set>

namespace skillhost::upstream {
namespace json = boost::json;
namespace {

Error protocol_error(std::string message) {
    return Error{errors::kUpstreamProtocolError, std::move(message)};
}

std::string text_of(const json::object& object, std::string_view key) {
    const json::value* value = object.if_contains(key);
    return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

// A name as a message may quote it: printable ASCII, at most 64 characters.
std::string quoted_name(std::string_view name) {
    std::string out;
    for (const char c : name.substr(0, 64)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
    return name.size() > 64 ? out + "..." : out;
}

std::optional<std::string> check_tool(const json::value& item, const ToolListLimits& limits, ToolDefinition& tool) {
    const json::object* object = item.if_object();
    if (object == nullptr) return "the entry is not an object";
    const json::value* name = object->if_contains("name");
    if (name == nullptr || !name->is_string()) return "it has no name";
    tool.name = std::string(name->get_string());
    if (!is_tool_name(tool.name)) return "its name is not 1 to 128 characters of letters, digits, '_', '-' and '.'";
    const json::value* schema = object->if_contains("inputSchema");
    if (schema == nullptr || !schema->is_object()) return "its inputSchema is not an object";
    const json::value* type = schema->get_object().if_contains("type");
    if (type == nullptr || !type->is_string() || type->get_string() != "object")
        return "its inputSchema is not of type \"object\"";
    tool.input_schema = schema->get_object();
    if (const json::value* output = object->if_contains("outputSchema")) {
        if (!output->is_object()) return "its outputSchema is not an object";
        tool.output_schema = output->get_object();
    }
    tool.title = text_of(*object, "title");
    tool.description = text_of(*object, "description");
    if (tool.description.size() > limits.max_description_bytes || tool.title.size() > limits.max_description_bytes)
        return "its description is over " + std::to_string(limits.max_description_bytes) + " bytes";
    if (const json::value* annotations = object->if_contains("annotations"); annotations && annotations->is_object()) {
        tool.annotations = annotations->get_object();
        if (tool.title.empty()) tool.title = text_of(tool.annotations, "title");
    }
    return std::nullopt;
}

// JSON text with every object's keys sorted. Depth is bounded by the parser (Boost.JSON's 32).
void append_canonical(const json::value& value, std::string& out) {
    if (const json::object* object = value.if_object()) {
        std::vector<const json::key_value_pair*> entries;
        for (const auto& entry : *object) entries.push_back(&entry);
        std::sort(entries.begin(), entries.end(), [](auto* a, auto* b) { return a->key() < b->key(); });
        out += '{';
        for (std::size_t i = 0; i < entries.size(); ++i) {
            if (i > 0) out += ',';
            out += json::serialize(json::value(entries[i]->key()));
            out += ':';
            append_canonical(entries[i]->value(), out);
        }
        out += '}';
    } else if (const json::array* array = value.if_array()) {
        out += '[';
        for (std::size_t i = 0; i < array->size(); ++i) {
            if (i > 0) out += ',';
            append_canonical((*array)[i], out);
        }
        out += ']';
    } else {
        out += json::serialize(value);
    }
}

}  // namespace

json::object definition_json(const ToolDefinition& tool) {
    json::object definition{{"name", tool.name},
                            {"title", tool.title},
                            {"description", tool.description},
                            {"inputSchema", tool.input_schema},
                            {"annotations", tool.annotations}};
    if (tool.output_schema) definition["outputSchema"] = *tool.output_schema;
    return definition;
}

std::string definition_hash(const ToolDefinition& tool) {
    std::string text;
    append_canonical(definition_json(tool), text);
    return sha256_hex(text);
}

std::string instructions_hash(std::string_view instructions) {
    return sha256_hex(instructions);
}

bool is_tool_name(std::string_view name) {
    if (name.empty() || name.size() > 128) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
               c == '.';
    });
}

Result<ServerInfo> McpClient::initialize(const json::object& capabilities, std::string_view client_version,
                                         Clock::time_point deadline) {
    json::object params{{"protocolVersion", kClientProtocolVersions[0]},
                        {"capabilities", capabilities},
                        {"clientInfo", json::object{{"name", "skillhost"}, {"version", client_version}}}};
    auto answer = channel_->call("initialize", std::move(params), deadline);
    if (!answer) return std::move(answer.error());
    const json::object* result = answer->if_object();
    if (result == nullptr) return protocol_error("the server answered initialize with something that is not an object");
    ServerInfo info;
    info.protocol_version = text_of(*result, "protocolVersion");
    const auto* known =
        std::find(std::begin(kClientProtocolVersions), std::end(kClientProtocolVersions), info.protocol_version);
    if (known == std::end(kClientProtocolVersions)) {
        Error error = protocol_error("the server speaks MCP protocol version \"" + quoted_name(info.protocol_version) +
                                     "\", which skillhost does not; it speaks 2025-06-18, 2025-03-26 and "
                                     "2024-11-05. Use a version of the server that speaks one of them");
        error.details["protocol_version"] = quoted_name(info.protocol_version);
        return error;
    }
    if (const json::value* caps = result->if_contains("capabilities"); caps != nullptr && caps->is_object())
        info.capabilities = caps->get_object();
    if (const json::value* server = result->if_contains("serverInfo"); server != nullptr && server->is_object()) {
        info.name = text_of(server->get_object(), "name");
        info.version = text_of(server->get_object(), "version");
    }
    info.instructions = text_of(*result, "instructions");
    if (!channel_->notify("notifications/initialized", {}, deadline))
        return Error{errors::kUpstreamClosed, "the server stopped reading after initialize"};
    return info;
}

Result<ToolList> McpClient::list_tools(const ToolListLimits& limits, Clock::time_point deadline) {
    ToolList list;
    std::set<std::string> seen;
    std::string cursor;
    std::size_t listed = 0;
    for (std::size_t page = 0;; ++page) {
        if (page >= limits.max_pages)
            return protocol_error("the server's tool list goes on past " + std::to_string(limits.max_pages) +
                                  " pages; it is not a list skillhost can take");
        json::object params;
        if (!cursor.empty()) params["cursor"] = cursor;
        auto answer = channel_->call("tools/list", std::move(params), deadline);
        if (!answer) return std::move(answer.error());
        const json::object* result = answer->if_object();
        const json::value* tools = result != nullptr ? result->if_contains("tools") : nullptr;
        if (tools == nullptr || !tools->is_array())
            return protocol_error("the server answered tools/list without a `tools` array");
        for (const json::value& item : tools->get_array()) {
            if (++listed > limits.max_tools) {
                Error error = protocol_error("the server lists more than " + std::to_string(limits.max_tools) +
                                             " tools; raise limits.max_tools in its declaration or narrow it with "
                                             "include/exclude");
                error.details["limit"] = limits.max_tools;
                return error;
            }
            ToolDefinition tool;
            if (auto problem = check_tool(item, limits, tool)) {
                list.rejected.push_back(RejectedTool{quoted_name(tool.name), std::move(*problem)});
                continue;
            }
            if (!seen.insert(tool.name).second) {
                list.rejected.push_back(RejectedTool{tool.name, "it is listed twice"});
                continue;
            }
            list.tools.push_back(std::move(tool));
        }
        const json::value* next = result->if_contains("nextCursor");
        if (next == nullptr || next->is_null()) break;
        if (!next->is_string() || next->get_string().empty())
            return protocol_error("the server answered tools/list with a nextCursor that is not a non-empty string");
        cursor = std::string(next->get_string());
    }
    return list;
}

Result<json::object> McpClient::call_tool(std::string_view name, json::object arguments, Clock::time_point deadline,
                                          const std::atomic<bool>* cancelled) {
    json::object params{{"name", name}, {"arguments", std::move(arguments)}};
    auto answer = channel_->call("tools/call", std::move(params), deadline, cancelled);
    if (!answer) return std::move(answer.error());
    json::object* result = answer->if_object();
    if (result == nullptr) return protocol_error("the server answered tools/call with something that is not an object");
    const json::value* content = result->if_contains("content");
    if (content == nullptr || !content->is_array())
        return protocol_error("the server answered tools/call without a `content` array");
    return std::move(*result);
}

}  // namespace skillhost::upstream
