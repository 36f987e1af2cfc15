// The floor of a stdio MCP server that reads its messages as JSON: native_floor.c --audit's appends,
// plus what any server that does not answer blindly must do with a JSON library, and nothing
// else: each line parsed (Boost.JSON, as skillhost uses), its method and id read, and for a
// tools/call the arguments taken from the request, echoed back in the result (text and
// structuredContent) and the answer serialised. No schema, no policy, no skill, no threads.
// Beside native_floor.c in bench/mcp/run.sh it shows how much of issue 36's budget (1.5x the
// native floor's CPU per call in process) parsing and writing JSON alone takes.
// Build: c++ -O2 -std=c++20 -o json_floor bench/mcp/json_floor.cpp -lboost_json
// Run:   json_floor [AUDIT_FILE]   (default /tmp/json_floor.jsonl, truncated)
#include <boost/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace {

namespace json = boost::json;

int audit_fd = -1;

void write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        const ssize_t n = ::write(fd, text.data(), text.size());
        if (n <= 0) return;
        text.remove_prefix(static_cast<std::size_t>(n));
    }
}

// One audit record, one append (the size of skillhost's records), as native_floor.c --audit writes.
void audit(std::string_view kind, const json::value& id) {
    std::string record = "{\"kind\":\"";
    record += kind;
    record += "\",\"call\":";
    record += json::serialize(id);
    record +=
        ",\"ts\":\"2026-11-30T16:00:00.000000Z\",\"user\":\"owner\",\"skill\":\"echo\",\"plugin\":\"echo\","
        "\"trust\":\"supervised_auto\",\"rule\":\"default\",\"session\":\"mcp-0000000000000001\","
        "\"args_sha256\":\"0000000000000000000000000000000000000000000000000000000000000000\","
        "\"duration_us\":12,\"outcome\":\"ok\",\"result_bytes\":120,\"instance\":\"host-1\"}\n";
    write_all(audit_fd, record);
}

json::value result_for(std::string_view method, const json::object& params) {
    if (method == "initialize") {
        return json::parse(
            R"({"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"json-floor","version":"1.0.0"}})");
    }
    if (method == "tools/list") {
        return json::parse(
            R"({"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]})");
    }
    if (method == "tools/call") {
        json::object echo;
        const json::value* arguments = params.if_contains("arguments");
        const json::value* text =
            arguments && arguments->is_object() ? arguments->as_object().if_contains("text") : nullptr;
        echo["text"] = text ? *text : json::value("");
        echo["repeat"] = 1;
        echo["mode"] = "plain";
        json::object structured;
        structured["echo"] = std::move(echo);
        json::object content;
        content["type"] = "text";
        content["text"] = json::serialize(structured);
        json::object result;
        result["content"] = json::array{std::move(content)};
        result["structuredContent"] = std::move(structured);
        result["isError"] = false;
        return result;
    }
    return json::object{};
}

void answer(std::string_view line) {
    json::error_code ec;
    json::value message = json::parse(line, ec);
    if (ec || !message.is_object()) return;
    const json::object& request = message.as_object();
    const json::value* id = request.if_contains("id");
    if (!id) return;  // a notification
    const json::value* method = request.if_contains("method");
    const json::value* params = request.if_contains("params");
    static const json::object no_params;
    const std::string_view name = method && method->is_string() ? std::string_view(method->as_string()) : "";
    const bool is_call = name == "tools/call";
    if (is_call) audit("decision", *id);
    json::object reply;
    reply["jsonrpc"] = "2.0";
    reply["id"] = *id;
    reply["result"] = result_for(name, params && params->is_object() ? params->as_object() : no_params);
    std::string out = json::serialize(reply);
    out += '\n';
    if (is_call) audit("call", *id);
    write_all(1, out);
}

}  // namespace

int main(int argc, char** argv) {
    const char* audit_path = argc > 1 ? argv[1] : "/tmp/json_floor.jsonl";
    audit_fd = ::open(audit_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (audit_fd < 0) {
        std::perror(audit_path);
        return 2;
    }
    static char buffer[1 << 20];
    std::string pending;
    for (;;) {
        const ssize_t n = ::read(0, buffer, sizeof buffer);
        if (n <= 0) return 0;
        pending.append(buffer, static_cast<std::size_t>(n));
        std::size_t start = 0;
        for (std::size_t newline; (newline = pending.find('\n', start)) != std::string::npos; start = newline + 1)
            answer(std::string_view(pending).substr(start, newline - start));
        pending.erase(0, start);
        if (pending.size() > (64u << 20)) pending.clear();  // a line without end: dropped
    }
}
