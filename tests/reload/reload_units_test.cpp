// The pure pieces of reloading: which file names count, per-unit debouncing, file identities.
#include "reload/debounce_schedule.hpp"
#include "reload/file_identity.hpp"
#include "reload/plugin_file_names.hpp"

#include "fixtures/fixture_support.hpp"

#include <gtest/gtest.h>

namespace skillhost::reload {
namespace {

using namespace std::chrono_literals;

TEST(PluginFileNames, TemporaryAndEditorFilesAreNotPluginFiles) {
    for (const char* name : {".libecho.so.tmp", ".echo.yaml", "echo.yaml.tmp", "echo.yaml~", ".echo.yaml.swp",
                             "echo.yaml.swo", "#echo.yaml#", "4913", ""})
        EXPECT_TRUE(is_temporary_name(name)) << name;
    for (const char* name : {"libecho.so", "echo.yaml", "tasks.yml"}) EXPECT_FALSE(is_temporary_name(name)) << name;
    EXPECT_TRUE(is_manifest_name("echo.yaml"));
    EXPECT_TRUE(is_manifest_name("echo.yml"));
    EXPECT_FALSE(is_manifest_name("libecho.so"));
    EXPECT_FALSE(is_manifest_name(".echo.yaml"));
    EXPECT_FALSE(is_manifest_name("echo.yaml.tmp"));
}

TEST(PluginFileNames, ManifestsAreListedSortedWithoutTemporaryFiles) {
    test::TempDir dir;
    for (const char* name : {"b.yaml", "a.yml", ".c.yaml", "d.yaml.tmp", "libx.so"}) test::write_file(dir / name, "x");
    std::filesystem::create_directories(dir / "sub.yaml");
    const auto listed = list_manifests(dir.path());
    ASSERT_EQ(listed.size(), 2u);
    EXPECT_EQ(listed[0], dir / "a.yml");
    EXPECT_EQ(listed[1], dir / "b.yaml");
    EXPECT_TRUE(list_manifests(dir / "missing").empty());
}

TEST(DebounceSchedule, AKeyIsDueOnceItsEventsWereQuietForTheInterval) {
    DebounceSchedule schedule(100ms, 1000ms);
    const DebounceSchedule::Clock::time_point t0{};
    schedule.note("a", t0);
    schedule.note("a", t0 + 60ms);
    schedule.note("b", t0 + 30ms);
    EXPECT_EQ(schedule.next_due(), t0 + 130ms);
    EXPECT_TRUE(schedule.take_due(t0 + 129ms).empty());
    EXPECT_EQ(schedule.take_due(t0 + 130ms), std::vector<std::filesystem::path>{"b"});
    EXPECT_EQ(schedule.next_due(), t0 + 160ms);
    EXPECT_EQ(schedule.take_due(t0 + 200ms), std::vector<std::filesystem::path>{"a"});
    EXPECT_TRUE(schedule.empty());
    EXPECT_FALSE(schedule.next_due().has_value());
}

TEST(DebounceSchedule, ConstantEventsStillRunAfterMaxWait) {
    DebounceSchedule schedule(100ms, 300ms);
    const DebounceSchedule::Clock::time_point t0{};
    for (auto t = 0ms; t <= 500ms; t += 50ms) schedule.note("a", t0 + t);
    EXPECT_EQ(schedule.next_due(), t0 + 300ms);
}

TEST(DebounceSchedule, AnUrgentKeyIsDueAtOnce) {
    DebounceSchedule schedule(100ms, 1000ms);
    const DebounceSchedule::Clock::time_point t0{};
    schedule.note("", t0);
    schedule.note_urgent("", t0 + 10ms);
    EXPECT_EQ(schedule.next_due(), t0);
}

TEST(FileIdentity, ARenamedReplacementIsADifferentFile) {
    test::TempDir dir;
    test::write_file(dir / "f", "one");
    const auto first = identify_file(dir / "f");
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(identify_file(dir / "f"), first);
    test::write_file(dir / "g", "one");
    std::filesystem::rename(dir / "g", dir / "f");
    EXPECT_NE(identify_file(dir / "f"), first);
    EXPECT_FALSE(identify_file(dir / "missing").has_value());
    EXPECT_EQ(content_hash("abc"), content_hash("abc"));
    EXPECT_NE(content_hash("abc"), content_hash("abd"));
}

}  // namespace
}  // namespace skillhost::reload
