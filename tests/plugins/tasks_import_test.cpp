// The tasks plugin's import of a tasks.db an older version left in a user's data directory, through
// the real loader and executor (and, in the process variant, a runner) into the host's storage.
#include "app/plugin_storage_service.hpp"
#include "plugins/builtin_host.hpp"
#include "plugins/old_plugin_files.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <set>
#include <thread>

namespace skillhost::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

class TasksImportTest : public ::testing::Test {
protected:
    BuiltinHost host;

    fs::path data_dir(const std::string& user = "alice") { return host.users_dir() / user / "plugins" / "tasks"; }

    json::array listed(const std::string& user = "alice") {
        auto r = host.call("task_list", R"({"include_completed":true,"limit":500})", user);
        EXPECT_TRUE(r.ok) << output_text(r);
        return r.ok ? field(r, "tasks").as_array() : json::array{};
    }
    std::vector<std::string> titles(const json::array& tasks) {
        std::vector<std::string> out;
        for (const auto& t : tasks) out.emplace_back(t.at("title").as_string());
        return out;
    }
    std::int64_t id_of(const json::array& tasks, const std::string& title) {
        for (const auto& t : tasks)
            if (t.at("title") == title.c_str()) return t.at("id").as_int64();
        ADD_FAILURE() << "no task titled " << title;
        return 0;
    }
};

TEST_F(TasksImportTest, AnOlderTasksDbIsImportedWithItsIdsAndFieldsAndKeptAsMigrated) {
    write_old_tasks_db(data_dir() / "tasks.db",
                       {{1, "Write the report", "in_progress", "high", {"work", "finance"}, "2026-12-01", {}, "Q3"},
                        {2, "Buy milk", "open", "low", {}, {}, {}, ""},
                        {3, "Temporary", "open", "medium", {}, {}, {}, ""},
                        {5, "Filed taxes", "done", "medium", {"home"}, {}, "2026-01-05T10:00:00Z", ""},
                        {7, "Deleted last", "open", "medium", {}, {}, {}, ""}},
                       {3, 7});

    const json::array tasks = listed();
    ASSERT_EQ(titles(tasks), (std::vector<std::string>{"Write the report", "Buy milk", "Filed taxes"}));
    EXPECT_EQ(tasks[0].at("id"), 1);
    EXPECT_EQ(tasks[0].at("tags"), (json::array{"work", "finance"}));
    EXPECT_EQ(tasks[0].at("due"), "2026-12-01");
    EXPECT_EQ(tasks[0].at("notes"), "Q3");
    EXPECT_EQ(tasks[0].at("status"), "in_progress");
    EXPECT_EQ(tasks[0].at("created"), "2026-01-02T03:04:05Z");
    EXPECT_EQ(tasks[1].at("id"), 2);
    EXPECT_TRUE(tasks[1].at("due").is_null());
    EXPECT_EQ(tasks[2].at("id"), 5);
    EXPECT_EQ(tasks[2].at("completed"), "2026-01-05T10:00:00Z");

    // The file is kept, renamed, and not imported again.
    EXPECT_FALSE(fs::exists(data_dir() / "tasks.db"));
    EXPECT_TRUE(fs::exists(data_dir() / "tasks.db.migrated"));
    EXPECT_EQ(listed().size(), 3u);

    // New ids continue after the file's last id, including the deleted 7.
    auto created = host.call("task_create", R"({"title":"After the import"})");
    ASSERT_TRUE(created.ok) << output_text(created);
    EXPECT_EQ(field(created, "task").at("id"), 8);
    // Imported tasks are ordinary tasks: updated and deleted by their old ids.
    auto done = host.call("task_update", R"({"id":1,"status":"done"})");
    ASSERT_TRUE(done.ok) << output_text(done);
    EXPECT_EQ(field(done, "task").at("tags"), (json::array{"work", "finance"}));
    ASSERT_TRUE(host.call("task_delete", R"({"id":2})").ok);
    EXPECT_EQ(titles(listed()), (std::vector<std::string>{"After the import", "Write the report", "Filed taxes"}));
    // The other user's list is untouched.
    EXPECT_TRUE(listed("bob").empty());
}

