#include "http_test_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <poll.h>

#include <algorithm>
#include <stdexcept>

namespace skillhost::testing {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

http::request<http::string_body> make_request(const RequestSpec& spec) {
    http::request<http::string_body> req{http::string_to_verb(spec.method), spec.target, 11};
    req.set(http::field::host, "127.0.0.1");
    if (!spec.token.empty()) req.set(http::field::authorization, "Bearer " + spec.token);
    if (!spec.body.empty()) req.set(http::field::content_type, "application/json");
    for (const auto& [k, v] : spec.headers) req.set(k, v);
    req.body() = spec.body;
    req.prepare_payload();
    return req;
}

}  // namespace

boost::json::value HttpResult::json() const {
    return boost::json::parse(body);
}

std::string HttpResult::error_code() const {
    boost::system::error_code ec;
    auto v = boost::json::parse(body, ec);
    if (ec || !v.is_object()) return "";
    const auto* e = v.as_object().if_contains("error");
    if (!e || !e->is_object()) return "";
    const auto* c = e->as_object().if_contains("code");
    return c && c->is_string() ? std::string(c->as_string()) : "";
}

HttpResult http_request(std::uint16_t port, const RequestSpec& spec, std::chrono::milliseconds timeout) {
    net::io_context ioc;
    beast::tcp_stream stream(ioc);
    stream.expires_after(timeout);
    stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    auto req = make_request(spec);
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 << 20);
    http::read(stream, buffer, parser);
    HttpResult out;
    const auto& res = parser.get();
    out.status = res.result_int();
    for (const auto& f : res) out.headers[lower(std::string(f.name_string()))] = std::string(f.value());
    out.body = res.body();
    beast::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    return out;
}

boost::json::value SseEvent::json() const {
    return boost::json::parse(data);
}

SseStream::SseStream(std::uint16_t port, const RequestSpec& spec) {
    socket_.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    RequestSpec s = spec;
    s.headers.emplace_back("Accept", "text/event-stream");
    auto req = make_request(s);
    http::write(socket_, req);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::size_t end = std::string::npos;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
        if (!fill(deadline)) throw std::runtime_error("no response head from the server");
    }
    const std::string head = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    std::size_t line_end = head.find("\r\n");
    const std::string status_line = head.substr(0, line_end);
    status_ = std::stoi(status_line.substr(9, 3));
    std::size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
        auto next = head.find("\r\n", pos);
        std::string line = head.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        auto colon = line.find(':');
        if (colon != std::string::npos) {
            std::string value = line.substr(colon + 1);
            while (!value.empty() && value.front() == ' ') value.erase(0, 1);
            headers_[lower(line.substr(0, colon))] = value;
        }
        if (next == std::string::npos) break;
        pos = next + 2;
    }
}

SseStream::~SseStream() {
    boost::system::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
}

bool SseStream::fill(std::chrono::steady_clock::time_point deadline) {
    if (ended_) return false;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return false;
    pollfd p{socket_.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) return false;
    char chunk[4096];
    boost::system::error_code ec;
    const std::size_t n = socket_.read_some(net::buffer(chunk), ec);
    if (ec || n == 0) {
        ended_ = true;
        return false;
    }
    buffer_.append(chunk, n);
    return true;
}

std::optional<SseEvent> SseStream::next(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        const auto end = buffer_.find("\n\n");
        if (end != std::string::npos) {
            const std::string block = buffer_.substr(0, end);
            buffer_.erase(0, end + 2);
            SseEvent event;
            bool any = false;
            std::size_t pos = 0;
            while (pos <= block.size()) {
                auto nl = block.find('\n', pos);
                std::string line = block.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
                if (line.rfind("event: ", 0) == 0) {
                    event.name = line.substr(7);
                    any = true;
                } else if (line.rfind("id: ", 0) == 0) {
                    last_id_ = line.substr(4);
                } else if (line.rfind("retry: ", 0) == 0) {
                    retry_ = line.substr(7);
                } else if (line.rfind("data: ", 0) == 0) {
                    if (!event.data.empty()) event.data += "\n";
                    event.data += line.substr(6);
                    any = true;
                }
                if (nl == std::string::npos) break;
                pos = nl + 1;
            }
            // Comments (heartbeats) and events without data (an MCP stream's priming event, which
            // carries only an id and retry) are skipped, as MCP clients skip them.
            if (any && !event.data.empty()) return event;
            continue;
        }
        if (!fill(deadline)) return std::nullopt;
    }
}

std::optional<SseEvent> SseStream::next_named(const std::string& name, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        auto event = next(left);
        if (!event) return std::nullopt;
        if (event->name == name) return event;
    }
}

}  // namespace skillhost::testing
