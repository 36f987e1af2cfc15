#include "store/plugin_data_store.hpp"
#include "store/error_codes.hpp"
#include "support/postgres_server.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <thread>

namespace skillhost::store {
namespace {

using ::testing::HasSubstr;

class PluginDataStoreOnEachBackend : public ::skillhost::testing::OnEachBackend {
protected:
    std::unique_ptr<PluginDataStore> open(PluginDataLimits limits = {}) {
        auto opened = PluginDataStore::open(location(), limits);
        EXPECT_TRUE(opened.ok()) << opened.error().message;
        return opened.ok() ? std::move(opened.value()) : nullptr;
    }
    static RecordWrite put(std::string collection, std::string key, std::string value,
                           std::int64_t expected = kAnyVersion) {
        RecordWrite w;
        w.kind = RecordWrite::Kind::put;
        w.collection = std::move(collection);
        w.key = std::move(key);
        w.value_json = std::move(value);
        w.expected_version = expected;
        return w;
    }
    static RecordWrite remove(std::string collection, std::string key, std::int64_t expected = kAnyVersion) {
        RecordWrite w = put(std::move(collection), std::move(key), "", expected);
        w.kind = RecordWrite::Kind::remove;
        return w;
    }
    const DataOwner ada{"tasks", "ada"};
};

SKILLHOST_ON_EACH_BACKEND(PluginDataStoreOnEachBackend);

TEST_P(PluginDataStoreOnEachBackend, PutGetAndVersionsThatNeverRepeat) {
    auto store = open();
    ASSERT_TRUE(store);
    auto first = store->write(ada, {put("tasks", "a", R"({"title":"milk"})", 0)});
    ASSERT_TRUE(first.ok()) << first.error().message;
    EXPECT_TRUE((*first)[0].created);
    const std::int64_t v1 = (*first)[0].version;
    EXPECT_GT(v1, 0);

    auto got = store->get(ada, "tasks", "a");
    ASSERT_TRUE(got.ok());
    ASSERT_TRUE(got->has_value());
    EXPECT_EQ((*got)->value_json, R"({"title":"milk"})");
    EXPECT_EQ((*got)->version, v1);

    // Create-only fails on an existing record; compare-and-set holds only at the version read.
    auto again = store->write(ada, {put("tasks", "a", "1", 0)});
    ASSERT_FALSE(again.ok());
    EXPECT_TRUE(again.error().is(errors::kStorageConflict));
    EXPECT_EQ(again.error().details.at("actual_version").as_int64(), v1);
    auto cas = store->write(ada, {put("tasks", "a", "2", v1)});
    ASSERT_TRUE(cas.ok()) << cas.error().message;
    EXPECT_FALSE((*cas)[0].created);
    EXPECT_GT((*cas)[0].version, v1);
    auto stale = store->write(ada, {put("tasks", "a", "3", v1)});
    ASSERT_FALSE(stale.ok());
    EXPECT_THAT(stale.error().message, HasSubstr("read it again"));

    // Deleted and created again: a version it never had, so an old compare-and-set cannot pass.
    const std::int64_t v2 = (*cas)[0].version;
    ASSERT_TRUE(store->write(ada, {remove("tasks", "a", v2)}).ok());
    auto gone = store->get(ada, "tasks", "a");
    ASSERT_TRUE(gone.ok());
    EXPECT_FALSE(gone->has_value());
    auto recreated = store->write(ada, {put("tasks", "a", "4")});
    ASSERT_TRUE(recreated.ok());
    EXPECT_GT((*recreated)[0].version, v2);
    auto removed_twice = store->write(ada, {remove("tasks", "nothing")});
    ASSERT_TRUE(removed_twice.ok());
    EXPECT_FALSE((*removed_twice)[0].removed);
}

TEST_P(PluginDataStoreOnEachBackend, StoresOfUsersAndPluginsAreSeparate) {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->write(ada, {put("tasks", "k", "\"ada's\"")}).ok());
    const DataOwner bob{"tasks", "bob"}, other_plugin{"memory", "ada"};
    for (const DataOwner& owner : {bob, other_plugin}) {
        auto got = store->get(owner, "tasks", "k");
        ASSERT_TRUE(got.ok());
        EXPECT_FALSE(got->has_value()) << owner.plugin << "/" << owner.user;
        auto page = store->list(owner, "tasks", "", "", 10);
        ASSERT_TRUE(page.ok());
        EXPECT_TRUE(page->records.empty());
        auto id = store->next_id(owner, "tasks");
        ASSERT_TRUE(id.ok());
        EXPECT_EQ(*id, 1);
    }
    auto empty_owner = store->get(DataOwner{"tasks", ""}, "tasks", "k");
    ASSERT_FALSE(empty_owner.ok());
    EXPECT_TRUE(empty_owner.error().is(errors::kStorageUnavailable));
}

TEST_P(PluginDataStoreOnEachBackend, ListsByPrefixInByteOrderPageByPage) {
    auto store = open();
    ASSERT_TRUE(store);
    std::vector<RecordWrite> writes;
    for (const char* key : {"b/2", "a/1", "b/10", "b/1", "c", "b\xC3\xA9", "b/\xF4\x8F\xBF\xBF"})
        writes.push_back(put("notes", key, "true"));
    ASSERT_TRUE(store->write(ada, writes).ok());

    std::vector<std::string> keys;
    std::string cursor;
    int pages = 0;
    do {
        auto page = store->list(ada, "notes", "b/", cursor, 2);
        ASSERT_TRUE(page.ok()) << page.error().message;
        ++pages;
        for (const auto& record : page->records) keys.push_back(record.key);
        cursor = page->next_cursor.value_or("");
    } while (!cursor.empty() && pages < 10);
    EXPECT_EQ(keys, (std::vector<std::string>{"b/1", "b/10", "b/2", "b/\xF4\x8F\xBF\xBF"}));
    EXPECT_EQ(pages, 2);

    auto all = store->list(ada, "notes", "", "", 100);
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all->records.size(), 7u);
    EXPECT_FALSE(all->next_cursor.has_value());
    auto bad_limit = store->list(ada, "notes", "", "", 0);
    ASSERT_FALSE(bad_limit.ok());
    EXPECT_TRUE(bad_limit.error().is(errors::kStorageInvalid));
}

