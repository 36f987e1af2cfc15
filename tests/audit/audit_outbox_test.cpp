// The audit outbox: records the database could not take, in a real file. A torn tail is cut off
// and the next record starts on a line; a drain hands each record over and forgets them only once
// delivered; a full outbox refuses; and a drain repeated after a crash between the insert and the
// truncation inserts each record into the real audit_records table once.
#include "db/backend_connection.hpp"
#include "audit/audit_database.hpp"
#include "audit/audit_outbox.hpp"
#include "audit/error_codes.hpp"
#include "support/unit_testing.hpp"
#include "support/postgres_server.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace skillhost::audit {
namespace {

using ::testing::HasSubstr;
using unit_testing::TempDir;

OutboxRecord sample(int n) {
    return OutboxRecord{AuditOutbox::new_id(), 1'800'000'000'000 + n, "skill_call", "alice",
                        R"({"kind":"skill_call","call_id":"call-)" + std::to_string(n) + R"("})"};
}

std::unique_ptr<AuditOutbox> open_outbox(const std::filesystem::path& file, std::size_t max_bytes = 1 << 20) {
    auto outbox = AuditOutbox::open(file, max_bytes);
    EXPECT_TRUE(outbox.ok()) << outbox.error().message;
    return outbox ? std::move(outbox.value()) : nullptr;
}

std::vector<OutboxRecord> drain_all(AuditOutbox& outbox) {
    std::vector<OutboxRecord> out;
    auto drained = outbox.drain([&](const std::vector<OutboxRecord>& batch) -> Status {
        out.insert(out.end(), batch.begin(), batch.end());
        return {};
    });
    EXPECT_TRUE(drained.ok()) << drained.error().message;
    return out;
}

TEST(AuditOutbox, ATornTailIsCutOffAndTheNextRecordStartsOnItsOwnLine) {
    TempDir dir;
    const auto file = dir.path() / "audit-outbox.jsonl";
    const OutboxRecord first = sample(1), second = sample(2);
    {
        auto outbox = open_outbox(file);
        ASSERT_TRUE(outbox->append(first).ok());
    }
    {
        std::ofstream torn(file, std::ios::app);
        torn << R"({"id":"half","ts_ms":1,"kind":"skill)";  // a kill cut this append short
    }
    auto outbox = open_outbox(file);
    ASSERT_TRUE(outbox->append(second).ok());
    const auto records = drain_all(*outbox);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].id, first.id);
    EXPECT_EQ(records[0].record, first.record);
    EXPECT_EQ(records[0].ts_ms, first.ts_ms);
    EXPECT_EQ(records[1].id, second.id);
    EXPECT_TRUE(outbox->empty());
}

TEST(AuditOutbox, RecordsAreForgottenOnlyOnceDeliveredAndThenOnlyOnce) {
    TempDir dir;
    auto outbox = open_outbox(dir.path() / "audit-outbox.jsonl");
    for (int i = 0; i < 70; ++i) ASSERT_TRUE(outbox->append(sample(i)).ok());  // more than one batch
    std::size_t offered = 0;
    auto failed = outbox->drain([&](const std::vector<OutboxRecord>& batch) -> Status {
        offered += batch.size();
        if (offered > AuditOutbox::max_batch) return Error{errors::kAuditWriteFailed, "the database is down"};
        return {};
    });
    ASSERT_FALSE(failed.ok());
    EXPECT_FALSE(outbox->empty()) << "nothing is forgotten before everything is delivered";
    const auto records = drain_all(*outbox);
    ASSERT_EQ(records.size(), 70u) << "every record again (the delivery ignores ids it already has)";
    EXPECT_EQ(records.back().ts_ms, sample(69).ts_ms);
    EXPECT_TRUE(outbox->empty());
    EXPECT_TRUE(drain_all(*outbox).empty());
}

TEST(AuditOutbox, AFullOutboxRefusesWithAuditWriteFailedAndSaysWhy) {
    TempDir dir;
    auto outbox = open_outbox(dir.path() / "audit-outbox.jsonl", 600);
    int kept = 0;
    Status refused;
    for (int i = 0; i < 20 && refused; ++i) {
        refused = outbox->append(sample(i));
        if (refused) ++kept;
    }
    ASSERT_FALSE(refused.ok()) << "600 bytes hold no 20 records";
    EXPECT_TRUE(refused.error().is(errors::kAuditWriteFailed));
    EXPECT_EQ(refused.error().details.at("cause").as_string(), "audit_outbox_full");
    EXPECT_THAT(refused.error().message, HasSubstr("is full"));
    EXPECT_GT(kept, 0);
    EXPECT_LE(std::filesystem::file_size(dir.path() / "audit-outbox.jsonl"), 600u);
    EXPECT_EQ(drain_all(*outbox).size(), static_cast<std::size_t>(kept)) << "what was kept stays whole";
    EXPECT_TRUE(outbox->append(sample(99)).ok()) << "room again once drained";
}

