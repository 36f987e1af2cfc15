// The audit log in PostgreSQL's audit_records table: the same records (fields, redaction) as the
// day files, read back by page and followed, by any instance.
#include "audit/audit_database.hpp"
#include "audit/audit_log.hpp"
#include "support/unit_testing.hpp"
#include "support/postgres_server.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <thread>

namespace skillhost::audit {
namespace {

using ::testing::HasSubstr;
using unit_testing::TempDir;

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

TEST(DatabaseAudit, ConcurrentAppendsAreEachCommittedOnceAndABadRecordFailsAlone) {
    SKILLHOST_POSTGRES_DATABASE(url);
    const auto where = db::StorageLocation::postgres(url);
    for (const FsyncPolicy fsync : {FsyncPolicy::interval, FsyncPolicy::always}) {
        AuditOptions options;
        options.fsync = fsync;
        auto sink = DatabaseAuditSink::open(where, options);
        ASSERT_TRUE(sink.ok()) << sink.error().message;
        const std::string tag = fsync == FsyncPolicy::always ? "always" : "interval";
        constexpr int threads = 8;
        constexpr int per_thread = 40;
        std::vector<std::vector<Status>> results(threads);
        std::vector<std::thread> writers;
        for (int t = 0; t < threads; ++t) {
            writers.emplace_back([&, t] {
                for (int i = 0; i < per_thread; ++i) {
                    // Thread 0 sends every tenth record with a NUL byte, which PostgreSQL text cannot hold.
                    const bool bad = t == 0 && i % 10 == 0;
                    const std::string record =
                        R"({"n":")" + tag + "-" + std::to_string(t) + "-" + std::to_string(i) + R"("})";
                    results[t].push_back((*sink)->append(std::chrono::system_clock::now(),
                                                         bad ? std::string("call\0", 6) : "call", "u", record));
                }
            });
        }
        for (auto& writer : writers) writer.join();
        std::set<std::string> expected;
        for (int t = 0; t < threads; ++t) {
            for (int i = 0; i < per_thread; ++i) {
                const bool bad = t == 0 && i % 10 == 0;
                const Status& status = results[t][i];
                if (bad) {
                    ASSERT_FALSE(status.ok()) << t << "/" << i;
                    EXPECT_EQ(status.error().code, "AUDIT_WRITE_FAILED");
                    EXPECT_THAT(status.error().message, HasSubstr("NUL"));
                } else {
                    ASSERT_TRUE(status.ok()) << status.error().message;
                    expected.insert(tag + "-" + std::to_string(t) + "-" + std::to_string(i));
                }
            }
        }
        ASSERT_TRUE((*sink)->flush().ok());
        auto page = read_audit_page(AuditSource{{}, where}, {}, 10000);
        ASSERT_TRUE(page.ok()) << page.error().message;
        std::multiset<std::string> stored;
        for (const auto& record : page->batch.records) {
            const std::string n(record.at("n").as_string());
            if (n.rfind(tag + "-", 0) == 0) stored.insert(n);
        }
        EXPECT_EQ(stored, std::multiset<std::string>(expected.begin(), expected.end()));  // each once
    }
}

TEST(DatabaseAudit, TheTableIsRefusedForASqliteHome) {
    TempDir dir;
    auto sink = DatabaseAuditSink::open(db::StorageLocation::sqlite(dir.path() / "skillhost.db"), {});
    ASSERT_FALSE(sink.ok());
    EXPECT_THAT(sink.error().message, HasSubstr("day files"));
}

}  // namespace
}  // namespace skillhost::audit
