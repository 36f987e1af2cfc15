// The audit log in PostgreSQL's audit_records table: the same records (fields, redaction) as the
// day files, read back by page and followed, by any instance.
#include "policy/audit_database.hpp"
#include "policy/audit_log.hpp"
#include "policy_test_support.hpp"
#include "support/postgres_server.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::policy {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

SkillCallAudit secret_call(std::string user, std::string skill) {
    SkillCallAudit call;
    call.user_id = std::move(user);
    call.skill_id = std::move(skill);
    call.call_id = "call-1";
    call.arguments = boost::json::parse(R"({"path":"notes/a.md","api_token":"hunter2","content":")" +
                                        std::string(1000, 'x') + R"("})");
    call.ok = true;
    return call;
}

std::unique_ptr<AuditLog> table_log(const db::StorageLocation& where, AuditOptions options) {
    auto sink = DatabaseAuditSink::open(where, options);
    EXPECT_TRUE(sink.ok()) << sink.error().message;
    if (!sink.ok()) return nullptr;
    return std::move(AuditLog::open(std::move(*sink), options).value());
}

TEST(DatabaseAudit, TheTableKeepsTheRecordsTheDayFilesWouldWithTheSameRedaction) {
    SKILLHOST_POSTGRES_DATABASE(url);
    const auto where = db::StorageLocation::postgres(url);
    TempDir dir;
    AuditOptions options;
    const TimePoint fixed = TimePoint(std::chrono::milliseconds(1'800'000'000'123));
    options.clock = [fixed] { return fixed; };
    options.fsync = FsyncPolicy::always;
    auto files = AuditLog::open(dir.path() / "audit", options);
    ASSERT_TRUE(files.ok());
    auto table = table_log(where, options);
    ASSERT_NE(table, nullptr);
    for (auto* log : {files->get(), table.get()}) {
        ASSERT_TRUE(log->record_skill_call(secret_call("bob", "fs_write")).ok());
        ASSERT_TRUE(log->record_skill_call(secret_call("carol", "add")).ok());
    }
    ASSERT_TRUE(table->flush().ok());
    EXPECT_TRUE(table->directory().empty());

    auto from_files = read_audit_page(AuditSource{dir.path() / "audit", std::nullopt}, {}, 10);
    auto from_table = read_audit_page(AuditSource{dir.path() / "elsewhere", where}, {}, 10);
    ASSERT_TRUE(from_files.ok()) << from_files.error().message;
    ASSERT_TRUE(from_table.ok()) << from_table.error().message;
    ASSERT_EQ(from_table->batch.records.size(), 2u);
    EXPECT_EQ(from_table->batch.records, from_files->batch.records);
    const std::string stored = boost::json::serialize(from_table->batch.records[0]);
    EXPECT_EQ(stored.find("hunter2"), std::string::npos) << stored;
    EXPECT_THAT(stored, HasSubstr("sha256"));
    EXPECT_FALSE(from_table->more);

    // Filters: by user and skill glob, newest first by page.
    AuditFilter carol;
    carol.user = "carol";
    auto only_carol = read_audit_page(AuditSource{{}, where}, carol, 10);
    ASSERT_TRUE(only_carol.ok());
    ASSERT_EQ(only_carol->batch.records.size(), 1u);
    EXPECT_EQ(only_carol->batch.records[0].at("skill").as_string(), "add");
    AuditFilter fs;
    fs.skill = "fs_*";
    EXPECT_EQ(read_audit_page(AuditSource{{}, where}, fs, 10)->batch.records.size(), 1u);
    auto newest = read_audit_page(AuditSource{{}, where}, {}, 1);
    ASSERT_EQ(newest->batch.records.size(), 1u);
    EXPECT_TRUE(newest->more);
    EXPECT_EQ(newest->batch.records[0].at("user").as_string(), "carol");
}

TEST(DatabaseAudit, AFollowerSeesRecordsAnotherInstanceAppendsAfterItStarted) {
    SKILLHOST_POSTGRES_DATABASE(url);
    const auto where = db::StorageLocation::postgres(url);
    auto writer = table_log(where, {});  // interval: synchronous_commit off
    auto other = table_log(where, {});   // another instance
    ASSERT_NE(writer, nullptr);
    ASSERT_NE(other, nullptr);
    ASSERT_TRUE(writer->record_skill_call(secret_call("bob", "add")).ok());
    AuditFilter bob;
    bob.user = "bob";
    auto follower = AuditFollower::open(AuditSource{{}, where}, bob);
    ASSERT_TRUE(follower.ok()) << follower.error().message;
    auto first = (*follower)->poll();
    ASSERT_TRUE(first.ok()) << first.error().message;
    EXPECT_EQ(first->records.size(), 1u);
    EXPECT_TRUE((*follower)->poll()->records.empty());
    ASSERT_TRUE(other->record_skill_call(secret_call("carol", "add")).ok());
    ASSERT_TRUE(other->record_skill_call(secret_call("bob", "fs_read")).ok());
    ASSERT_TRUE(other->flush().ok());
    auto next = (*follower)->poll();
    ASSERT_TRUE(next.ok());
    ASSERT_EQ(next->records.size(), 1u);
    EXPECT_EQ(next->records[0].at("skill").as_string(), "fs_read");
    EXPECT_TRUE((*follower)->poll()->records.empty());
}

TEST(DatabaseAudit, TheTableIsRefusedForASqliteHome) {
    TempDir dir;
    auto sink = DatabaseAuditSink::open(db::StorageLocation::sqlite(dir.path() / "skillhost.db"), {});
    ASSERT_FALSE(sink.ok());
    EXPECT_THAT(sink.error().message, HasSubstr("day files"));
}

}  // namespace
}  // namespace skillhost::policy
