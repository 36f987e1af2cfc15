// notes_cpp's tests, run against the plugin as the host loads it: real library, real executor,
// real files in the test kit's temporary home.
#include <skillhost/testkit_gtest.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

using skillhost::Json;
using skillhost::testkit::CallSettings;
using skillhost::testkit::LoadedPluginUnderTest;

CallSettings as_user(const std::string& user) {
    CallSettings settings;
    settings.user_id = user;
    return settings;
}

class NotesCpp : public ::testing::Test {
protected:
    LoadedPluginUnderTest plugin = LoadedPluginUnderTest::load(NOTES_CPP_MANIFEST);
};

TEST_F(NotesCpp, AddedNotesAreListedNewestFirst) {
    auto first = plugin.call("note_add", R"({"text":"buy milk","tags":["shopping"]})");
    ASSERT_SKILL_OK(first);
    EXPECT_EQ(first.result(), Json::parse(R"({"id":1,"count":1})"));
    auto second = plugin.call("note_add", R"({"text":"call Ada"})");
    ASSERT_SKILL_OK(second);
    EXPECT_EQ(second.result(), Json::parse(R"({"id":2,"count":2})"));

    auto listed = plugin.call("note_list");
    ASSERT_SKILL_OK(listed);
    EXPECT_EQ(listed.result(), Json::parse(R"({"notes":[{"id":2,"text":"call Ada","tags":[]},
                                                        {"id":1,"text":"buy milk","tags":["shopping"]}],
                                               "total":2})"));
}

TEST_F(NotesCpp, NotesAreStoredInTheUsersPluginDataDirectory) {
    ASSERT_SKILL_OK(plugin.call("note_add", R"({"text":"persisted"})", as_user("alice")));
    std::filesystem::path file = plugin.data_dir("alice") / "notes.json";
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    std::ifstream in(file);
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(content.find("persisted"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(file.string() + ".tmp"));  // the temporary was renamed
}

TEST_F(NotesCpp, EachUserSeesOnlyTheirOwnNotes) {
    ASSERT_SKILL_OK(plugin.call("note_add", R"({"text":"alice's"})", as_user("alice")));
    ASSERT_SKILL_OK(plugin.call("note_add", R"({"text":"bob's"})", as_user("bob")));
    auto alice = plugin.call("note_list", "{}", as_user("alice"));
    ASSERT_SKILL_OK(alice);
    ASSERT_EQ(alice.result()["total"].as_int(), 1);
    EXPECT_EQ(alice.result()["notes"][0]["text"].as_string(), "alice's");
}

TEST_F(NotesCpp, ListAppliesTheTagFilterAndTheLimit) {
    for (int i = 1; i <= 5; ++i)
        ASSERT_SKILL_OK(plugin.call("note_add", Json::object({{"text", "note " + std::to_string(i)},
                                                              {"tags", Json::array({i % 2 ? "odd" : "even"})}})
                                                    .dump()));
    auto odd = plugin.call("note_list", R"({"tag":"odd","limit":2})");
    ASSERT_SKILL_OK(odd);
    EXPECT_EQ(odd.result()["total"].as_int(), 3);
    ASSERT_EQ(odd.result()["notes"].size(), 2u);
    EXPECT_EQ(odd.result()["notes"][0]["text"].as_string(), "note 5");
    EXPECT_EQ(odd.result()["notes"][1]["text"].as_string(), "note 3");
}

TEST_F(NotesCpp, BlankNoteFailsWithNoteEmptyAndTheManifestsHint) {
    auto r = plugin.call("note_add", R"({"text":"  \n\t"})");
    EXPECT_SKILL_ERROR(r, "NOTE_EMPTY");
    EXPECT_EQ(r.error_details()["length"].as_int(), 4);
    ASSERT_FALSE(r.suggestions.empty());
    EXPECT_NE(r.suggestions.front().find("non-space character"), std::string::npos) << r.to_json();
}

TEST_F(NotesCpp, ArgumentsOutsideTheManifestAreRejectedByTheHost) {
    EXPECT_SKILL_ERROR(plugin.call("note_add", "{}"), "INVALID_ARGS");
    EXPECT_SKILL_ERROR(plugin.call("note_add", R"({"text":"x","tags":["Not Valid"]})"), "INVALID_ARGS");
    EXPECT_SKILL_ERROR(plugin.call("note_list", R"({"limit":0})"), "INVALID_ARGS");
    EXPECT_SKILL_ERROR(plugin.call("note_list", R"({"limt":5})"), "INVALID_ARGS");
}

TEST_F(NotesCpp, CorruptNotesFileIsReportedNotOverwritten) {
    std::filesystem::create_directories(plugin.data_dir("carol"));
    std::filesystem::path file = plugin.data_dir("carol") / "notes.json";
    std::ofstream(file) << "{ not json";
    auto r = plugin.call("note_add", R"({"text":"x"})", as_user("carol"));
    EXPECT_SKILL_ERROR(r, "NOTES_CORRUPT");
    EXPECT_EQ(r.error_details()["file"].as_string(), file.string());
    std::ifstream in(file);
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(content, "{ not json");
}

}  // namespace
