#include "mcp/json_rpc.hpp"

#include "base/json_text.hpp"

namespace skillhost::mcp {

namespace json = boost::json;

json::object make_result(const json::value& id, json::value result) {
    return json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json::object make_error(const json::value& id, int code, std::string_view message, json::value data) {
    json::object error{{"code", code}, {"message", message}};
    if (!data.is_null()) error["data"] = std::move(data);
    return json::object{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

json::object make_notification(std::string_view method, json::object params) {
    return json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

json::object make_request(const json::value& id, std::string_view method, json::object params) {
    return json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

bool is_valid_id(const json::value& id) {
    return id.is_string() || id.is_int64() || id.is_uint64();
}

std::string id_key(const json::value& id) {
    std::string key;
    if (id.is_string()) {
        const json::string& s = id.get_string();
        key.reserve(2 + s.size());
        key += "s:";
        key.append(s.data(), s.size());
        return key;
    }
    // Integer ids (what clients send) without going through the JSON writer: every call computes
    // its key several times.
    if (id.is_int64()) return "n:" + std::to_string(id.get_int64());
    if (id.is_uint64()) return "n:" + std::to_string(id.get_uint64());
    return "n:" + compact_json(id);
}

}  // namespace skillhost::mcp
