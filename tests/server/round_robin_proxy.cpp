#include "round_robin_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace skillhost::testing {
namespace {

sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

int connect_to(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    const sockaddr_in address = loopback(port);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

RoundRobinProxy::RoundRobinProxy(std::vector<std::uint16_t> backends)
    : backends_(std::move(backends)), counts_(backends_.size()) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_in address = loopback(0);
    socklen_t length = sizeof address;
    sockaddr_in bound{};
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_, 64) != 0 || ::getsockname(listener_, reinterpret_cast<sockaddr*>(&bound), &length) != 0)
        throw std::runtime_error("the proxy cannot listen on loopback");
    port_ = ntohs(bound.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
}

RoundRobinProxy::~RoundRobinProxy() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);  // wakes accept()
    acceptor_.join();
    ::close(listener_);
    std::lock_guard lock(threads_mutex_);
    for (auto& thread : connections_) thread.join();
}

std::size_t RoundRobinProxy::forwarded_to(std::size_t i) const {
    return counts_.at(i).load();
}

std::vector<std::size_t> RoundRobinProxy::routed() const {
    std::lock_guard lock(routed_mutex_);
    return routed_;
}

void RoundRobinProxy::accept_loop() {
    while (!stopping_) {
        const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) {
            if (stopping_) return;
            continue;
        }
        const std::size_t choice = next_.fetch_add(1) % backends_.size();
        std::lock_guard lock(threads_mutex_);
        connections_.emplace_back([this, client, choice] { forward(client, choice); });
    }
}

void RoundRobinProxy::forward(int client, std::size_t first_choice) {
    int backend = -1;
    for (std::size_t tried = 0; tried < backends_.size() && backend < 0; ++tried) {
        const std::size_t i = (first_choice + tried) % backends_.size();
        backend = connect_to(backends_[i]);
        if (backend >= 0) {
            ++counts_[i];
            std::lock_guard lock(routed_mutex_);
            routed_.push_back(i);
        }
    }
    if (backend < 0) {
        ::close(client);
        return;
    }
    // Bytes flow both ways until both sides finished sending; a half-close is passed on.
    const int ends[2] = {client, backend};
    pollfd fds[2] = {{client, POLLIN, 0}, {backend, POLLIN, 0}};
    bool open[2] = {true, true};
    char buffer[16384];
    while ((open[0] || open[1]) && !stopping_) {
        if (::poll(fds, 2, 100) < 0) break;
        for (int side = 0; side < 2; ++side) {
            if (!open[side] || !(fds[side].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = ::read(fds[side].fd, buffer, sizeof buffer);
            const int other = ends[1 - side];
            if (n <= 0) {
                open[side] = false;
                fds[side].fd = -1;  // poll ignores it from now on
                ::shutdown(other, SHUT_WR);
                continue;
            }
            for (ssize_t sent = 0; sent < n;) {
                const ssize_t w = ::send(other, buffer + sent, static_cast<std::size_t>(n - sent), MSG_NOSIGNAL);
                if (w <= 0) {
                    open[0] = open[1] = false;
                    break;
                }
                sent += w;
            }
        }
    }
    ::close(client);
    ::close(backend);
}

}  // namespace skillhost::testing
