#include "round_robin_proxy.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace skillhost::testing {
namespace {

sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

bool write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

RoundRobinProxy::RoundRobinProxy(std::vector<std::uint16_t> backends) : backends_(std::move(backends)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address = loopback(0);
    socklen_t length = sizeof address;
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_, 64) != 0 || ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
        ::pipe2(stop_pipe_, O_CLOEXEC) != 0) {
        throw std::runtime_error("the test proxy cannot listen on loopback");
    }
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
}

RoundRobinProxy::~RoundRobinProxy() {
    (void)!::write(stop_pipe_[1], "x", 1);
    acceptor_.join();
    for (auto& relay : relays_) relay.join();
    ::close(listener_);
    ::close(stop_pipe_[0]);
    ::close(stop_pipe_[1]);
}

std::vector<std::size_t> RoundRobinProxy::routed() const {
    std::lock_guard lock(mutex_);
    return routed_;
}

std::size_t RoundRobinProxy::next_backend() const {
    std::lock_guard lock(mutex_);
    return routed_.size() % backends_.size();
}

void RoundRobinProxy::accept_loop() {
    while (true) {
        pollfd fds[2] = {{listener_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) continue;
        if (fds[1].revents != 0) return;
        const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) continue;
        std::size_t backend = 0;
        {
            std::lock_guard lock(mutex_);
            backend = routed_.size() % backends_.size();
            routed_.push_back(backend);
        }
        const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address = loopback(backends_[backend]);
        if (server < 0 || ::connect(server, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
            ::close(client);
            if (server >= 0) ::close(server);
            continue;
        }
        relays_.emplace_back([this, client, server] { relay(client, server); });
    }
}

// Copies both ways until either side closes (or the proxy stops), then closes both.
void RoundRobinProxy::relay(int client, int server) {
    char buffer[16384];
    while (true) {
        pollfd fds[3] = {{client, POLLIN, 0}, {server, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
        if (::poll(fds, 3, -1) < 0) continue;
        if (fds[2].revents != 0) break;
        bool open = true;
        for (int i = 0; i < 2 && open; ++i) {
            if (fds[i].revents == 0) continue;
            const ssize_t n = ::recv(fds[i].fd, buffer, sizeof buffer, 0);
            open = n > 0 && write_all(i == 0 ? server : client, buffer, static_cast<std::size_t>(n));
        }
        if (!open) break;
    }
    ::close(client);
    ::close(server);
}

}  // namespace skillhost::testing
