#include "support/mcp_http_server.hpp"

#include <boost/json.hpp>

#include <thread>

namespace skillhost::testing {
namespace json = boost::json;
using llm::testing::Connection;
using llm::testing::RecordedRequest;

namespace {

json::array tool_list() {
    json::array tools;
    for (const char* name : {"echo", "stream_echo", "roots", "hang", "huge", "broken", "resumable", "batch",
                             "huge_json", "accepted", "garbled"}) {
        json::object schema{{"type", "object"},
                            {"properties", json::object{{"message", json::object{{"type", "string"}}}}}};
        tools.push_back(json::object{{"name", name},
                                     {"description", std::string("The ") + name + " tool."},
                                     {"inputSchema", std::move(schema)}});
    }
    return tools;
}

std::string answer(const json::value& id, json::value result) {
    return json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

json::object text_result(const std::string& text) {
    return json::object{{"content", json::array{json::object{{"type", "text"}, {"text", text}}}},
                        {"structuredContent", json::object{{"message", text}}}};
}

std::string event(const std::string& data, const std::string& id = "") {
    std::string out;
    if (!id.empty()) out += "id: " + id + "\n";
    return out + "data: " + data + "\n\n";
}

}  // namespace

McpHttpServer::McpHttpServer()
    : server_([this](const RecordedRequest& request, Connection& connection) { handle(request, connection); }) {}

void McpHttpServer::expire_sessions() {
    std::lock_guard lock(mutex_);
    sessions_.clear();
}

std::vector<std::string> McpHttpServer::posted_methods() const {
    std::lock_guard lock(mutex_);
    return methods_;
}

std::vector<std::string> McpHttpServer::deleted_sessions() const {
    std::lock_guard lock(mutex_);
    return deleted_;
}

bool McpHttpServer::saw_cancel(std::chrono::milliseconds limit) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] {
        for (const auto& method : methods_)
            if (method == "notifications/cancelled") return true;
        return false;
    });
}

void McpHttpServer::handle(const RecordedRequest& request, Connection& connection) {
    const std::string session = request.header("mcp-session-id");
    if (request.method == "DELETE") {
        std::lock_guard lock(mutex_);
        deleted_.push_back(session);
        sessions_.erase(session);
        connection.respond(200, "");
        return;
    }
    if (request.method == "GET") {
        if (request.header("last-event-id") != "resume-1") {
            connection.respond(405, "");
            return;
        }
        std::string id;
        {
            std::lock_guard lock(mutex_);
            id = pending_resume_id_;
        }
        connection.start_chunked(200, "text/event-stream");
        connection.chunk(event(answer(json::parse(id), text_result("resumed")), "resume-2"));
        connection.wait_for_client_close(std::chrono::seconds(5));
        return;
    }
    post(request, connection);
}

void McpHttpServer::post(const RecordedRequest& request, Connection& connection) {
    json::object message = request.json();
    const std::string method = message.contains("method") ? std::string(message.at("method").as_string()) : "";
    const std::string session = request.header("mcp-session-id");
    {
        std::lock_guard lock(mutex_);
        methods_.push_back(method.empty() ? "(answer)" : method);
        changed_.notify_all();
        if (method != "initialize" && !sessions_.contains(session)) {
            connection.respond(session.empty() ? 400 : 404, R"({"error":"no such session"})");
            return;
        }
        if (method.empty()) {  // the client's answer to one of the server's requests
            roots_answer_ = json::serialize(message.at("result"));
            changed_.notify_all();
            connection.respond(202, "");
            return;
        }
    }
    if (!message.contains("id")) {
        connection.respond(202, "");
        return;
    }
    const json::value& id = message.at("id");
    if (method == "initialize") {
        const std::string issued = "session-" + std::to_string(++sessions_started_);
        {
            std::lock_guard lock(mutex_);
            sessions_.insert(issued);
        }
        json::object result{{"protocolVersion", "2025-06-18"},
                            {"capabilities", json::object{{"tools", json::object{}}}},
                            {"serverInfo", json::object{{"name", "http-fixture"}, {"version", "1.0.0"}}}};
        connection.respond(200, answer(id, std::move(result)), "application/json", {{"Mcp-Session-Id", issued}});
        return;
    }
    if (method == "tools/list") {
        connection.respond(200, answer(id, json::object{{"tools", tool_list()}}));
        return;
    }
    if (method == "tools/call") return call_tool(message, connection);
    connection.respond(200, answer(id, json::object{}));
}

