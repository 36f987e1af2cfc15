// "skillhost.storage/1" end to end: a real plugin library (the `notebook` fixture, through the SDK's
// Storage wrapper) in the host and in a runner process, the host's storage service and store on a
// real SQLite file, and on one PostgreSQL database shared by two hosts. Every test runs in both
// modes, so the runner's forwarding must behave exactly like the host's own table.
#include "app/plugin_storage_service.hpp"
#include "isolation_test_support.hpp"
#include "support/postgres_server.hpp"

#include <gmock/gmock.h>

#include <set>
#include <string>

namespace skillhost::plugin::testing {
namespace {

std::shared_ptr<StorageService> storage_on(const db::StorageLocation& location) {
    auto storage = app::PluginStorageService::open(location);
    if (!storage) ADD_FAILURE() << storage.error().message;
    return storage ? storage.value() : nullptr;
}

class PluginStorageTest : public IsolationTest, public ::testing::WithParamInterface<IsolationMode> {
protected:
    void SetUp() override {
        IsolationTest::SetUp();
        options.isolation.default_mode = GetParam();
        options.storage = storage_on(db::StorageLocation::sqlite(home.path() / "skillhost.db"));
    }

    RawOutcome run(const LoadedPlugin& plugin, const std::string& args, const std::string& user = "alice") {
        CallControl control;
        return plugin.invoke(context("storage_op", user, &control), args);
    }

    boost::json::object ok(const LoadedPlugin& plugin, const std::string& args, const std::string& user = "alice") {
        RawOutcome outcome = run(plugin, args, user);
        EXPECT_EQ(outcome.written, RawOutcome::Written::result)
            << args << " -> " << outcome.error_code << ": " << outcome.error_message;
        if (outcome.written != RawOutcome::Written::result) return {};
        return boost::json::parse(outcome.result_json).as_object();
    }