TEST_P(PluginDataStoreOnEachBackend, BatchesAreAllOrNothing) {
    auto store = open();
    ASSERT_TRUE(store);
    auto seeded = store->write(ada, {put("tasks", "1", "1"), put("tasks", "2", "2")});
    ASSERT_TRUE(seeded.ok());
    const std::int64_t v1 = (*seeded)[0].version;

    // The third operation's precondition fails: neither the put nor the remove before it happen.
    RecordWrite check;
    check.kind = RecordWrite::Kind::check;
    check.collection = "tasks";
    check.key = "2";
    check.expected_version = v1;  // wrong: "2" has another version
    auto failed = store->write(ada, {put("tasks", "3", "3"), remove("tasks", "1"), check});
    ASSERT_FALSE(failed.ok());
    EXPECT_TRUE(failed.error().is(errors::kStorageConflict));
    EXPECT_EQ(failed.error().details.at("index").as_uint64(), 2u);
    auto three = store->get(ada, "tasks", "3");
    ASSERT_TRUE(three.ok());
    EXPECT_FALSE(three->has_value());
    auto one = store->get(ada, "tasks", "1");
    ASSERT_TRUE(one.ok());
    EXPECT_TRUE(one->has_value());

    // Operations apply in order: a later one sees an earlier one's write.
    auto ordered = store->write(ada, {put("tasks", "9", "9", 0), remove("tasks", "9")});
    ASSERT_TRUE(ordered.ok()) << ordered.error().message;
    EXPECT_TRUE((*ordered)[1].removed);
}

TEST_P(PluginDataStoreOnEachBackend, SequencesCountUpAndAdvance) {
    auto store = open();
    ASSERT_TRUE(store);
    EXPECT_EQ(*store->next_id(ada, "tasks"), 1);
    EXPECT_EQ(*store->next_id(ada, "tasks"), 2);
    EXPECT_EQ(*store->next_id(ada, "other"), 1);
    RecordWrite advance;
    advance.kind = RecordWrite::Kind::advance_sequence;
    advance.collection = "tasks";
    advance.sequence_to = 16;
    auto advanced = store->write(ada, {advance});
    ASSERT_TRUE(advanced.ok());
    EXPECT_EQ((*advanced)[0].last_id, 16);
    EXPECT_EQ(*store->next_id(ada, "tasks"), 17);
    advance.sequence_to = 3;  // never backwards
    ASSERT_TRUE(store->write(ada, {advance}).ok());
    EXPECT_EQ(*store->next_id(ada, "tasks"), 18);
}

