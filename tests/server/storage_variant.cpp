#include "storage_variant.hpp"

#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace skillhost::testing {
namespace {

// Before any test of the postgres variant: the server must be there. Without it the binary ends
// here, its tests skipped with the reason (ctest reads the "[  SKIPPED ]" marker), or failed with
// it under CI=true; never a silent pass on SQLite. Not GTEST_SKIP or FAIL: gtest 1.12 reports
// neither from a global set-up (a skip there prints no marker; after a failure there every test
// is skipped and the run exits 0).
class PostgresVariantCheck : public ::testing::Environment {
public:
    void SetUp() override {
        if (selected_storage_backend() != db::StorageBackend::postgres) return;
        std::string why;
        if (shared_postgres_server(why) != nullptr) return;
        if (postgres_required()) {
            std::fprintf(stderr, "[  FAILED  ] PostgreSQL is required (CI=true) for the postgres variant: %s\n",
                         why.c_str());
            std::fflush(stderr);
            std::_Exit(1);
        }
        std::printf("[  SKIPPED ] no PostgreSQL server for the postgres variant of these tests: %s\n", why.c_str());
        std::fflush(stdout);
        std::_Exit(0);
    }
};

const bool registered = (::testing::AddGlobalTestEnvironment(new PostgresVariantCheck), true);

}  // namespace

db::StorageBackend selected_storage_backend() {
    (void)registered;
    const char* name = std::getenv("SKILLHOST_TEST_STORAGE");
    return name != nullptr && std::string_view(name) == "postgres" ? db::StorageBackend::postgres
                                                                   : db::StorageBackend::sqlite;
}

std::string fresh_postgres_database() {
    std::string why;
    PostgresServer* server = shared_postgres_server(why);
    std::string url = server != nullptr ? server->fresh_database(why) : std::string();
    if (url.empty()) throw std::runtime_error("no PostgreSQL database for this daemon: " + why);
    return url;
}

}  // namespace skillhost::testing
