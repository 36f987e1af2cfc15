// The JSON-RPC error of each error kind: the one table MCP answers an Error with.
#pragma once

#include "base/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace skillhost::mcp {

// What the client can fix (invalid, not_found, ...) is invalid params; an operation the server
// does not offer is method not found; everything else is the server's (or the plugin's) failure.
int rpc_code_for(ErrorKind kind);

// The JSON-RPC error answering `id` with `error`: its message (prefixed with the code when the
// server failed) and the error itself as data.
boost::json::object rpc_error(const boost::json::value& id, const Error& error);

}  // namespace skillhost::mcp