TEST_F(TasksImportTest, AFileOfManyTasksIsImportedInBatchesInIdOrder) {
    std::vector<OldTask> old;
    for (int i = 1; i <= 250; ++i)
        old.push_back({i, "task " + std::to_string(i), "open", "medium", {"t" + std::to_string(i % 3)}, {}, {}, ""});
    write_old_tasks_db(data_dir() / "tasks.db", old);
    const json::array tasks = listed();
    ASSERT_EQ(tasks.size(), 250u);
    for (std::size_t i = 0; i < tasks.size(); ++i) EXPECT_EQ(tasks[i].at("id"), static_cast<std::int64_t>(i + 1));
    auto tagged = host.call("task_list", R"({"tag":"t1","limit":500})");
    EXPECT_EQ(field(tagged, "total"), 84);
    EXPECT_TRUE(fs::exists(data_dir() / "tasks.db.migrated"));
}

// A task created through another instance before this one imported its file holds id 1 in the
// shared store: the file's task 1 is imported under a new id, and neither is overwritten.
TEST_F(TasksImportTest, AnIdAlreadyTakenInTheStoreGivesTheImportedTaskANewIdAndOverwritesNothing) {
    auto first = host.call("task_create", R"({"title":"Made through another instance"})");
    ASSERT_TRUE(first.ok) << output_text(first);
    ASSERT_EQ(field(first, "task").at("id"), 1);
    write_old_tasks_db(data_dir() / "tasks.db", {{1, "Old one", "open", "medium", {}, {}, {}, ""},
                                                 {2, "Old two", "open", "medium", {}, {}, {}, ""}});
    const json::array tasks = listed();
    ASSERT_EQ(tasks.size(), 3u) << json::serialize(tasks);
    EXPECT_EQ(id_of(tasks, "Made through another instance"), 1);
    EXPECT_EQ(id_of(tasks, "Old two"), 2);
    EXPECT_EQ(id_of(tasks, "Old one"), 3);
    std::set<std::int64_t> ids;
    for (const auto& t : tasks) ids.insert(t.at("id").as_int64());
    EXPECT_EQ(ids.size(), 3u);
}

// Another instance imported its own tasks.db for this user (the marker names that file): this
// instance's file is not imported on top, and is kept as tasks.db.not-imported.
TEST_F(TasksImportTest, AFileIsNotImportedWhenTheStoreHoldsAnImportFromElsewhere) {
    auto storage = app::PluginStorageService::open(db::StorageLocation::sqlite(host.home() / "skillhost.db"));
    ASSERT_TRUE(storage) << storage.error().message;
    const json::object marker{{"state", "done"}, {"source", "other-host:/srv/skillhost/tasks.db"}, {"tasks", 1}};
    auto put = storage.value()->handle({"tasks", "alice"}, "put",
                                       json::serialize(json::object{{"collection", "tasks.meta"},
                                                                    {"key", "file_import"},
                                                                    {"value", json::serialize(marker)},
                                                                    {"expected_version", 0}}));
    ASSERT_TRUE(put) << put.error().message;
    write_old_tasks_db(data_dir() / "tasks.db", {{1, "Only on this instance", "open", "medium", {}, {}, {}, ""}});

    EXPECT_TRUE(listed().empty());
    EXPECT_FALSE(fs::exists(data_dir() / "tasks.db"));
    EXPECT_TRUE(fs::exists(data_dir() / "tasks.db.not-imported"));
    EXPECT_FALSE(fs::exists(data_dir() / "tasks.db.migrated"));
}

// A damaged file is never skipped silently (its tasks may matter): every call says what failed and
// what to do, and the file stays where it is.
TEST_F(TasksImportTest, ADamagedTasksDbFailsEveryCallWithWhatToDoAndStays) {
    fs::create_directories(data_dir());
    std::ofstream(data_dir() / "tasks.db") << "this is not a database\n";
    auto r = host.call("task_list", "{}");
    ASSERT_FALSE(r.ok) << output_text(r);
    EXPECT_EQ(r.error.code, "STORAGE_ERROR");
    EXPECT_THAT(r.error.message, ::testing::HasSubstr("importing the older task file"));
    EXPECT_THAT(r.error.message, ::testing::HasSubstr("move it out of the directory"));
    EXPECT_TRUE(fs::exists(data_dir() / "tasks.db"));
    fs::rename(data_dir() / "tasks.db", host.home() / "tasks.db.damaged");
    auto after = host.call("task_list", "{}");
    EXPECT_TRUE(after.ok) << output_text(after);
}

