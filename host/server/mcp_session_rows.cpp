#include "server/mcp_session_rows.hpp"
#include "server/error_codes.hpp"

#include "store/run_record.hpp"

#include <boost/json.hpp>

namespace skillhost::server {

namespace json = boost::json;

McpSessionRows::McpSessionRows(std::unique_ptr<db::BackendConnection> connection, std::chrono::milliseconds idle_expiry)
    : connection_(std::move(connection)), idle_expiry_(idle_expiry) {}

Status McpSessionRows::insert(const McpSessionRow& row) {
    const std::string record =
        json::serialize(json::object{{"user", row.user_id}, {"initialize", row.initialize_params}});
    if (record.size() > max_mcp_session_record_bytes) {
        return Error{errors::kMcpInitializeTooLarge,
                     "the initialize request's params have " + std::to_string(record.size()) +
                         " bytes; a session keeps at most " + std::to_string(max_mcp_session_record_bytes),
                     {},
                     {"send shorter clientInfo and capabilities"}};
    }
    const std::int64_t now = store::unix_ms_now();
    // Expired rows go when new ones come, so the table holds live sessions only.
    if (auto swept = connection_->run("removing expired MCP sessions",
                                      "DELETE FROM mcp_sessions WHERE last_seen_ms < ?", {now - idle_expiry_.count()});
        !swept)
        return swept.error();
    auto inserted =
        connection_->run("recording an MCP session",
                         "INSERT INTO mcp_sessions (id, created_ms, last_seen_ms, record) VALUES (?, ?, ?, ?)",
                         {row.id, now, now, record});
    if (!inserted) return inserted.error();
    return {};
}

Result<std::optional<McpSessionRow>> McpSessionRows::find(std::string_view id) {
    const std::int64_t now = store::unix_ms_now();
    auto rows =
        connection_->run("reading an MCP session",
                         "UPDATE mcp_sessions SET last_seen_ms = ? WHERE id = ? AND last_seen_ms >= ? RETURNING record",
                         {now, std::string(id), now - idle_expiry_.count()});
    if (!rows) return rows.error();
    if (rows->size() == 0) return std::optional<McpSessionRow>();
    boost::system::error_code ec;
    json::value record = json::parse(rows->text(0, 0), ec);
    const json::object* fields = !ec && record.is_object() ? &record.as_object() : nullptr;
    const json::value* user = fields ? fields->if_contains("user") : nullptr;
    const json::value* params = fields ? fields->if_contains("initialize") : nullptr;
    if (!user || !user->is_string() || !params || !params->is_object()) {
        return Error{errors::kMcpSessionCorrupt,
                     "the stored MCP session " + std::string(id) + " cannot be read",
                     {},
                     {"the client initializes a new session"}};
    }
    return std::optional<McpSessionRow>(
        McpSessionRow{std::string(id), std::string(user->as_string()), params->as_object()});
}

Result<bool> McpSessionRows::touch(std::string_view id) {
    auto rows = connection_->run("renewing an MCP session", "UPDATE mcp_sessions SET last_seen_ms = ? WHERE id = ?",
                                 {store::unix_ms_now(), std::string(id)});
    if (!rows) return rows.error();
    return rows->affected > 0;
}

Result<bool> McpSessionRows::exists(std::string_view id) {
    auto rows =
        connection_->run("looking up an MCP session", "SELECT 1 FROM mcp_sessions WHERE id = ? AND last_seen_ms >= ?",
                         {std::string(id), store::unix_ms_now() - idle_expiry_.count()});
    if (!rows) return rows.error();
    return rows->size() > 0;
}

Status McpSessionRows::remove(std::string_view id) {
    auto removed =
        connection_->run("ending an MCP session", "DELETE FROM mcp_sessions WHERE id = ?", {std::string(id)});
    if (!removed) return removed.error();
    return {};
}

}  // namespace skillhost::server