void McpHttpServer::call_tool(const json::object& message, Connection& connection) {
    ++tool_calls_;
    const json::value& id = message.at("id");
    const json::object& params = message.at("params").as_object();
    const std::string tool(params.at("name").as_string());
    std::string text;
    if (const auto* args = params.at("arguments").if_object(); args != nullptr && args->contains("message"))
        text = std::string(args->at("message").as_string());
    if (tool == "echo") {
        connection.respond(200, answer(id, text_result(text)));
    } else if (tool == "stream_echo") {
        connection.start_chunked(200, "text/event-stream");
        connection.chunk(": a comment, as keep-alives are\n\n");
        connection.chunk(
            event(R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}})"));
        connection.chunk(event(R"({"jsonrpc":"2.0","id":"p1","method":"ping"})"));
        const std::string last = event(answer(id, text_result(text)));
        connection.chunk(last.substr(0, 10));  // an event split across reads
        connection.chunk(last.substr(10));
        connection.end_chunked();
    } else if (tool == "roots") {
        connection.start_chunked(200, "text/event-stream");
        connection.chunk(event(R"({"jsonrpc":"2.0","id":"r1","method":"roots/list"})"));
        std::unique_lock lock(mutex_);
        changed_.wait_for(lock, std::chrono::seconds(5), [&] { return !roots_answer_.empty(); });
        const std::string roots = roots_answer_;
        lock.unlock();
        connection.chunk(event(answer(id, text_result(roots))));
        connection.end_chunked();
    } else if (tool == "hang") {
        connection.start_chunked(200, "text/event-stream");
        connection.wait_for_client_close(std::chrono::seconds(30));
    } else if (tool == "huge") {
        connection.start_chunked(200, "text/event-stream");
        const std::string big(2u << 20, 'x');
        connection.chunk(event(answer(id, text_result(big))));
        connection.end_chunked();
    } else if (tool == "broken") {
        connection.start_chunked(200, "text/event-stream");
        connection.chunk("data: {\"jsonrpc\":\"2.0\",\"id\":");
        // The server goes away mid-event: the connection closes without the end of the stream.
    } else if (tool == "batch") {
        connection.respond(200, "[" + std::string(R"({"jsonrpc":"2.0","method":"notifications/message","params":{}})") +
                                    "," + answer(id, text_result("batched")) + "]");
    } else if (tool == "huge_json") {
        connection.respond(200, answer(id, text_result(std::string(2u << 20, 'y'))));
    } else if (tool == "accepted") {
        connection.respond(202, "");
    } else if (tool == "garbled") {
        connection.start_chunked(200, "text/event-stream");
        connection.chunk(event("this is not JSON"));
        connection.chunk(event(R"({"jsonrpc":"2.0","id":999999,"result":{}})"));
        connection.chunk(event(answer(id, text_result("after the noise"))));
        connection.end_chunked();
    } else if (tool == "resumable") {
        {
            std::lock_guard lock(mutex_);
            pending_resume_id_ = json::serialize(id);
        }
        connection.start_chunked(200, "text/event-stream");
        connection.chunk("id: resume-1\nretry: 100\ndata: \n\n");
        connection.end_chunked();
    } else {
        connection.respond(200, R"({"jsonrpc":"2.0","id":)" + json::serialize(id) +
                                    R"(,"error":{"code":-32602,"message":"no such tool"}})");
    }
}

}  // namespace skillhost::testing
