// A load balancer as plain as they come, for the tests of several daemons: a loopback TCP
// forwarder that sends each new connection to the next backend in turn (no sticky sessions), and
// to the one after it when a backend refuses the connection (as a balancer's health check would).
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
    // Listens on a free loopback port at once. Throws when it cannot.
    explicit RoundRobinProxy(std::vector<std::uint16_t> backends);
    ~RoundRobinProxy();  // closes the listener and every forwarded connection
    RoundRobinProxy(const RoundRobinProxy&) = delete;
    RoundRobinProxy& operator=(const RoundRobinProxy&) = delete;

    std::uint16_t port() const { return port_; }
    // How many connections went to backends[i].
    std::size_t forwarded_to(std::size_t i) const;
    // The backend index of every connection forwarded so far, in the order they were connected.
    std::vector<std::size_t> routed() const;
    // The index the next accepted connection tries first.
    std::size_t next_backend() const { return next_.load() % backends_.size(); }

private:
    void accept_loop();
    void forward(int client, std::size_t first_choice);

    std::vector<std::uint16_t> backends_;
    std::vector<std::atomic<std::size_t>> counts_;
    int listener_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<std::size_t> next_{0};
    mutable std::mutex routed_mutex_;
    std::vector<std::size_t> routed_;
    std::mutex threads_mutex_;
    std::vector<std::thread> connections_;
    std::thread acceptor_;  // last: started after everything it uses
};

}  // namespace skillhost::testing
