// `skillhost db check|migrate` as a user runs them: on a fresh home, on a first-release file, on a
// PostgreSQL database, and a host refusing to start on the postgres backend until it is complete.
#include "support/postgres_server.hpp"
#include "support/subprocess.hpp"
#include "support/temp_dir.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <filesystem>

namespace {

using skillhost::testing::ProcessResult;
using skillhost::testing::run_process;
using skillhost::testing::TempDir;
using skillhost::testing::write_file;

ProcessResult skillhost(const TempDir& dir, std::vector<std::string> args) {
    args.insert(args.begin(), SKILLHOST_BINARY);
    args.insert(args.end(), {"--config", (dir / "skillhost.yaml").string(), "--home", (dir / "home").string()});
    return run_process(args);
}

TEST(DbCommand, CheckOnAFreshHomeReportsPendingWithoutCreatingTheFileAndMigrateAppliesThem) {
    TempDir dir;
    write_file(dir / "skillhost.yaml", "include_builtin_plugins: false\n");
    auto check = skillhost(dir, {"db", "check", "--json"});
    EXPECT_EQ(check.exit_code, 1) << check.err;
    auto status = boost::json::parse(check.out).as_object();
    EXPECT_EQ(status.at("backend").as_string(), "sqlite");
    EXPECT_EQ(status.at("current").as_int64(), 0);
    EXPECT_FALSE(status.at("pending").as_array().empty());
    EXPECT_FALSE(std::filesystem::exists(dir / "home/skillhost.db"));

    auto migrate = skillhost(dir, {"db", "migrate"});
    EXPECT_EQ(migrate.exit_code, 0) << migrate.err;
    EXPECT_NE(migrate.out.find("Up to date."), std::string::npos) << migrate.out;
    auto again = skillhost(dir, {"db", "check"});
    EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
}

TEST(DbCommand, MigrateUpgradesAPostgresDatabaseAndAHostRunsOnIt) {
    SKILLHOST_POSTGRES_DATABASE(url);
    TempDir dir;
    write_file(dir / "skillhost.yaml",
               "include_builtin_plugins: false\nstorage:\n  backend: postgres\n  url: \"" + url + "\"\n");
    auto check = skillhost(dir, {"db", "check", "--json"});
    EXPECT_EQ(check.exit_code, 1) << check.err;
    EXPECT_EQ(boost::json::parse(check.out).at("backend").as_string(), "postgres");
    auto migrate = skillhost(dir, {"db", "migrate", "--json"});
    ASSERT_EQ(migrate.exit_code, 0) << migrate.out << migrate.err;
    EXPECT_TRUE(boost::json::parse(migrate.out).at("up_to_date").as_bool());
    EXPECT_EQ(skillhost(dir, {"db", "check"}).exit_code, 0);

    // Approvals, modes and the audit log live in PostgreSQL too, so the host starts on it.
    auto skills = skillhost(dir, {"skills", "list"});
    EXPECT_EQ(skills.exit_code, 0) << skills.out << skills.err;
    EXPECT_EQ(skills.err.find("STORAGE_BACKEND_INCOMPLETE"), std::string::npos) << skills.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "home/skillhost.db"));  // nothing split off into a local file
}

TEST(DbCommand, AnUnreachableDatabaseIsASetupErrorThatNamesNoPassword) {
    TempDir dir;
    write_file(dir / "skillhost.yaml",
               "include_builtin_plugins: false\nstorage:\n  backend: postgres\n"
               "  url: \"host=" +
                   (dir / "nosocket").string() + " user=x password=hunter2 connect_timeout=2\"\n");
    auto check = skillhost(dir, {"db", "check"});
    EXPECT_EQ(check.exit_code, 2);
    EXPECT_NE(check.err.find("DATABASE_ERROR"), std::string::npos) << check.err;
    EXPECT_EQ(check.err.find("hunter2"), std::string::npos) << check.err;
}

}  // namespace
