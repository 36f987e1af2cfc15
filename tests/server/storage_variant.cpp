#include "storage_variant.hpp"

#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace skillhost::testing {
namespace {

// Before any test of the postgres variant: the server must be there. Without it every test is
// skipped with the reason, or fails with it under CI=true (never a silent pass on SQLite).
class PostgresVariantCheck : public ::testing::Environment {
public:
    void SetUp() override {
        if (selected_storage_backend() != db::StorageBackend::postgres) return;
        std::string why;
        if (shared_postgres_server(why) != nullptr) return;
        if (postgres_required()) FAIL() << "PostgreSQL is required (CI=true) for the postgres variant: " << why;
        GTEST_SKIP() << "no PostgreSQL server for the postgres variant of these tests: " << why;
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
