// MCP-over-HTTP sessions that any instance can serve (PostgreSQL, table mcp_sessions): a row says
// that a session exists, whose it is, and how it was initialized (the client's initialize params:
// protocol version, declared capabilities, client info), so an instance that never saw the session
// rebuilds it by replaying that initialize. The live transport (streams, calls in flight) stays on
// the instance that holds it. A row unused for the idle expiry is gone: its session gets 404 and
// the client initializes again, as the MCP transport specification asks.
#pragma once

#include "base/error.hpp"
#include "db/backend_connection.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::server {

struct McpSessionRow {
    std::string id;
    std::string user_id;
    boost::json::object initialize_params;  // as the client sent them
};

// A row larger than this is refused (a client's capabilities and info are far smaller).
inline constexpr std::size_t max_mcp_session_record_bytes = 64 * 1024;

class McpSessionRows {
public:
    McpSessionRows(std::unique_ptr<db::BackendConnection> connection, std::chrono::milliseconds idle_expiry);

    Status insert(const McpSessionRow& row);
    // The session when it exists and was used within the idle expiry (which this use renews).
    Result<std::optional<McpSessionRow>> find(std::string_view id);
    // Renews the session's last use; false when its row is gone (ended or expired elsewhere).
    Result<bool> touch(std::string_view id);
    // Whether the session's row is still there and unexpired (a read, no write).
    Result<bool> exists(std::string_view id);
    Status remove(std::string_view id);

private:
    std::unique_ptr<db::BackendConnection> connection_;
    const std::chrono::milliseconds idle_expiry_;
};

}  // namespace skillhost::server