// Retry keys are kept 30 days: each keyed write forgets a few older ones (the time index lists the
// oldest first), so the store does not fill up with them.
TEST_F(TasksImportTest, RetryKeysOlderThanThirtyDaysAreForgottenByLaterKeyedWrites) {
    auto storage = app::PluginStorageService::open(db::StorageLocation::sqlite(host.home() / "skillhost.db"));
    ASSERT_TRUE(storage) << storage.error().message;
    const auto put = [&](const std::string& collection, const std::string& key, const json::object& value) {
        auto done = storage.value()->handle({"tasks", "alice"}, "put",
                                            json::serialize(json::object{{"collection", collection},
                                                                         {"key", key},
                                                                         {"value", json::serialize(value)},
                                                                         {"expected_version", -1}}));
        ASSERT_TRUE(done) << done.error().message;
    };
    const auto get = [&](const std::string& collection, const std::string& key) {
        auto found = storage.value()->handle({"tasks", "alice"}, "get",
                                             json::serialize(json::object{{"collection", collection}, {"key", key}}));
        EXPECT_TRUE(found) << found.error().message;
        return found ? json::parse(found.value()).at("found").as_bool() : false;
    };
    // A key from 1970 (older than any 30 days) and one from now.
    put("retry_keys", "run-old:1", {{"created_id", 99}, {"at", 1}});
    put("retry_keys.by_time", "000000000001:run-old:1", {{"key", "run-old:1"}});
    auto first = host.call_with_key("task_create", R"({"title":"Keyed"})", "run-new:1");
    ASSERT_TRUE(first.ok) << output_text(first);
    EXPECT_FALSE(get("retry_keys", "run-old:1")) << "the old key was kept";
    EXPECT_FALSE(get("retry_keys.by_time", "000000000001:run-old:1"));
    EXPECT_TRUE(get("retry_keys", "run-new:1")) << "the new key was not recorded";
    auto retry = host.call_with_key("task_create", R"({"title":"Keyed"})", "run-new:1");
    ASSERT_TRUE(retry.ok) << output_text(retry);
    EXPECT_FALSE(field(retry, "created").as_bool());
}

// Two callers updating different fields of one task at once: each update reads the task, changes
// its field and writes only if nobody wrote in between (else reads again), so neither is lost.
TEST_F(TasksImportTest, ConcurrentUpdatesOfOneTaskLoseNoField) {
    auto created = host.call("task_create", R"({"title":"Shared"})");
    ASSERT_TRUE(created.ok) << output_text(created);
    const std::string id = std::to_string(field(created, "task").at("id").as_int64());
    constexpr int kRounds = 15;
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (const char* which : {"title", "notes"})
        threads.emplace_back([&, which] {
            for (int i = 1; i <= kRounds; ++i) {
                auto r = host.call("task_update", R"({"id":)" + id + R"(,")" + which + R"(":")" + which + " " +
                                                      std::to_string(i) + R"("})");
                if (!r.ok) {
                    ++failures;
                    ADD_FAILURE() << output_text(r);
                }
            }
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(failures.load(), 0);
    const json::array tasks = listed();
    ASSERT_EQ(tasks.size(), 1u);
    EXPECT_EQ(tasks[0].at("title").as_string(), "title " + std::to_string(kRounds));
    EXPECT_EQ(tasks[0].at("notes").as_string(), "notes " + std::to_string(kRounds));
}

// An import cut short (its instance died between batches, then came back under another host name,
// as a container does) is resumed by whoever reads the same file again: the fingerprint of the
// file's contents, not the host, says it is the same import. Tasks already written are skipped, the
// missing ones written, and nothing is duplicated.
TEST_F(TasksImportTest, AnImportCutShortIsResumedFromTheSameFileUnderAnotherHostName) {
    const std::vector<OldTask> old{{1, "First", "open", "high", {"x"}, {}, {}, ""},
                                   {2, "Second", "open", "medium", {}, {}, {}, ""},
                                   {3, "Third", "open", "low", {}, {}, {}, ""}};
    write_old_tasks_db(data_dir() / "tasks.db", old);
    ASSERT_EQ(listed().size(), 3u);
    auto storage = app::PluginStorageService::open(db::StorageLocation::sqlite(host.home() / "skillhost.db"));
    ASSERT_TRUE(storage) << storage.error().message;
    const auto ask = [&](const char* operation, const json::object& request) {
        auto answer = storage.value()->handle({"tasks", "alice"}, operation, json::serialize(request));
        EXPECT_TRUE(answer) << operation << ": " << answer.error().message;
        return answer ? json::parse(answer.value()).as_object() : json::object{};
    };
    // As it was when the import stopped: the marker still `importing`, written on a host since
    // renamed, and task 3 not yet written. The file is back where it was.
    auto marker = ask("get", {{"collection", "tasks.meta"}, {"key", "file_import"}});
    ASSERT_TRUE(marker.at("found").as_bool());
    json::object value = marker.at("value").as_object();
    value["state"] = "importing";
    value["source"] = "pod-before-restart:/old/home/tasks.db";
    ask("put", {{"collection", "tasks.meta"},
                {"key", "file_import"},
                {"value", json::serialize(value)},
                {"expected_version", marker.at("version")}});
    ask("remove", {{"collection", "tasks"}, {"key", "0000000000000003"}, {"expected_version", -1}});
    // Meanwhile the user renamed task 1 through another instance.
    auto first = ask("get", {{"collection", "tasks"}, {"key", "0000000000000001"}});
    json::object renamed = first.at("value").as_object();
    renamed["title"] = "First, renamed";
    ask("put", {{"collection", "tasks"},
                {"key", "0000000000000001"},
                {"value", json::serialize(renamed)},
                {"expected_version", first.at("version")}});
    fs::rename(data_dir() / "tasks.db.migrated", data_dir() / "tasks.db");

    const json::array tasks = listed();
    EXPECT_EQ(titles(tasks), (std::vector<std::string>{"First, renamed", "Second", "Third"}));
    EXPECT_EQ(id_of(tasks, "Third"), 3);
    auto done = ask("get", {{"collection", "tasks.meta"}, {"key", "file_import"}});
    EXPECT_EQ(done.at("value").at("state"), "done");
    EXPECT_FALSE(fs::exists(data_dir() / "tasks.db"));
    EXPECT_TRUE(fs::exists(data_dir() / "tasks.db.migrated"));
}

