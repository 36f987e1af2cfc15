#include "net/bounded_lookup.hpp"

#include "base/uninterruptible_threads.hpp"

#include <boost/asio/io_context.hpp>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>

namespace skillhost::http {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {
std::atomic<int> g_lookups_in_flight{0};
}  // namespace

int lookups_in_flight() {
    return g_lookups_in_flight.load();
}

LookupResult system_resolve(const std::string& host, const std::string& port) {
    LookupResult out;
    asio::io_context ioc;
    tcp::resolver resolver(ioc);
    boost::system::error_code ec;
    const auto results = resolver.resolve(host, port, ec);
    if (ec) {
        out.error = ec.message();
        return out;
    }
    for (const auto& entry : results) out.endpoints.push_back(entry.endpoint());
    if (out.endpoints.empty()) out.error = "no address found";
    return out;
}

LookupResult resolve_within(const std::string& host, const std::string& port, std::chrono::milliseconds limit,
                            const std::atomic<bool>* cancel, std::chrono::milliseconds poll,
                            const NameResolver& resolve) {
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(host, ec);
    if (!ec) {
        LookupResult literal;
        unsigned long number = 0;
        try {
            number = std::stoul(port);
        } catch (const std::exception&) {
            literal.error = "'" + port + "' is not a port number";
            return literal;
        }
        if (number > 65535) {
            literal.error = "'" + port + "' is not a port number";
            return literal;
        }
        literal.endpoints.emplace_back(address, static_cast<unsigned short>(number));
        return literal;
    }

    struct Shared {
        std::mutex mutex;
        std::condition_variable done_changed;
        bool done = false;
        LookupResult result;
    };
    // Claim a slot before starting the thread; the thread gives it back when the resolver returns,
    // however long after the caller stopped waiting.
    int running = g_lookups_in_flight.load();
    do {
        if (running >= kMaxLookupsInFlight) {
            LookupResult busy;
            busy.busy = true;
            busy.error = std::to_string(running) +
                         " name lookups are already waiting for the DNS server (the most at once); check that "
                         "the resolver in /etc/resolv.conf answers, or configure the model by IP address";
            return busy;
        }
    } while (!g_lookups_in_flight.compare_exchange_weak(running, running + 1));
    auto shared = std::make_shared<Shared>();
    try {
        // The resolver cannot be interrupted: the process owns the thread (joined once the
        // resolver returns, however long after the caller stopped waiting).
        uninterruptible_threads().start([shared, resolve, host, port] {
            LookupResult result;
            try {
                result = resolve(host, port);
            } catch (const std::exception& e) {
                result.error = e.what();
            }
            g_lookups_in_flight.fetch_sub(1);
            std::lock_guard lock(shared->mutex);
            shared->result = std::move(result);
            shared->done = true;
            shared->done_changed.notify_all();
        });
    } catch (const std::system_error& e) {
        g_lookups_in_flight.fetch_sub(1);
        LookupResult failed;
        failed.error = std::string("cannot start the name lookup: ") + e.what();
        return failed;
    }

    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::unique_lock lock(shared->mutex);
    while (!shared->done) {
        if (cancel && cancel->load()) {
            LookupResult cancelled;
            cancelled.cancelled = true;
            cancelled.error = "cancelled";
            return cancelled;
        }
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) {
            LookupResult late;
            late.timed_out = true;
            late.error = "the name lookup did not finish within " + std::to_string(limit.count()) + " ms";
            return late;
        }
        shared->done_changed.wait_until(lock, std::min(deadline, now + poll));
    }
    return shared->result;
}

}  // namespace skillhost::http
