// Private copies and reference counting: a loaded plugin is independent of the file it came from,
// two versions of one plugin run side by side, and a library stays mapped while anyone holds it.
#include "plugin_test_support.hpp"

#include <gmock/gmock.h>

#include <cstdlib>
#include <fstream>
#include <thread>

namespace skillhost::plugin {
namespace {

using testing::parse;

// How many of this process's memory mappings come from `file` (a deleted file still shows, with
// " (deleted)" appended), i.e. whether the library is still loaded.
int mappings_of(const std::filesystem::path& file) {
    std::ifstream maps("/proc/self/maps");
    int count = 0;
    for (std::string line; std::getline(maps, line);)
        if (line.find(file.string()) != std::string::npos) ++count;
    return count;
}

std::int64_t version_of(const LoadedPlugin& plugin, const Call& call) {
    RawOutcome out = plugin.invoke(call, "{}");
    if (out.written != RawOutcome::Written::result) return -1;
    return parse(out.result_json).at("version").as_int64();
}

class PluginLifetimeTest : public testing::LoaderTest {
protected:
    test::TempDir plugins{"skillhost-plugins"};
};

TEST_F(PluginLifetimeTest, PrivateCopyIsRemovedRightAfterLoading) {
    auto echo = load_fixture("echo");
    ASSERT_TRUE(echo);
    EXPECT_FALSE(std::filesystem::exists(echo->loaded_from()));
    EXPECT_TRUE(std::filesystem::is_empty(cache.path()));
    EXPECT_GT(mappings_of(echo->loaded_from()), 0);
}

TEST_F(PluginLifetimeTest, OverwritingTheOriginalFileDoesNotAffectTheLoadedPlugin) {
    const auto manifest = test::copy_fixture("echo", plugins / "echo");
    auto loaded = make_loader().load_file(manifest);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;

    // Overwrite in place (not a rename): the worst an installer can do to a mapped file.
    test::write_file(plugins / "echo" / "libecho.so", std::string(64 * 1024, '\xAB'));

    RawOutcome out = loaded.value()->invoke(context("add"), R"({"a":1,"b":2})");
    ASSERT_EQ(out.written, RawOutcome::Written::result);
    EXPECT_EQ(parse(out.result_json), parse(R"({"sum":3})"));
}

TEST_F(PluginLifetimeTest, TwoVersionsOfOnePluginLoadSideBySide) {
    auto v1 = make_loader().load_file(test::copy_fixture("echo", plugins / "a"));
    auto v2 = make_loader().load_file(test::copy_fixture("echo_v2", plugins / "b"));
    ASSERT_TRUE(v1.ok()) << v1.error().message;
    ASSERT_TRUE(v2.ok()) << v2.error().message;
    EXPECT_EQ(v1.value()->manifest().name, v2.value()->manifest().name);

    EXPECT_EQ(version_of(*v1.value(), context("version")), 1);
    EXPECT_EQ(version_of(*v2.value(), context("version")), 2);
    EXPECT_EQ(v2.value()->version(), "2.0.0");
}

TEST_F(PluginLifetimeTest, ReplacedLibraryAtTheSamePathLoadsAsANewVersion) {
    const auto manifest = test::copy_fixture("echo", plugins / "echo");
    const PluginLoader loader = make_loader();
    auto old_version = loader.load_file(manifest);
    ASSERT_TRUE(old_version.ok()) << old_version.error().message;

    // Install v2 the safe way: copy to a temporary name, then rename over the old file; its
    // manifest too, since a library must report its manifest's version.
    for (const char* file : {"libecho.so", "echo.yaml"}) {
        std::filesystem::copy_file(test::fixture_dir("echo_v2") / file, plugins / "echo" / (std::string(".") + file));
        std::filesystem::rename(plugins / "echo" / (std::string(".") + file), plugins / "echo" / file);
    }
    auto new_version = loader.load_file(manifest);
    ASSERT_TRUE(new_version.ok()) << new_version.error().message;

    EXPECT_EQ(version_of(*old_version.value(), context("version")), 1);
    EXPECT_EQ(version_of(*new_version.value(), context("version")), 2);
}

TEST_F(PluginLifetimeTest, LibraryUnloadsOnlyAfterTheLastReferenceIsGone) {
    auto catalog_copy = load_fixture("echo");
    ASSERT_TRUE(catalog_copy);
    const auto mapped_file = catalog_copy->loaded_from();
    ASSERT_GT(mappings_of(mapped_file), 0);

    // A call in flight on another thread, holding its own reference; it runs until cancelled.
    CallControl control;
    std::atomic<bool> call_started{false};
    RawOutcome in_flight;
    std::thread caller([&, plugin = catalog_copy] {
        call_started = true;
        in_flight = plugin->invoke(context("sleep", &control), R"({"ms":60000})");
    });
    while (!call_started) std::this_thread::yield();

    catalog_copy.reset();  // the catalog drops the plugin while the call is still running
    EXPECT_GT(mappings_of(mapped_file), 0) << "unloaded while a call still held the plugin";

    control.cancelled = true;
    caller.join();
    EXPECT_EQ(in_flight.status, SKILLHOST_STATUS_CANCELLED);
    // The thread's reference went with the thread: now the library is gone.
    EXPECT_EQ(mappings_of(mapped_file), 0);
}

TEST_F(PluginLifetimeTest, ShutdownRunsWhenThePluginIsReleased) {
    const auto marker = home / "shutdown.log";
    ::setenv("SKILLHOST_ECHO_SHUTDOWN_FILE", marker.c_str(), 1);
    auto v1 = load_fixture("echo");
    auto v2 = load_fixture("echo_v2");
    ASSERT_TRUE(v1 && v2);
    EXPECT_FALSE(std::filesystem::exists(marker));

    v2.reset();
    EXPECT_EQ(test::read_file(marker), "echo 2 shutdown\n");
    v1.reset();
    EXPECT_EQ(test::read_file(marker), "echo 2 shutdown\necho 1 shutdown\n");
    ::unsetenv("SKILLHOST_ECHO_SHUTDOWN_FILE");
}

TEST_F(PluginLifetimeTest, EachLoadIsIndependent) {
    // Loading the same file twice gives two mappings with separate global state.
    auto first = load_fixture("echo");
    auto second = load_fixture("echo");
    ASSERT_TRUE(first && second);
    EXPECT_NE(first->loaded_from(), second->loaded_from());
    EXPECT_GT(mappings_of(first->loaded_from()), 0);
    EXPECT_GT(mappings_of(second->loaded_from()), 0);
}

}  // namespace
}  // namespace skillhost::plugin
