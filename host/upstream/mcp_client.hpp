// The client side of one MCP session (spec 2025-06-18, also speaking to 2025-03-26 and 2024-11-05
// servers) over a Transport (stdio or Streamable HTTP): the initialize handshake, the tool list (every page, bounded) and
// tool calls. What a server answers is checked here before anyone above trusts it: a tool with an
// unusable name or schema is left out and reported, never passed on.
#pragma once

#include "base/error.hpp"
#include "upstream/transport.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace skillhost::upstream {

// The protocol versions this client speaks, newest first (the first is the one it asks for).
inline constexpr std::string_view kClientProtocolVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

struct ServerInfo {
    std::string protocol_version;
    std::string name;
    std::string version;
    std::string instructions;
    boost::json::object capabilities;
};

// One tool as the server defines it, checked: `name` is 1..128 of [A-Za-z0-9_.-], `input_schema`
// an object schema, `description` at most max_description_bytes.
struct ToolDefinition {
    std::string name;
    std::string title;
    std::string description;
    boost::json::object input_schema;
    std::optional<boost::json::object> output_schema;
    boost::json::object annotations;  // as the server claims them (readOnlyHint, ...): not trusted
};

// A tool the server listed that was left out, and why.
struct RejectedTool {
    std::string name;  // as listed (printable, cut), or "" when it had none
    std::string reason;
};

struct ToolList {
    std::vector<ToolDefinition> tools;
    std::vector<RejectedTool> rejected;
};

struct ToolListLimits {
    std::size_t max_tools = 1000;
    std::size_t max_pages = 100;
    std::size_t max_description_bytes = 16 * 1024;
};

class McpClient {
public:
    explicit McpClient(std::shared_ptr<Transport> channel) : channel_(std::move(channel)) {}

    // initialize, then notifications/initialized. `capabilities` is what the client offers (roots,
    // sampling, elicitation). UPSTREAM_PROTOCOL_ERROR when the server answers a version this client
    // does not speak or an answer without the required fields.
    Result<ServerInfo> initialize(const boost::json::object& capabilities, std::string_view client_version,
                                  Clock::time_point deadline);

    // Every page of tools/list. More than max_tools tools or max_pages pages is an
    // UPSTREAM_PROTOCOL_ERROR naming the limit (a server that lists without end).
    Result<ToolList> list_tools(const ToolListLimits& limits, Clock::time_point deadline);

    // tools/call: the CallToolResult object as the server answered it (content, structuredContent,
    // isError), checked to be an object with a `content` array.
    Result<boost::json::object> call_tool(std::string_view name, boost::json::object arguments,
                                          Clock::time_point deadline, const std::atomic<bool>* cancelled);

    Transport& channel() { return *channel_; }

private:
    std::shared_ptr<Transport> channel_;
};

// What a tool's definition is pinned by: its name, title, description, input and output schemas and
// annotations, as one object (shown beside a changed definition, to diff it).
boost::json::object definition_json(const ToolDefinition& tool);
// The hash a tool's definition is pinned by: SHA-256 (hex) of definition_json() with sorted keys, so
// a server that only reorders keys keeps its hash.
std::string definition_hash(const ToolDefinition& tool);
// The hash of the server's `instructions` (SHA-256, hex; the empty text when it gives none).
std::string instructions_hash(std::string_view instructions);

// Whether `name` may name a tool: 1..128 characters of [A-Za-z0-9_.-].
bool is_tool_name(std::string_view name);

}  // namespace skillhost::upstream
