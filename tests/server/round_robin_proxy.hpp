// A plain round-robin TCP load balancer for the multi-instance tests: each accepted connection goes
// to the next backend in turn, bytes copied both ways, no stickiness. It records where each
// connection went, so a test knows which instance served which request.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace skillhost::testing {

class RoundRobinProxy {
public:
    // Listens on a free loopback port. Throws when it cannot.
    explicit RoundRobinProxy(std::vector<std::uint16_t> backends);
    ~RoundRobinProxy();
    RoundRobinProxy(const RoundRobinProxy&) = delete;
    RoundRobinProxy& operator=(const RoundRobinProxy&) = delete;

    std::uint16_t port() const { return port_; }
    // The backend index of every connection accepted so far, in order.
    std::vector<std::size_t> routed() const;
    // The index the next connection goes to.
    std::size_t next_backend() const;

private:
    void accept_loop();
    void relay(int client, int server);

    const std::vector<std::uint16_t> backends_;
    int listener_ = -1;
    int stop_pipe_[2] = {-1, -1};
    std::uint16_t port_ = 0;
    mutable std::mutex mutex_;
    std::vector<std::size_t> routed_;
    std::vector<std::thread> relays_;
    std::thread acceptor_;
};

}  // namespace skillhost::testing
