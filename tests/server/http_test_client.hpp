// A plain HTTP/1.1 client for the daemon tests (Beast, blocking): one request per connection, or
// an event stream read event by event with deadlines.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skillhost::testing {

struct HttpResult {
    int status = 0;
    std::map<std::string, std::string> headers;  // lower-case names
    std::string body;
    boost::json::value json() const;  // parses body; throws when it is not JSON
    // error.code of a JSON error body, or "" when there is none.
    std::string error_code() const;
};

struct RequestSpec {
    std::string method = "GET";
    std::string target;
    std::string body;
    std::string token;  // sent as Authorization: Bearer TOKEN when not empty
    std::vector<std::pair<std::string, std::string>> headers;
};

HttpResult http_request(std::uint16_t port, const RequestSpec& spec,
                        std::chrono::milliseconds timeout = std::chrono::seconds(30));

struct SseEvent {
    std::string name;
    std::string data;
    boost::json::value json() const;
};

// An open event stream: reads the response head at construction, then events one by one.
class SseStream {
public:
    SseStream(std::uint16_t port, const RequestSpec& spec);
    ~SseStream();
    int status() const { return status_; }
    const std::map<std::string, std::string>& headers() const { return headers_; }
    // The next event, or nullopt at the end of the stream or when `timeout` passes.
    std::optional<SseEvent> next(std::chrono::milliseconds timeout = std::chrono::seconds(20));
    // Reads events until one is named `name`; nullopt at the end or timeout.
    std::optional<SseEvent> next_named(const std::string& name,
                                       std::chrono::milliseconds timeout = std::chrono::seconds(20));
    bool ended() const { return ended_; }
    // The id field of the last event read ("" before one), and the last retry field.
    const std::string& last_id() const { return last_id_; }
    const std::string& retry() const { return retry_; }
    std::string body_text() const { return buffer_; }  // unread text (e.g. a non-stream error body)

private:
    bool fill(std::chrono::steady_clock::time_point deadline);
    boost::asio::io_context ioc_;
    boost::asio::ip::tcp::socket socket_{ioc_};
    std::string buffer_;
    int status_ = 0;
    std::map<std::string, std::string> headers_;
    bool ended_ = false;
    std::string last_id_;
    std::string retry_;
};

}  // namespace skillhost::testing
