#include "upstream/rpc_message.hpp"

#include "upstream/error_codes.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace skillhost::upstream {
namespace json = boost::json;

std::string printable(std::string_view text) {
    std::string out;
    for (const char c : text.substr(0, 120)) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f) {
            out += c;
        } else {
            static constexpr char kHex[] = "0123456789abcdef";
            out += "\\x";
            out += kHex[byte >> 4];
            out += kHex[byte & 0xf];
        }
    }
    if (text.size() > 120) out += "...";
    return out;
}

IncomingMessage read_message(const json::value& message, const std::string& label) {
    static const json::value kNoParams;
    IncomingMessage out;
    const json::object* object = message.if_object();
    const json::value* version = object != nullptr ? object->if_contains("jsonrpc") : nullptr;
    if (version == nullptr || !version->is_string() || version->get_string() != "2.0") return out;
    const json::value* method = object->if_contains("method");
    const json::value* id = object->if_contains("id");
    const json::value* params = object->if_contains("params");
    out.params = params != nullptr ? params : &kNoParams;
    if (method != nullptr && method->is_string()) {
        out.method = method->get_string();
        const bool request = id != nullptr && !id->is_null();
        out.kind = request ? IncomingMessage::Kind::request : IncomingMessage::Kind::notification;
        if (request) out.id = id;
        return out;
    }
    if (id == nullptr || !id->is_int64()) {
        out.kind = IncomingMessage::Kind::stray;
        return out;
    }
    out.kind = IncomingMessage::Kind::answer;
    out.answer_id = id->get_int64();
    if (const json::value* result = object->if_contains("result")) {
        out.answer = *result;
        return out;
    }
    const json::object* rpc_error = nullptr;
    if (const json::value* e = object->if_contains("error")) rpc_error = e->if_object();
    if (rpc_error == nullptr) {
        out.answer =
            Error{errors::kUpstreamProtocolError,
                  label + " answered with neither a result nor an error object; the server is not following MCP"};
        return out;
    }
    std::string text = "(no message)";
    if (const json::value* m = rpc_error->if_contains("message"); m != nullptr && m->is_string())
        text = std::string(m->get_string());
    Error error{errors::kUpstreamError, label + " answered with an error: " + text};
    if (const json::value* code = rpc_error->if_contains("code"); code != nullptr && code->is_int64())
        error.details["rpc_code"] = code->get_int64();
    if (const json::value* data = rpc_error->if_contains("data")) error.details["rpc_data"] = *data;
    out.answer = std::move(error);
    return out;
}

std::string answer_text(const json::value& id, Result<json::value> result) {
    json::object answer{{"jsonrpc", "2.0"}, {"id", id}};
    if (result) {
        answer["result"] = std::move(result.value());
    } else {
        const bool unknown = result.error().is(errors::kUpstreamError);
        answer["error"] = json::object{{"code", unknown ? -32601 : -32603}, {"message", result.error().message}};
    }
    return json::serialize(answer);
}

}  // namespace skillhost::upstream