    RawOutcome failed(const LoadedPlugin& plugin, const std::string& args, const std::string& user = "alice") {
        RawOutcome outcome = run(plugin, args, user);
        EXPECT_EQ(outcome.written, RawOutcome::Written::error) << args << " -> " << outcome.result_json;
        return outcome;
    }
};

INSTANTIATE_TEST_SUITE_P(Modes, PluginStorageTest, ::testing::Values(IsolationMode::in_process, IsolationMode::process),
                         [](const auto& mode) { return mode.param == IsolationMode::process ? "Runner" : "InHost"; });

TEST_P(PluginStorageTest, RecordsRoundTripThroughTheSdk) {
    auto plugin = load("notebook");
    ASSERT_TRUE(plugin);
    ASSERT_EQ(plugin->isolated(), GetParam() == IsolationMode::process);
    EXPECT_EQ(ok(*plugin, R"({"op":"available"})").at("available"), true);
    const auto put =
        ok(*plugin, R"({"op":"put","key":"a","value":{"title":"milk","tags":["x"]},"expected_version":0})");
    const std::int64_t version = put.at("version").as_int64();
    EXPECT_GT(version, 0);
    const auto got = ok(*plugin, R"({"op":"get","key":"a"})");
    ASSERT_EQ(got.at("found"), true);
    EXPECT_EQ(got.at("record").at("value"), boost::json::parse(R"({"title":"milk","tags":["x"]})"));
    EXPECT_EQ(got.at("record").at("version").as_int64(), version);

    ok(*plugin, R"({"op":"put","key":"b","value":2})");
    ok(*plugin, R"({"op":"put","key":"c","value":3})");
    const auto page = ok(*plugin, R"({"op":"list","limit":2})");
    ASSERT_EQ(page.at("records").as_array().size(), 2u);
    EXPECT_EQ(page.at("next_cursor"), "b");
    const auto rest = ok(*plugin, R"({"op":"list","limit":2,"cursor":"b"})");
    ASSERT_EQ(rest.at("records").as_array().size(), 1u);
    EXPECT_EQ(rest.at("records").as_array()[0].at("key"), "c");
    EXPECT_EQ(rest.at("next_cursor"), "");

    EXPECT_EQ(ok(*plugin, R"({"op":"remove","key":"a"})").at("removed"), true);
    EXPECT_EQ(ok(*plugin, R"({"op":"get","key":"a"})").at("found"), false);
    EXPECT_EQ(ok(*plugin, R"({"op":"next_id","collection":"tasks"})").at("id"), 1);
    EXPECT_EQ(ok(*plugin, R"({"op":"next_id","collection":"tasks"})").at("id"), 2);
}

TEST_P(PluginStorageTest, AFailedCompareAndSetReachesThePluginWithItsDetails) {
    auto plugin = load("notebook");
    ASSERT_TRUE(plugin);
    ok(*plugin, R"({"op":"put","key":"k","value":1,"expected_version":0})");
    const RawOutcome again = failed(*plugin, R"({"op":"put","key":"k","value":2,"expected_version":0})");
    EXPECT_EQ(again.error_code, "STORAGE_CONFLICT");
    EXPECT_THAT(again.error_message, ::testing::HasSubstr("read it again"));
    const auto details = details_of(again);
    EXPECT_GT(details.at("actual_version").as_int64(), 0);
    EXPECT_EQ(details.at("key"), "k");
    EXPECT_EQ(ok(*plugin, R"({"op":"get","key":"k"})").at("record").at("value"), 1);
}

TEST_P(PluginStorageTest, EachUserAndEachPluginHasItsOwnStore) {
    auto notebook = load("notebook");
    auto other = load("notebook_two");
    ASSERT_TRUE(notebook && other);
    ok(*notebook, R"({"op":"put","key":"secret","value":"alice's"})", "alice");
    EXPECT_EQ(ok(*notebook, R"({"op":"get","key":"secret"})", "bob").at("found"), false);
    EXPECT_EQ(ok(*other, R"({"op":"get","key":"secret"})", "alice").at("found"), false);
    EXPECT_TRUE(ok(*notebook, R"({"op":"list","limit":10})", "bob").at("records").as_array().empty());
    EXPECT_EQ(ok(*notebook, R"({"op":"next_id"})", "bob").at("id"), 1);
    EXPECT_EQ(ok(*notebook, R"({"op":"next_id"})", "alice").at("id"), 1);
    EXPECT_EQ(ok(*notebook, R"({"op":"get","key":"secret"})", "alice").at("record").at("value"), "alice's");
}

TEST_P(PluginStorageTest, BatchesAreAllOrNothingAndSequencesAdvance) {
    auto plugin = load("notebook");
    ASSERT_TRUE(plugin);
    const auto seeded = ok(*plugin, R"({"op":"put","key":"1","value":"one"})");
    const auto v1 = seeded.at("version").as_int64();
    const RawOutcome conflict = failed(*plugin, R"({"op":"batch","operations":[
        {"op":"put","collection":"notes","key":"2","value":"two"},
        {"op":"remove","collection":"notes","key":"1","expected_version":)" +
                                                    std::to_string(v1 + 100) + "}]}");
    EXPECT_EQ(conflict.error_code, "STORAGE_CONFLICT");
    EXPECT_EQ(details_of(conflict).at("index"), 1);
    EXPECT_EQ(ok(*plugin, R"({"op":"get","key":"2"})").at("found"), false);

    const auto done = ok(*plugin, R"({"op":"batch","operations":[
        {"op":"check","collection":"notes","key":"1","expected_version":)" +
                                      std::to_string(v1) + R"(},
        {"op":"put","collection":"notes","key":"2","value":"two","expected_version":0},
        {"op":"remove","collection":"notes","key":"1"},
        {"op":"advance_sequence","collection":"tasks","to":41}]})");
    const auto& results = done.at("results").as_array();
    ASSERT_EQ(results.size(), 4u);
    EXPECT_EQ(results[0].at("version").as_int64(), v1);
    EXPECT_EQ(results[1].at("created"), true);
    EXPECT_EQ(results[2].at("removed"), true);
    EXPECT_EQ(results[3].at("last_id"), 41);
    EXPECT_EQ(ok(*plugin, R"({"op":"next_id","collection":"tasks"})").at("id"), 42);
}

TEST_P(PluginStorageTest, EveryInputAPluginCanGetWrongHasAClearError) {
    auto plugin = load("notebook");
    ASSERT_TRUE(plugin);
    const std::string big(300 * 1024, 'x');
    const RawOutcome too_big = failed(*plugin, R"({"op":"put","key":"big","value":")" + big + "\"}");
    EXPECT_EQ(too_big.error_code, "STORAGE_TOO_LARGE");
    EXPECT_EQ(details_of(too_big).at("limit"), "value");
    const RawOutcome long_key = failed(*plugin, R"({"op":"get","key":")" + std::string(513, 'k') + "\"}");
    EXPECT_EQ(long_key.error_code, "STORAGE_TOO_LARGE");
    EXPECT_EQ(details_of(long_key).at("limit"), "key");
    const RawOutcome bad_collection = failed(*plugin, R"({"op":"get","collection":"no/slash","key":"k"})");
    EXPECT_EQ(bad_collection.error_code, "STORAGE_INVALID");
    EXPECT_THAT(bad_collection.error_message, ::testing::HasSubstr("no/slash"));
    EXPECT_EQ(failed(*plugin, R"({"op":"get","key":""})").error_code, "STORAGE_INVALID");
    EXPECT_EQ(failed(*plugin, R"({"op":"list","limit":0})").error_code, "STORAGE_INVALID");
    EXPECT_EQ(failed(*plugin, R"({"op":"list","limit":1001})").error_code, "STORAGE_INVALID");
    EXPECT_EQ(failed(*plugin, R"({"op":"put","key":"k","value":1,"expected_version":-2})").error_code,
              "STORAGE_INVALID");
    const RawOutcome bad_op =
        failed(*plugin, R"({"op":"batch","operations":[{"op":"rename","collection":"c","key":"k"}]})");
    EXPECT_EQ(bad_op.error_code, "STORAGE_INVALID");
    EXPECT_THAT(bad_op.error_message, ::testing::HasSubstr("rename"));
    EXPECT_EQ(failed(*plugin, R"({"op":"batch","operations":[]})").error_code, "STORAGE_INVALID");
    std::string many = R"({"op":"batch","operations":[)";
    for (int i = 0; i < 101; ++i) many += std::string(i ? "," : "") + R"({"op":"remove","collection":"c","key":"k"})";
    const RawOutcome too_many = failed(*plugin, many + "]}");
    EXPECT_EQ(too_many.error_code, "STORAGE_TOO_LARGE");
    EXPECT_EQ(details_of(too_many).at("limit"), "batch_operations");
    EXPECT_EQ(details_of(too_many).at("actual"), 101);

    const auto null_key = ok(*plugin, R"({"op":"null_key"})");
    EXPECT_EQ(null_key.at("status"), SKILLHOST_STATUS_INVALID_ARGS);
    EXPECT_EQ(null_key.at("code"), "STORAGE_INVALID");
    const auto outside = ok(*plugin, R"({"op":"without_call"})");
    EXPECT_EQ(outside.at("status"), SKILLHOST_STATUS_UNAVAILABLE);
    EXPECT_EQ(outside.at("code"), "STORAGE_UNAVAILABLE");
}

