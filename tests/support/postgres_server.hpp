// A throwaway PostgreSQL server for the tests of the postgres storage backend: `initdb` in a
// temporary directory and `postgres` listening only on a Unix socket in that directory, run as the
// `postgres` user when the tests run as root (initdb refuses root; CI runs as root). Stopped and
// removed when the object goes.
#pragma once

#include "db/storage_location.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace skillhost::db {
// Names the backend in test output instead of its bytes.
inline void PrintTo(StorageBackend backend, std::ostream* out) {
    *out << (backend == StorageBackend::sqlite ? "sqlite" : "postgres");
}
}  // namespace skillhost::db

namespace skillhost::testing {

class PostgresServer {
public:
    // Starts a server, or returns null with `why` set (postgres not installed, initdb failed, ...).
    static std::unique_ptr<PostgresServer> start(std::string& why);
    ~PostgresServer();
    PostgresServer(const PostgresServer&) = delete;
    PostgresServer& operator=(const PostgresServer&) = delete;

    // A libpq connection string for `database` on this server (socket directory, port, user).
    std::string url(std::string_view database = "postgres") const;
    // Creates an empty database and returns its connection string; each test takes its own.
    std::string fresh_database(std::string& why);

    // Stops the server and waits for it to exit: `fast` (its clients' connections break) or
    // `immediate` (pg_ctl -m immediate: no shutdown checkpoint, as a crash; the next start recovers).
    enum class Shutdown { fast, immediate };
    void stop(Shutdown how = Shutdown::fast);
    // Starts the stopped server again on the same data and socket; false with `why` on failure.
    bool start_again(std::string& why);

private:
    PostgresServer() = default;
    // Starts `postgres` on the data directory and waits until it answers.
    bool launch(std::string& why);
    TempDir dir_{"skillhost-pg"};
    std::string bindir_;
    uid_t uid_ = 0;
    gid_t gid_ = 0;
    bool switch_user_ = false;
    pid_t pid_ = -1;
    int databases_ = 0;
};

// The server shared by one test binary, started on first use. Null with `why` when none can run.
PostgresServer* shared_postgres_server(std::string& why);

// True when the environment says CI=true: there a missing PostgreSQL fails the test, elsewhere it
// is skipped (a developer without the package still runs every other test).
bool postgres_required();

// A test that runs once per backend: on the SQLite file of a fresh home and on a fresh PostgreSQL
// database. Declare `class MySuite : public OnEachBackend {};`, then SKILLHOST_ON_EACH_BACKEND(MySuite).
class OnEachBackend : public ::testing::TestWithParam<db::StorageBackend> {
protected:
    void SetUp() override;
    db::StorageLocation location() const;
    TempDir home;
    std::string postgres_url;  // set in SetUp for the postgres run
};

std::string backend_test_name(const ::testing::TestParamInfo<db::StorageBackend>& info);

}  // namespace skillhost::testing

#define SKILLHOST_ON_EACH_BACKEND(suite)                                                                       \
    INSTANTIATE_TEST_SUITE_P(                                                                                  \
        Backends, suite,                                                                                       \
        ::testing::Values(::skillhost::db::StorageBackend::sqlite, ::skillhost::db::StorageBackend::postgres), \
        ::skillhost::testing::backend_test_name)

// In a test body: a fresh database's connection string in `url_var`, or skip (fail under CI=true).
#define SKILLHOST_POSTGRES_DATABASE(url_var)                                                                          \
    std::string url_var;                                                                                              \
    {                                                                                                                 \
        std::string pg_why_;                                                                                          \
        auto* pg_server_ = ::skillhost::testing::shared_postgres_server(pg_why_);                                     \
        if (pg_server_ != nullptr) url_var = pg_server_->fresh_database(pg_why_);                                     \
        if (url_var.empty()) {                                                                                        \
            if (::skillhost::testing::postgres_required()) FAIL() << "PostgreSQL is required (CI=true): " << pg_why_; \
            GTEST_SKIP() << "no PostgreSQL server for this test: " << pg_why_;                                        \
        }                                                                                                             \
    }

// In a test body (or SetUp): a PostgreSQL server of the test's own in `server_var` (the test may stop
// and restart it) and a fresh database's connection string in `url_var`; or the test skips (fails
// under CI=true). Declares neither when they already exist: pass names of members to assign them.
#define SKILLHOST_OWN_POSTGRES_SERVER(server_var, url_var)                     \
    do {                                                                       \
        std::string pg_own_why_;                                               \
        server_var = ::skillhost::testing::PostgresServer::start(pg_own_why_); \
        if (!server_var) {                                                     \
            if (::skillhost::testing::postgres_required())                     \
                FAIL() << "PostgreSQL is required (CI=true): " << pg_own_why_; \
            GTEST_SKIP() << pg_own_why_;                                       \
        }                                                                      \
        url_var = server_var->fresh_database(pg_own_why_);                     \
        ASSERT_FALSE(url_var.empty()) << pg_own_why_;                          \
    } while (false)