// A file without tasks (its user kept their tasks through another instance, or deleted them all)
// sets no marker, so another instance's file with tasks is still imported; its ids stay used.
TEST_F(TasksImportTest, AFileWithoutTasksIsSetAsideWithoutBlockingAnotherFilesImport) {
    write_old_tasks_db(data_dir() / "tasks.db", {{1, "Gone", "open", "medium", {}, {}, {}, ""}}, {1});
    EXPECT_TRUE(listed().empty());
    EXPECT_TRUE(fs::exists(data_dir() / "tasks.db.migrated"));
    write_old_tasks_db(data_dir() / "tasks.db", {{1, "Kept elsewhere", "open", "medium", {}, {}, {}, ""},
                                                 {4, "Also kept", "open", "medium", {}, {}, {}, ""}});
    const json::array tasks = listed();
    EXPECT_EQ(titles(tasks), (std::vector<std::string>{"Kept elsewhere", "Also kept"}));
    EXPECT_EQ(id_of(tasks, "Also kept"), 4);
    EXPECT_TRUE(fs::exists(data_dir() / "tasks.db.migrated.1")) << "the first kept file was replaced";
    auto created = host.call("task_create", R"({"title":"New"})");
    EXPECT_EQ(field(created, "task").at("id"), 5);
}

// The old file had no size limit, a record has (256 KiB): a task larger than that is imported with
// the start of its notes and a note saying the whole text is in the kept file; many large tasks are
// written in batches that stay under the batch's byte limit.
TEST_F(TasksImportTest, TasksTooLargeForARecordAreCutAndLargeFilesAreImportedInBoundedBatches) {
    std::vector<OldTask> old;
    old.push_back({1, "Huge notes", "open", "medium", {}, {}, {}, std::string(600 * 1024, 'n')});
    for (int i = 2; i <= 15; ++i)  // 14 × 200 KiB: two batches of at most 2 MiB of values
        old.push_back({i, "Large " + std::to_string(i), "open", "medium", {}, {}, {}, std::string(200 * 1024, 'x')});
    write_old_tasks_db(data_dir() / "tasks.db", old);
    host.timeout = std::chrono::seconds(60);  // ~3.4 MiB imported and listed back in one call
    auto all = host.call("task_list", R"({"include_completed":true,"limit":500})");
    ASSERT_TRUE(all.ok) << output_text(all).substr(0, 2000);
    const json::array& tasks = field(all, "tasks").as_array();
    ASSERT_EQ(tasks.size(), 15u);
    const std::string notes(tasks[0].at("notes").as_string());
    EXPECT_EQ(tasks[0].at("title"), "Huge notes");
    EXPECT_LT(notes.size(), 256u * 1024u);
    EXPECT_GT(notes.size(), 100u * 1024u);
    EXPECT_THAT(notes, ::testing::HasSubstr("the whole text is in tasks.db.migrated"));
    EXPECT_EQ(tasks[14].at("notes").as_string().size(), 200u * 1024u);
    EXPECT_TRUE(fs::exists(data_dir() / "tasks.db.migrated"));
}

}  // namespace
}  // namespace skillhost::testing
