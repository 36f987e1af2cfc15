// Host name resolution with a deadline. getaddrinfo cannot be interrupted, and asio's resolver
// only cancels a lookup that has not started yet, so a slow or silent DNS server would hold a
// request far past its connect timeout. The lookup therefore runs on a thread of its own: the
// caller stops waiting at the deadline (or when cancelled) and the thread finishes by itself
// later, touching only the state it shares by ownership. A DNS server that stops answering would
// leave one such thread per request behind, so at most kMaxLookupsInFlight run at once in the
// process; past that a lookup fails at once (`busy`) instead of starting another thread.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace skillhost::http {

struct LookupResult {
    std::vector<boost::asio::ip::tcp::endpoint> endpoints;  // empty on failure
    std::string error;                                      // why the lookup failed
    bool timed_out = false;
    bool cancelled = false;
    bool busy = false;  // refused: kMaxLookupsInFlight lookups were already running
    bool ok() const { return !endpoints.empty(); }
};

// Resolves host:port; blocking. May be replaced in tests by a resolver that never answers.
using NameResolver = std::function<LookupResult(const std::string& host, const std::string& port)>;
LookupResult system_resolve(const std::string& host, const std::string& port);

// Lookup threads alive at once in this process (waited for or abandoned at their deadline).
inline constexpr int kMaxLookupsInFlight = 16;
int lookups_in_flight();

// An IP address literal resolves at once; anything else through `resolve` on its own thread,
// waited for at most `limit` and until *cancel turns true (polled every `poll`).
LookupResult resolve_within(const std::string& host, const std::string& port, std::chrono::milliseconds limit,
                            const std::atomic<bool>* cancel, std::chrono::milliseconds poll,
                            const NameResolver& resolve = system_resolve);

}  // namespace skillhost::http