TEST_P(PluginStorageTest, AHostWithoutStorageSaysSo) {
    options.storage = nullptr;
    auto plugin = load("notebook");
    ASSERT_TRUE(plugin);
    const RawOutcome outcome = failed(*plugin, R"({"op":"get","key":"k"})");
    EXPECT_EQ(outcome.error_code, "STORAGE_UNAVAILABLE");
    EXPECT_THAT(outcome.error_message, ::testing::HasSubstr("no plugin storage"));
}

// Two hosts on one PostgreSQL database, each loading the plugin itself (in a runner): what one
// writes, the other reads, and their sequences never hand out a number twice.
TEST(PluginStorageScaledOut, TwoHostsOnOnePostgresShareThePluginsRecords) {
    SKILLHOST_POSTGRES_DATABASE(url);
    test::TempDir cache_a{"skillhost-cache"}, cache_b{"skillhost-cache"}, home{"skillhost-home"};
    const auto loader_options = [&](const test::TempDir& cache) {
        LoaderOptions options;
        options.cache_dir = cache.path();
        options.isolation.default_mode = IsolationMode::process;
        options.storage = storage_on(db::StorageLocation::postgres(url));
        return options;
    };
    auto a = PluginLoader(loader_options(cache_a)).load_file(test::fixture_manifest("notebook"));
    auto b = PluginLoader(loader_options(cache_b)).load_file(test::fixture_manifest("notebook"));
    ASSERT_TRUE(a.ok() && b.ok());
    const auto call = [&](const LoadedPlugin& plugin, const std::string& args) {
        CallControl control;
        Call c;
        c.skill_id = "storage_op";
        c.call_id = "call";
        c.user_id = "alice";
        c.data_dir = home.path() / "alice";
        c.control = &control;
        RawOutcome outcome = plugin.invoke(c, args);
        EXPECT_EQ(outcome.written, RawOutcome::Written::result) << outcome.error_code << ": " << outcome.error_message;
        return outcome.written == RawOutcome::Written::result ? boost::json::parse(outcome.result_json).as_object()
                                                              : boost::json::object{};
    };
    const auto put = call(**a, R"({"op":"put","collection":"tasks","key":"16","value":{"title":"pay rent"}})");
    const auto read = call(**b, R"({"op":"get","collection":"tasks","key":"16"})");
    ASSERT_EQ(read.at("found"), true);
    EXPECT_EQ(read.at("record").at("value").at("title"), "pay rent");
    EXPECT_EQ(read.at("record").at("version"), put.at("version"));
    std::set<std::int64_t> ids;
    for (int i = 0; i < 6; ++i)
        ids.insert(call(i % 2 ? **a : **b, R"({"op":"next_id","collection":"tasks"})").at("id").as_int64());
    EXPECT_EQ(ids, (std::set<std::int64_t>{1, 2, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace skillhost::plugin::testing
