// Idempotency-Key rows in a real skillhost.db and a real PostgreSQL database: a key is claimed
// once, its answer kept and read back by another connection (another instance, or the daemon after
// a restart), refused past the row limit, forgotten after its ttl.
#include "store/error_codes.hpp"
#include "store/idempotency_records.hpp"
#include "support/postgres_server.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace skillhost::store {
namespace {

using ::testing::HasSubstr;

class IdempotencyRecordsOnEachBackend : public testing::OnEachBackend {
protected:
    std::unique_ptr<IdempotencyRecords> open(IdempotencyLimits limits = {}) const {
        auto records = IdempotencyRecords::open(location(), limits);
        EXPECT_TRUE(records.ok()) << records.error().message;
        return records ? std::move(records.value()) : nullptr;
    }
};
SKILLHOST_ON_EACH_BACKEND(IdempotencyRecordsOnEachBackend);

TEST_P(IdempotencyRecordsOnEachBackend, AKeyIsClaimedOnceAndItsAnswerIsReadByAnotherConnection) {
    auto first = open();
    auto second = open();  // another instance, or the same daemon after a restart
    auto claimed = first->claim("alice\ncall task_create", "k1", "fp", "host/1/1");
    ASSERT_TRUE(claimed.ok()) << claimed.error().message;
    EXPECT_FALSE(claimed->has_value()) << "the first claim is this request's";

    auto busy = second->claim("alice\ncall task_create", "k1", "fp", "host/2/2");
    ASSERT_TRUE(busy.ok()) << busy.error().message;
    ASSERT_TRUE(busy->has_value());
    EXPECT_EQ((*busy)->owner, "host/1/1");
    EXPECT_EQ((*busy)->fingerprint, "fp");
    EXPECT_FALSE((*busy)->answer) << "still in progress";

    auto kept = first->keep_answer("alice\ncall task_create", "k1", "host/1/1", "the answer");
    ASSERT_TRUE(kept.ok()) << kept.error().message;
    EXPECT_TRUE(*kept);
    auto replay = second->claim("alice\ncall task_create", "k1", "fp", "host/2/2");
    ASSERT_TRUE(replay.ok() && replay->has_value());
    EXPECT_EQ((*replay)->answer.value_or(""), "the answer");

    // Scoped: the same key of another user or endpoint is another key.
    auto other = second->claim("bob\ncall task_create", "k1", "fp", "host/2/2");
    ASSERT_TRUE(other.ok());
    EXPECT_FALSE(other->has_value());
    // An answered key is not released by anyone, nor answered again.
    ASSERT_TRUE(first->release("alice\ncall task_create", "k1", "host/1/1").ok());
    auto again = first->keep_answer("alice\ncall task_create", "k1", "host/1/1", "another");
    ASSERT_TRUE(again.ok());
    EXPECT_FALSE(*again);
    auto still = second->claim("alice\ncall task_create", "k1", "fp", "host/2/2");
    ASSERT_TRUE(still.ok() && still->has_value());
    EXPECT_EQ((*still)->answer.value_or(""), "the answer");
}

TEST_P(IdempotencyRecordsOnEachBackend, AReleasedClaimIsFreeForTheNextRequest) {
    auto records = open();
    ASSERT_FALSE(records->claim("s", "k", "fp", "host/1/1")->has_value());
    ASSERT_TRUE(records->release("s", "k", "host/2/2").ok());  // not its claim: nothing happens
    EXPECT_TRUE(records->claim("s", "k", "fp", "host/2/2")->has_value());
    ASSERT_TRUE(records->release("s", "k", "host/1/1").ok());
    EXPECT_FALSE(records->claim("s", "k", "fp", "host/2/2")->has_value());
}

TEST_P(IdempotencyRecordsOnEachBackend, ClaimsPastTheRowLimitAreRefusedAndExpiredRowsGo) {
    IdempotencyLimits limits;
    limits.max_rows = 3;
    limits.ttl = std::chrono::milliseconds(400);
    auto records = open(limits);
    for (int i = 0; i < 3; ++i) ASSERT_FALSE(records->claim("s", "k" + std::to_string(i), "fp", "o")->has_value());
    auto full = records->claim("s", "k3", "fp", "o");
    ASSERT_FALSE(full.ok());
    EXPECT_TRUE(full.error().is(errors::kIdempotencyKeysFull)) << full.error().code;
    EXPECT_THAT(full.error().message, HasSubstr("at most 3"));
    EXPECT_THAT(full.error().message, HasSubstr("not run"));
    // A key already kept is still answered when the table is full.
    auto known = records->claim("s", "k0", "fp", "o");
    ASSERT_TRUE(known.ok()) << known.error().message;
    EXPECT_TRUE(known->has_value());

    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    // Expired rows count no more: a new key is claimed, and an expired key is new again.
    auto fresh = records->claim("s", "k3", "fp", "o");
    ASSERT_TRUE(fresh.ok()) << fresh.error().message;
    EXPECT_FALSE(fresh->has_value());
    auto renewed = records->claim("s", "k0", "other fp", "o");
    ASSERT_TRUE(renewed.ok()) << renewed.error().message;
    EXPECT_FALSE(renewed->has_value()) << "an expired key answers for nothing";
    auto pruned = records->prune();
    ASSERT_TRUE(pruned.ok()) << pruned.error().message;
    EXPECT_EQ(*pruned, 2);  // k1 and k2; k0 and k3 were claimed anew
}

}  // namespace
}  // namespace skillhost::store