TEST_P(PluginDataStoreOnEachBackend, ConcurrentWritersNeverShareAnIdOrLoseACompareAndSet) {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->write(ada, {put("c", "counter", "0")}).ok());
    std::mutex mutex;
    std::set<std::int64_t> ids;
    int increments = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 10; ++i) {
                auto id = store->next_id(ada, "c");
                ASSERT_TRUE(id.ok()) << id.error().message;
                std::lock_guard lock(mutex);
                EXPECT_TRUE(ids.insert(*id).second) << *id;
            }
            for (int done = 0; done < 5;) {
                auto current = store->get(ada, "c", "counter");
                ASSERT_TRUE(current.ok());
                const int value = std::stoi((*current)->value_json);
                auto set = store->write(ada, {put("c", "counter", std::to_string(value + 1), (*current)->version)});
                if (set.ok()) {
                    ++done;
                    std::lock_guard lock(mutex);
                    ++increments;
                } else {
                    ASSERT_TRUE(set.error().is(errors::kStorageConflict)) << set.error().message;
                }
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(ids.size(), 40u);
    EXPECT_EQ(*ids.rbegin(), 40);
    EXPECT_EQ((*store->get(ada, "c", "counter"))->value_json, std::to_string(increments));
    EXPECT_EQ(increments, 20);
}

TEST_P(PluginDataStoreOnEachBackend, EveryLimitHasItsErrorAndWritesNothing) {
    PluginDataLimits limits;
    limits.max_key_bytes = 8;
    limits.max_value_bytes = 16;
    limits.max_records = 3;
    limits.max_bytes = 40;
    limits.max_batch_operations = 4;
    auto store = open(limits);
    ASSERT_TRUE(store);

    auto long_key = store->write(ada, {put("c", "123456789", "1")});
    ASSERT_FALSE(long_key.ok());
    EXPECT_TRUE(long_key.error().is(errors::kStorageTooLarge));
    EXPECT_EQ(long_key.error().details.at("limit").as_string(), "key");
    auto big_value = store->write(ada, {put("c", "k", "\"0123456789abcdef\"")});
    ASSERT_FALSE(big_value.ok());
    EXPECT_EQ(big_value.error().details.at("limit").as_string(), "value");
    auto big_batch = store->write(ada, std::vector<RecordWrite>(5, put("c", "k", "1")));
    ASSERT_FALSE(big_batch.ok());
    EXPECT_EQ(big_batch.error().details.at("limit").as_string(), "batch_operations");
    for (const char* bad : {"", "has space", "_under", "\xC3\xA9t\xC3\xA9"}) {
        auto invalid = store->write(ada, {put(bad, "k", "1")});
        ASSERT_FALSE(invalid.ok()) << bad;
        EXPECT_TRUE(invalid.error().is(errors::kStorageInvalid)) << bad;
    }
    auto bad_utf8 = store->write(ada, {put("c", "\xC3", "1")});
    ASSERT_FALSE(bad_utf8.ok());
    EXPECT_TRUE(bad_utf8.error().is(errors::kStorageInvalid));

    ASSERT_TRUE(store->write(ada, {put("c", "1", "1"), put("c", "2", "2"), put("c", "3", "3")}).ok());
    auto fourth = store->write(ada, {put("c", "4", "4")});
    ASSERT_FALSE(fourth.ok());
    EXPECT_TRUE(fourth.error().is(errors::kStorageQuotaExceeded));
    EXPECT_EQ(fourth.error().details.at("limit").as_string(), "records");
    EXPECT_FALSE(store->get(ada, "c", "4")->has_value());
    // Removing one and adding one in a batch fits; replacing a record does not count it twice.
    ASSERT_TRUE(store->write(ada, {remove("c", "1"), put("c", "4", "4")}).ok());
    ASSERT_TRUE(store->write(ada, {put("c", "4", "44")}).ok());
    auto heavy = store->write(
        ada, {put("c", "2", "\"0123456789ab\""), put("c", "3", "\"0123456789ab\""), put("c", "4", "\"0123456789ab\"")});
    ASSERT_FALSE(heavy.ok());
    EXPECT_EQ(heavy.error().details.at("limit").as_string(), "bytes");
    // Another user's store has its own quota.
    EXPECT_TRUE(store->write(DataOwner{"tasks", "bob"}, {put("c", "4", "4")}).ok());
}

TEST(PrefixUpperBound, IsTheNextStringAfterEveryKeyWithThePrefix) {
    EXPECT_EQ(prefix_upper_bound("ab"), "ac");
    EXPECT_EQ(prefix_upper_bound(""), std::nullopt);
    EXPECT_EQ(prefix_upper_bound("a\xF4\x8F\xBF\xBF"), "b");
    EXPECT_EQ(prefix_upper_bound("\xF4\x8F\xBF\xBF"), std::nullopt);
    EXPECT_EQ(prefix_upper_bound("\xED\x9F\xBF"), "\xEE\x80\x80");  // U+D7FF -> U+E000, past the surrogates
    EXPECT_EQ(prefix_upper_bound("\x7F"), "\xC2\x80");
}

}  // namespace
}  // namespace skillhost::store
