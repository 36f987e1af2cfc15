// The pins of foreign servers' definitions on a real SQLite file: the first listing is pinned, a
// change waits for one decision however many threads and stores (processes) list it at once, the
// approved definition becomes the pin, and the decision's diff says what changed.
#include "app/definition_pin_store.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <set>
#include <thread>

namespace skillhost::app {
namespace {

namespace json = boost::json;
using plugin::ListedDefinition;

ListedDefinition echo(std::string hash, std::string description, bool with_mode = false) {
    json::object properties{{"message", json::object{{"type", "string"}}}};
    if (with_mode) properties["mode"] = json::object{{"type", "string"}};
    return {"echo", std::move(hash),
            json::object{{"name", "echo"},
                         {"description", std::move(description)},
                         {"inputSchema", json::object{{"type", "object"}, {"properties", std::move(properties)}}}}};
}

class DefinitionPinStoreTest : public ::testing::Test {
protected:
    testing::TempDir dir{"skillhost-pins"};
    db::StorageLocation location = db::StorageLocation::sqlite(dir / "skillhost.db");

    std::shared_ptr<decisions::DefinitionChangeQueue> queue() {
        auto opened = decisions::DefinitionChangeQueue::open(location);
        EXPECT_TRUE(opened) << opened.error().message;
        return std::shared_ptr<decisions::DefinitionChangeQueue>(std::move(opened.value()));
    }
    std::shared_ptr<DefinitionPinStore> store(std::shared_ptr<decisions::DefinitionChangeQueue> changes) {
        auto opened = DefinitionPinStore::open(location, std::move(changes));
        EXPECT_TRUE(opened) << opened.error().message;
        return opened.value();
    }
};

TEST_F(DefinitionPinStoreTest, TheFirstListingIsPinnedAndAChangeWaitsForOneDecisionAcrossThreadsAndStores) {
    auto changes = queue();
    auto pins = store(changes);
    auto first = pins->check("files", {echo("h1", "Echoes.")}, "");
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_TRUE((*first)[0].callable);

    auto other = store(queue());  // another process on the same file
    std::vector<std::string> ids(16);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        threads.emplace_back([&, i] {
            auto verdict = (i % 2 == 0 ? pins : other)
                               ->check("files", {echo("h2", "Sends it away.", true)}, "user" + std::to_string(i));
            if (verdict && !(*verdict)[0].callable) ids[i] = (*verdict)[0].decision_id;
        });
    }
    for (auto& thread : threads) thread.join();
    auto listed = changes->list();
    ASSERT_TRUE(listed) << listed.error().message;
    ASSERT_EQ(listed->size(), 1u) << "one decision for one change";
    const auto& record = listed->front();
    for (const auto& id : ids)
        if (!id.empty()) {
            EXPECT_EQ(id, record.id);
        }
    EXPECT_EQ(record.old_hash, "h1");
    EXPECT_EQ(record.new_hash, "h2");
    std::set<std::string> fields;
    for (const auto& entry : record.diff) fields.insert(std::string(entry.at("field").as_string()));
    EXPECT_TRUE(fields.contains("description")) << json::serialize(record.diff);
    EXPECT_TRUE(fields.contains("inputSchema.properties.mode")) << json::serialize(record.diff);
    EXPECT_FALSE(fields.contains("inputSchema.properties.message")) << "an unchanged property is not listed";

    decisions::Resolver owner{"owner", auth::Role::owner};
    auto approved = changes->approve(record.id, owner);
    ASSERT_TRUE(approved) << approved.error().message;
    ASSERT_TRUE(pins->pin(*approved, "owner"));
    auto now = other->check("files", {echo("h2", "Sends it away.", true)}, "bob");
    ASSERT_TRUE(now);
    EXPECT_TRUE((*now)[0].callable) << "the approved definition is the pin, in every store";
    auto back = other->check("files", {echo("h1", "Echoes.")}, "bob");
    ASSERT_TRUE(back);
    EXPECT_FALSE((*back)[0].callable) << "going back to the old definition is a change too";

    auto stale = pins->pin(*approved, "owner");
    EXPECT_FALSE(stale) << "a pin is only moved from the definition the change was asked against";
}

TEST_F(DefinitionPinStoreTest, OnlyAnOwnerDecides) {
    auto changes = queue();
    auto pins = store(changes);
    ASSERT_TRUE(pins->check("files", {echo("h1", "Echoes.")}, ""));
    auto verdict = pins->check("files", {echo("h2", "Other.")}, "bob");
    ASSERT_TRUE(verdict);
    const std::string id = (*verdict)[0].decision_id;
    auto refused = changes->approve(id, decisions::Resolver{"bob", auth::Role::standard});
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, "NOT_ALLOWED_TO_PIN");
    EXPECT_EQ(changes->approve("def-nope", decisions::Resolver{"owner", auth::Role::owner}).error().code,
              "DEFINITION_CHANGE_NOT_FOUND");
}

}  // namespace
}  // namespace skillhost::app
