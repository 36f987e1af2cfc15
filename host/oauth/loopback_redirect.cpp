#include "oauth/loopback_redirect.hpp"

#include "oauth/error_codes.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace skillhost::oauth {
namespace {

constexpr std::size_t kMaxRequestBytes = 8192;
constexpr std::string_view kCallbackPath = "/callback";

int milliseconds_left(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, 60000));
}

void answer(int fd, int status, std::string_view text) {
    const std::string body =
        "<!doctype html><meta charset=utf-8><title>skillhost</title><p>" + std::string(text) + "</p>\n";
    const std::string response =
        "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Not Found") +
        "\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n" + body;
    std::size_t sent = 0;
    while (sent < response.size()) {
        const ssize_t n = ::send(fd, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return;
        sent += static_cast<std::size_t>(n);
    }
}

// The request target of one request read from `fd` by the deadline ("" when none came whole).
std::string read_target(int fd, Clock::time_point deadline) {
    std::string request;
    char buffer[2048];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < kMaxRequestBytes) {
        pollfd ready{fd, POLLIN, 0};
        if (::poll(&ready, 1, std::min(milliseconds_left(deadline), 5000)) <= 0) return {};
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) return {};
        request.append(buffer, static_cast<std::size_t>(n));
    }
    const std::size_t line_end = request.find("\r\n");
    if (line_end == std::string::npos || !request.starts_with("GET ")) return {};
    const std::size_t target_end = request.find(' ', 4);
    if (target_end == std::string::npos || target_end > line_end) return {};
    return request.substr(4, target_end - 4);
}

}  // namespace

Result<LoopbackRedirect> LoopbackRedirect::open(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return Error{errors::kOauthFlowFailed,
                     std::string("cannot open a socket for the login's redirect: ") + std::strerror(errno)};
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    socklen_t length = sizeof address;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 8) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        const std::string reason = std::strerror(errno);
        ::close(fd);
        return Error{errors::kOauthFlowFailed,
                     "cannot listen on 127.0.0.1:" + std::to_string(port) + " for the login's redirect (" + reason +
                         "); free the port, or change oauth.redirect_port in the server's declaration"};
    }
    return LoopbackRedirect(fd, ntohs(address.sin_port));
}

LoopbackRedirect::LoopbackRedirect(LoopbackRedirect&& other) noexcept : fd_(other.fd_), port_(other.port_) {
    other.fd_ = -1;
}

LoopbackRedirect::~LoopbackRedirect() {
    if (fd_ >= 0) ::close(fd_);
}

std::string LoopbackRedirect::redirect_uri() const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(kCallbackPath);
}

Result<std::string> LoopbackRedirect::await(Clock::time_point deadline) {
    while (Clock::now() < deadline) {
        pollfd ready{fd_, POLLIN, 0};
        const int polled = ::poll(&ready, 1, milliseconds_left(deadline));
        if (polled < 0 && errno == EINTR) continue;
        if (polled <= 0) break;
        const int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) continue;
        const std::string target = read_target(client, deadline);
        const bool callback = target == kCallbackPath || target.starts_with(std::string(kCallbackPath) + "?");
        answer(client, callback ? 200 : 404,
               callback ? "skillhost has the answer of the authorization; you can close this window."
                        : "Not the authorization's redirect.");
        ::close(client);
        if (callback) return "http://127.0.0.1:" + std::to_string(port_) + target;
    }
    return Error{errors::kOauthAuthorizationRequired,
                 "the authorization was not completed in time (the browser did not come back to " + redirect_uri() +
                     "); run the login again and open the URL it prints"};
}

UserAgent LoopbackRedirect::user_agent(std::function<void(const std::string& url)> show) {
    return [this, show = std::move(show)](const std::string& url, Clock::time_point deadline) -> Result<std::string> {
        show(url);
        return await(deadline);
    };
}

}  // namespace skillhost::oauth