std::int64_t rows_with(db::BackendConnection& connection, const std::string& text) {
    auto rows =
        connection.run("counting", "SELECT COUNT(*) FROM audit_records WHERE record LIKE ?", {"%" + text + "%"});
    EXPECT_TRUE(rows.ok()) << rows.error().message;
    return rows ? rows->integer(0, 0) : -1;
}

TEST(AuditOutbox, ADrainRepeatedAfterACrashInsertsEachRecordIntoTheTableOnce) {
    SKILLHOST_POSTGRES_DATABASE(url);
    const auto where = db::StorageLocation::postgres(url);
    TempDir dir;
    const auto file = dir.path() / "audit-outbox.jsonl";
    const OutboxRecord first = sample(1), second = sample(2);
    for (int attempt = 0; attempt < 2; ++attempt) {
        // The second time the same records are back in the file, as after a crash between the
        // insert and the truncation.
        {
            auto outbox = open_outbox(file);
            ASSERT_TRUE(outbox->append(first).ok());
            ASSERT_TRUE(outbox->append(second).ok());
        }
        auto sink = DatabaseAuditSink::open(where, AuditOptions{}, open_outbox(file));
        ASSERT_TRUE(sink.ok()) << sink.error().message;
        EXPECT_EQ(std::filesystem::file_size(file), 0u) << "opening the sink drains the outbox";
    }
    auto connection = db::BackendConnection::open(where);
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    EXPECT_EQ(rows_with(**connection, "call-1"), 1);
    EXPECT_EQ(rows_with(**connection, "call-2"), 1);
}

// With the server down, records that do not gate an execution wait in the outbox; once it could
// not keep another after-call record, a record that gates an execution is refused (nothing runs);
// when the server is back the outbox drains and executions go on.
TEST(AuditOutbox, WhileTheServerIsDownAFullOutboxRefusesExecutionsUntilItDrains) {
    std::string why;
    std::unique_ptr<::skillhost::testing::PostgresServer> server;
    std::string url;
    SKILLHOST_OWN_POSTGRES_SERVER(server, url);
    TempDir dir;
    const auto file = dir.path() / "audit-outbox.jsonl";
    auto sink = DatabaseAuditSink::open(db::StorageLocation::postgres(url), AuditOptions{},
                                        open_outbox(file, 64 * 1024 + 4000));
    ASSERT_TRUE(sink.ok()) << sink.error().message;
    const TimePoint now = std::chrono::system_clock::now();
    const std::string record = R"({"kind":"skill_call","call_id":"call-x","pad":")" + std::string(900, 'x') + R"("})";
    ASSERT_TRUE((*sink)->append(now, "decision", "alice", R"({"kind":"decision"})", true).ok());

    server->stop(::skillhost::testing::PostgresServer::Shutdown::immediate);
    int kept = 0;
    Status refused;
    for (int i = 0; i < 200 && refused; ++i) {
        refused = (*sink)->append(now, "skill_call", "alice", record);
        if (refused) ++kept;
    }
    EXPECT_GT(kept, 0) << "after-call records wait in the outbox while the server is down";
    ASSERT_FALSE(refused.ok()) << "the outbox is bounded";
    EXPECT_EQ(refused.error().details.at("cause").as_string(), "audit_outbox_full") << refused.error().message;
    auto gate = (*sink)->append(now, "decision", "alice", R"({"kind":"decision"})", true);
    ASSERT_FALSE(gate.ok()) << "an execution whose after-call record could not be kept must not start";
    EXPECT_TRUE(gate.error().is(errors::kAuditWriteFailed));

    ASSERT_TRUE(server->start_again(why)) << why;
    Status allowed = Error{errors::kAuditWriteFailed, "not tried"};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!allowed && std::chrono::steady_clock::now() < deadline) {
        allowed = (*sink)->append(now, "decision", "alice", R"({"kind":"decision"})", true);
        if (!allowed) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    EXPECT_TRUE(allowed.ok()) << allowed.error().message;
    EXPECT_EQ(std::filesystem::file_size(file), 0u);
    auto connection = db::BackendConnection::open(db::StorageLocation::postgres(url));
    ASSERT_TRUE(connection.ok()) << connection.error().message;
    EXPECT_EQ(rows_with(**connection, "call-x"), kept) << "each kept record once";
}

}  // namespace
}  // namespace skillhost::audit
