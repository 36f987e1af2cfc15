// The memory plugin's import of a memory.db an older version left in a user's data directory,
// through the real loader and executor into the host's storage, tested on the file an existing
// home holds (old_plugin_files.hpp).
#include "plugins/builtin_host.hpp"
#include "plugins/old_plugin_files.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace skillhost::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;

// 2026-11-20T10:00:00+01:00 and a day later.
constexpr std::int64_t kThursday = 1795165200;
constexpr std::int64_t kFriday = kThursday + 86400;
constexpr const char* kNow = R"("now":"2026-11-21T15:00:00+01:00")";

class MemoryImportTest : public ::testing::Test {
protected:
    BuiltinHost host;

    fs::path data_dir(const std::string& user = "alice") { return host.users_dir() / user / "plugins" / "memory"; }

    json::array recent(const std::string& user = "alice") {
        auto r = host.call("memory_recent", std::string(R"({"limit":200,)") + kNow + "}", user);
        EXPECT_TRUE(r.ok) << output_text(r);
        return r.ok ? field(r, "memories").as_array() : json::array{};
    }
};

TEST_F(MemoryImportTest, AnOlderMemoryDbIsImportedWithItsIdsTimesAndTagsAndIsSearchable) {
    write_old_memory_db(data_dir() / "memory.db",
                        {{1, "Planning meeting with Dana about the roadmap", "event", "work\x1fmeeting", kThursday},
                         {2, "Temporary", "note", "", kThursday},
                         {3, "Prefer short answers", "guidance", "style", kFriday},
                         {4, "Deleted last", "note", "", kFriday}},
                        {2, 4});

    const json::array memories = recent();
    ASSERT_EQ(memories.size(), 2u) << json::serialize(memories);
    EXPECT_EQ(memories[0].at("id"), 3);  // newest first
    EXPECT_EQ(memories[0].at("kind"), "guidance");
    EXPECT_EQ(memories[0].at("tags"), (json::array{"style"}));
    EXPECT_EQ(memories[1].at("id"), 1);
    EXPECT_EQ(memories[1].at("tags"), (json::array{"work", "meeting"}));
    EXPECT_EQ(memories[1].at("timestamp"), "2026-11-20T10:00:00+01:00");

    // Found by word forms and by tag, inside a window, as before.
    auto found = host.call("memory_search", std::string(R"({"query":"meetings","when":"yesterday",)") + kNow + "}");
    ASSERT_TRUE(found.ok) << output_text(found);
    ASSERT_EQ(field(found, "count"), 1);
    EXPECT_EQ(field(found, "results").at(0).at("id"), 1);
    EXPECT_THAT(std::string(field(found, "results").at(0).at("snippet").as_string()), HasSubstr("[meeting]"));
    auto tagged = host.call("memory_recent", std::string(R"({"tag":"work",)") + kNow + "}");
    ASSERT_TRUE(tagged.ok) << output_text(tagged);
    EXPECT_EQ(field(tagged, "count"), 1);

    // The file is kept, renamed, and not imported again; new ids continue after the deleted 4.
    EXPECT_FALSE(fs::exists(data_dir() / "memory.db"));
    EXPECT_TRUE(fs::exists(data_dir() / "memory.db.migrated"));
    auto captured = host.call("memory_capture", R"({"text":"After the import"})");
    ASSERT_TRUE(captured.ok) << output_text(captured);
    EXPECT_EQ(field(captured, "memory").at("id"), 5);
    EXPECT_EQ(recent().size(), 3u);
    // The memory:// resources read the imported memories too; the other user has none.
    EXPECT_TRUE(recent("bob").empty());
}

TEST_F(MemoryImportTest, ADamagedMemoryDbFailsEveryCallWithWhatToDoAndStays) {
    fs::create_directories(data_dir());
    std::ofstream(data_dir() / "memory.db") << "this is not a database\n";
    auto r = host.call("memory_recent", "{}");
    ASSERT_FALSE(r.ok) << output_text(r);
    EXPECT_EQ(r.error.code, "STORAGE_ERROR");
    EXPECT_THAT(r.error.message, HasSubstr("importing the older memory file"));
    EXPECT_THAT(r.error.message, HasSubstr("move it out of the directory"));
    EXPECT_TRUE(fs::exists(data_dir() / "memory.db"));
    fs::rename(data_dir() / "memory.db", host.home() / "memory.db.damaged");
    EXPECT_TRUE(host.call("memory_recent", "{}").ok);
}

// A memory larger than a record (the old file had no limit) keeps the start of its text and says
// where the whole text is; the others are imported whole.
TEST_F(MemoryImportTest, AMemoryTooLargeForARecordIsCutWithANoteWhereTheWholeTextIs) {
    write_old_memory_db(data_dir() / "memory.db", {{1, std::string(400 * 1024, 'a') + " tail", "note", "", kThursday},
                                                   {2, "Small one", "note", "", kFriday}});
    const json::array memories = recent();
    ASSERT_EQ(memories.size(), 2u);
    const std::string text(memories[1].at("text").as_string());
    EXPECT_LT(text.size(), 256u * 1024u);
    EXPECT_GT(text.size(), 100u * 1024u);
    EXPECT_THAT(text, HasSubstr("the whole text is in memory.db.migrated"));
    EXPECT_EQ(memories[0].at("text"), "Small one");
}

TEST_F(MemoryImportTest, ATextLongerThanAMemoryHoldsIsRefusedWithItsSize) {
    auto r = host.call("memory_capture", R"({"text":")" + std::string(70 * 1024, 'x') + R"("})");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.code, "MEMORY_TOO_LONG");
    EXPECT_THAT(r.error.message, HasSubstr("at most 65536 bytes"));
    EXPECT_TRUE(recent().empty());
}

}  // namespace
}  // namespace skillhost::testing
