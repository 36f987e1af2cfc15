// JSON-RPC 2.0 message shapes used by the MCP session: error codes and builders for responses,
// errors and notifications.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace skillhost::mcp {

namespace rpc_code {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
// The MCP spec leaves the code for "not initialized yet" open; -32002 is what common servers use.
inline constexpr int server_not_initialized = -32002;
}  // namespace rpc_code

boost::json::object make_result(const boost::json::value& id, boost::json::value result);
boost::json::object make_error(const boost::json::value& id, int code, std::string_view message,
                               boost::json::value data = nullptr);
boost::json::object make_notification(std::string_view method, boost::json::object params);
boost::json::object make_request(const boost::json::value& id, std::string_view method, boost::json::object params);

// A request id must be a string or an integer (JSON-RPC allows numbers; MCP says string or integer).
bool is_valid_id(const boost::json::value& id);
// A stable map key for an id ("s:abc" / "n:42"), so "1" and 1 stay different requests.
std::string id_key(const boost::json::value& id);

}  // namespace skillhost::mcp
