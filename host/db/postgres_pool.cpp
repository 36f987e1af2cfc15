#include "db/postgres_pool.hpp"
#include "db/error_codes.hpp"

#include <utility>

namespace skillhost::db {
namespace {

// A failed connect is not retried for this long (the connections already open keep serving).
constexpr auto failed_connect_pause = std::chrono::seconds(5);
// A pooled connection gives up connecting sooner than a lone one: a request is waiting on it.
constexpr auto extra_connect_timeout = std::chrono::seconds(2);

}  // namespace

PgPool::PgPool(std::string url, PgConnection first, PgPoolOptions options)
    : url_(std::move(url)), target_(first.target()), options_(options) {
    if (options_.max_connections == 0) options_.max_connections = 1;
    idle_.push_back(std::make_unique<PgConnection>(std::move(first)));
    open_ = 1;
}

PgPool::Lease::~Lease() {
    if (pool_ != nullptr && connection_) pool_->give_back(std::move(connection_));
}

void PgPool::give_back(std::unique_ptr<PgConnection> connection) {
    {
        std::lock_guard lock(mutex_);
        idle_.push_back(std::move(connection));
    }
    returned_.notify_one();
}

std::size_t PgPool::size() const {
    std::lock_guard lock(mutex_);
    return open_;
}

Result<PgPool::Lease> PgPool::acquire() {
    const auto deadline = std::chrono::steady_clock::now() + options_.wait;
    std::unique_lock lock(mutex_);
    while (true) {
        if (!idle_.empty()) {
            // The most recently used connection: the others stay cold and few are ever opened.
            auto connection = std::move(idle_.back());
            idle_.pop_back();
            return Lease(this, std::move(connection));
        }
        const auto now = std::chrono::steady_clock::now();
        if (open_ < options_.max_connections && now >= no_new_connections_until_) {
            ++open_;  // reserved while connecting without the lock
            lock.unlock();
            auto opened = PgConnection::open(url_, extra_connect_timeout);
            lock.lock();
            if (opened) return Lease(this, std::make_unique<PgConnection>(std::move(opened.value())));
            --open_;
            no_new_connections_until_ = std::chrono::steady_clock::now() + failed_connect_pause;
            continue;  // wait for one of those already open
        }
        if (returned_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty()) {
            Error error{errors::kDatabaseUnavailable,
                        "PostgreSQL " + target_ + ": all " + std::to_string(open_) +
                            " connections of this store stayed busy for " + std::to_string(options_.wait.count()) +
                            " ms",
                        {},
                        {"retry in a moment: the daemon is overloaded or the database answers slowly",
                         "check the database server's load and slow statements (pg_stat_activity)"}};
            error.details["backend"] = "postgres";
            error.details["retry_after_ms"] = 1000;
            return error;
        }
    }
}

}  // namespace skillhost::db
