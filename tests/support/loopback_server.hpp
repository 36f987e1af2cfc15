// A tiny HTTP/1.1 server on 127.0.0.1 for the LLM layer's tests: each connection is handed to a
// test-provided handler that inspects the request and writes whatever response (or silence) the
// test needs — Ollama's and OpenAI's shapes, errors, slow or stalled streams.
#pragma once

#include <boost/json.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace skillhost::llm::testing {

struct RecordedRequest {
    std::string method;
    std::string target;
    std::map<std::string, std::string> headers;  // names in lower case
    std::string body;

    boost::json::object json() const { return boost::json::parse(body).as_object(); }
    std::string header(const std::string& name) const {
        const auto it = headers.find(name);
        return it == headers.end() ? std::string() : it->second;
    }
};

class Connection {
public:
    Connection(int fd, const std::atomic<bool>& stopping) : fd_(fd), stopping_(stopping) {}
    // Writes all bytes; false when the client has gone away.
    bool write(std::string_view bytes);
    // A complete response with Content-Length.
    bool respond(int status, std::string_view body, std::string_view content_type = "application/json",
                 const std::vector<std::pair<std::string, std::string>>& extra_headers = {});
    // Chunked streaming: start, then any number of chunks, then end.
    bool start_chunked(int status = 200, std::string_view content_type = "application/x-ndjson");
    bool chunk(std::string_view data);
    bool end_chunked();
    // Waits until the client closes the connection, the server stops, or `limit` passes.
    // Returns true when the client closed it (what a cancelled or timed-out request does).
    bool wait_for_client_close(std::chrono::milliseconds limit);

private:
    int fd_;
    const std::atomic<bool>& stopping_;
};

using Handler = std::function<void(const RecordedRequest&, Connection&)>;

class LoopbackServer {
public:
    explicit LoopbackServer(Handler handler);
    ~LoopbackServer();
    LoopbackServer(const LoopbackServer&) = delete;
    LoopbackServer& operator=(const LoopbackServer&) = delete;

    int port() const { return port_; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
    std::vector<RecordedRequest> requests() const;

private:
    void accept_loop();
    void serve(int fd);

    Handler handler_;
    int listen_fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stopping_{false};
    mutable std::mutex mutex_;
    std::vector<RecordedRequest> requests_;
    std::vector<std::thread> workers_;
    std::thread acceptor_;
};

// A port on 127.0.0.1 that nothing listens on (bound, then closed).
int closed_port();

}  // namespace skillhost::llm::testing
