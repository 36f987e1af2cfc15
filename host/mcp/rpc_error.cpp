#include "mcp/rpc_error.hpp"

#include "mcp/json_rpc.hpp"

namespace skillhost::mcp {

int rpc_code_for(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::invalid:
        case ErrorKind::not_found:
        case ErrorKind::mismatch:
        case ErrorKind::too_large:
        case ErrorKind::headers_too_large: return rpc_code::invalid_params;
        case ErrorKind::unsupported: return rpc_code::method_not_found;
        case ErrorKind::pending:
        case ErrorKind::unauthenticated:
        case ErrorKind::forbidden:
        case ErrorKind::not_acceptable:
        case ErrorKind::conflict:
        case ErrorKind::gone:
        case ErrorKind::too_many:
        case ErrorKind::internal:
        case ErrorKind::plugin:
        case ErrorKind::unavailable:
        case ErrorKind::timeout: return rpc_code::internal_error;
    }
    return rpc_code::internal_error;
}

boost::json::object rpc_error(const boost::json::value& id, const Error& error) {
    const int code = rpc_code_for(error.kind());
    if (code == rpc_code::internal_error)
        return make_error(id, code, error.code + ": " + error.message, error.to_json());
    return make_error(id, code, error.message, error.to_json());
}

}  // namespace skillhost::mcp
