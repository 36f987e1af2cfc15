// A bounded set of connections to one PostgreSQL database, so concurrent requests of a daemon do
// not queue behind one connection. Connections are opened on demand up to `max_connections` and
// kept; each re-opens by itself after the server comes back (PgConnection). When every connection
// is busy a caller waits up to `wait` for one, then gets DATABASE_UNAVAILABLE (HTTP 503, retry):
// never an unbounded queue, never an unbounded number of connections.
#pragma once

#include "base/error.hpp"
#include "db/postgres_connection.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace skillhost::db {

struct PgPoolOptions {
    std::size_t max_connections = 4;
    std::chrono::milliseconds wait{5000};
};

class PgPool {
public:
    // `first` is the pool's first connection (already open, schema migrated); more are opened
    // with `url` when all are busy.
    PgPool(std::string url, PgConnection first, PgPoolOptions options = {});
    PgPool(const PgPool&) = delete;
    PgPool& operator=(const PgPool&) = delete;

    // One connection for the lease's lifetime, then back to the pool.
    class Lease {
    public:
        Lease(Lease&& other) noexcept
            : pool_(std::exchange(other.pool_, nullptr)), connection_(std::move(other.connection_)) {}
        Lease& operator=(Lease&&) = delete;
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        ~Lease();
        PgConnection& operator*() { return *connection_; }
        PgConnection* operator->() { return connection_.get(); }

    private:
        friend class PgPool;
        Lease(PgPool* pool, std::unique_ptr<PgConnection> connection)
            : pool_(pool), connection_(std::move(connection)) {}
        PgPool* pool_;
        std::unique_ptr<PgConnection> connection_;
    };

    // An idle connection, a new one while fewer than max_connections are open, or the first one
    // returned within `wait`. DATABASE_UNAVAILABLE when none frees up in time.
    Result<Lease> acquire();

    const std::string& target() const { return target_; }
    // Connections open now (idle and leased).
    std::size_t size() const;

private:
    void give_back(std::unique_ptr<PgConnection> connection);

    const std::string url_;
    const std::string target_;
    PgPoolOptions options_;
    mutable std::mutex mutex_;
    std::condition_variable returned_;
    std::vector<std::unique_ptr<PgConnection>> idle_;
    std::size_t open_ = 0;  // idle + leased + being opened
    // Opening another connection failed (the server is down or refuses more): not tried again
    // before this time, so requests use the connections there are instead of waiting on connects.
    std::chrono::steady_clock::time_point no_new_connections_until_{};
};

}  // namespace skillhost::db
