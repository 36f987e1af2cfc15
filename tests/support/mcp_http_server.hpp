// A scripted MCP server on the Streamable HTTP transport, on loopback, for the tests of skillhost's
// HTTP upstream: it issues session ids, answers with JSON bodies or event streams, and misbehaves on
// demand (expires the session once, hangs, sends an event over any sane limit, breaks a stream in
// the middle). Tools: echo (JSON), stream_echo (an event stream with a notification and a ping
// before the answer), roots (asks the client roots/list on the stream and answers with its answer),
// hang (never answers), huge (one 2 MiB event), broken (half an event, then the connection closes),
// resumable (an event with an id and retry: 100, then the stream ends; the answer comes on the GET
// that resumes it with Last-Event-ID), batch (a JSON array: a notification and the answer),
// huge_json (a 2 MiB JSON body), accepted (202 and no answer), garbled (an event that is not JSON
// and an answer to no request before the answer).
#pragma once

#include "support/loopback_server.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace skillhost::testing {

class McpHttpServer {
public:
    McpHttpServer();

    std::string url() const { return server_.url() + "/mcp"; }
    std::vector<llm::testing::RecordedRequest> requests() const { return server_.requests(); }

    // The sessions the server knows end: the next request with one gets 404.
    void expire_sessions();
    // How many tools/call requests arrived, and the bodies of every POST (JSON-RPC) in order.
    int tool_calls() const { return tool_calls_.load(); }
    std::vector<std::string> posted_methods() const;
    int sessions_started() const { return sessions_started_.load(); }
    std::vector<std::string> deleted_sessions() const;
    // Waits up to `limit` for a POSTed notifications/cancelled.
    bool saw_cancel(std::chrono::milliseconds limit) const;

private:
    void handle(const llm::testing::RecordedRequest& request, llm::testing::Connection& connection);
    void post(const llm::testing::RecordedRequest& request, llm::testing::Connection& connection);
    void call_tool(const boost::json::object& message, llm::testing::Connection& connection);

    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;
    std::set<std::string> sessions_;
    std::vector<std::string> methods_;
    std::vector<std::string> deleted_;
    std::string roots_answer_;       // the client's answer to roots/list, once it came
    std::string pending_resume_id_;  // the id of the request the resumable tool answers on GET
    std::atomic<int> tool_calls_{0};
    std::atomic<int> sessions_started_{0};
    llm::testing::LoopbackServer server_;
};

}  // namespace skillhost::testing
