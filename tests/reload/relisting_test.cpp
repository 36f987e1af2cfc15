// A foreign MCP server that says its tools changed (notifications/tools/list_changed) is listed
// again and the catalog follows without a reload: an added tool joins, a dropped one leaves. The
// listings are bounded (a flood of notifications is a few listings) and one server's listing that
// never ends holds up no other server and none of its own calls.
#include "reload/live_catalog.hpp"
#include "reload/relist_schedule.hpp"
#include "reload_test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <sstream>

namespace skillhost::reload {
namespace {

using namespace std::chrono_literals;
using test::TempDir;

std::size_t count_of(const std::string& text, std::string_view what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

std::string read_all(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(RelistSchedule, RequestsWhileAListingRunsOrWaitsAreOneMoreListingAtLeastTheGapApart) {
    std::atomic<int> listings{0};
    std::mutex mutex;
    std::vector<std::chrono::steady_clock::time_point> started;
    RelistSchedule schedule(200ms, [&](const std::string& server) {
        EXPECT_EQ(server, "flood");
        {
            std::lock_guard lock(mutex);
            started.push_back(std::chrono::steady_clock::now());
        }
        std::this_thread::sleep_for(50ms);
        ++listings;
    });
    schedule.request("flood");
    ASSERT_TRUE(test::wait_until(
        [&] {
            std::lock_guard lock(mutex);
            return !started.empty();
        },
        5s));
    for (int i = 0; i < 1000; ++i) schedule.request("flood");  // while the first listing runs
    ASSERT_TRUE(test::wait_until([&] { return listings.load() >= 2; }, 5s));
    std::this_thread::sleep_for(500ms);
    EXPECT_EQ(listings.load(), 2) << "every request during the first listing coalesced into one more";
    std::lock_guard lock(mutex);
    ASSERT_EQ(started.size(), 2u);
    // The schedule counts the gap from just before it calls the first listing, which notes its own
    // start a moment later: the second starts at least the gap after the first, give or take that.
    EXPECT_GE(started[1] - started[0], 190ms);
}

TEST(RelistSchedule, OneServersListingThatNeverEndsHoldsUpNoOther) {
    std::atomic<bool> release{false};
    std::atomic<int> others{0};
    RelistSchedule schedule(10ms, [&](const std::string& server) {
        if (server == "stuck") {
            while (!release.load()) std::this_thread::sleep_for(1ms);
            return;
        }
        ++others;
    });
    schedule.request("stuck");
    schedule.request("quick");
    EXPECT_TRUE(test::wait_until([&] { return others.load() == 1; }, 5s));
    release = true;
    schedule.stop();
    schedule.request("quick");  // after stop(): nothing starts
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(others.load(), 1);
}

class RelistingCatalogTest : public ::testing::Test {
protected:
    TempDir root{"skillhost-relisting"};
    std::filesystem::path plugins = root / "plugins";

    void SetUp() override { std::filesystem::create_directories(plugins); }

    void declare(const std::string& name, const std::string& args, const std::string& extra = "") {
        const auto server = test::fixture_dir("foreign_mcp") / "skillhost_fixture_mcp_server";
        std::ofstream(plugins / (name + ".yaml"))
            << "kind: mcp_server\nname: " << name << "\ntransport: stdio\ncommand: " << server.string()
            << "\nargs: " << args << "\ndefaults: {risk: low, min_trust: observe, requires_approval: false}\n"
            << extra;
    }

    LiveCatalogOptions options() {
        LiveCatalogOptions options;
        options.plugin_dirs = {plugins};
        options.loader.cache_dir = root / "cache";
        options.loader.isolation.sandbox = plugin::SandboxMode::off;  // the servers write logs beside us
        options.on_report = [this](const ReloadReport& report) {
            std::lock_guard lock(reports_mutex);
            reports.push_back(report);
        };
        return options;
    }

    plugin::RawOutcome call(const LiveCatalog& catalog, const std::string& skill) {
        auto snapshot = catalog.snapshot();
        const auto* entry = snapshot->find(skill);
        if (entry == nullptr) {
            ADD_FAILURE() << skill << " is not in the catalog";
            return {};
        }
        plugin::Call c;
        c.skill_id = skill;
        c.call_id = "call-" + skill;
        c.user_id = "alice";
        c.data_dir = root / "users" / "alice" / skill;
        return entry->plugin->invoke(c, R"({"message":"hi"})");
    }

    static bool has(const LiveCatalog& catalog, const std::string& skill) {
        return catalog.snapshot()->find(skill) != nullptr;
    }

    std::mutex reports_mutex;
    std::vector<ReloadReport> reports;
};

TEST_F(RelistingCatalogTest, AnAddedToolJoinsAndADroppedOneLeavesWithoutAReloadAndAFloodIsAFewListings) {
    const auto log = root / "flood.log";
    declare("flood", "[--log, \"" + log.string() + "\", --add-tool-after-call, \"500\"]");
    LiveCatalog catalog(options());
    catalog.rescan();
    ASSERT_TRUE(has(catalog, "flood__add"));
    ASSERT_FALSE(has(catalog, "flood__latecomer"));
    const auto version = catalog.version();

    auto first = call(catalog, "flood__echo");
    ASSERT_EQ(first.written, plugin::RawOutcome::Written::result) << first.error_message;
    ASSERT_TRUE(test::wait_until([&] { return has(catalog, "flood__latecomer"); }, 10s))
        << "the tool the server added never joined the catalog";
    EXPECT_FALSE(has(catalog, "flood__add")) << "the tool the server dropped left it";
    EXPECT_GT(catalog.version(), version);
    // The report follows the published snapshot (on_report runs after the swap): wait for it.
    ASSERT_TRUE(test::wait_until(
        [&] {
            std::lock_guard lock(reports_mutex);
            return !reports.empty() && reports.back().trigger == "list_changed";
        },
        10s))
        << "the relisting was never reported";
    {
        std::lock_guard lock(reports_mutex);
        ASSERT_EQ(reports.back().units.size(), 1u);
        EXPECT_EQ(reports.back().units[0].outcome, UnitOutcome::relisted);
    }
    // A new tool is refused until a person approves it: in memory, the pins have no one to ask.
    auto refused = call(catalog, "flood__latecomer");
    EXPECT_EQ(refused.error_code, "UPSTREAM_DEFINITION_CHANGED") << refused.error_message;
    auto echo = call(catalog, "flood__echo");
    EXPECT_EQ(echo.written, plugin::RawOutcome::Written::result) << echo.error_message;

    // 500 notifications: the listing at load, the instance's first, and about one a second after.
    std::this_thread::sleep_for(2500ms);
    const std::size_t listings = count_of(read_all(log), "\"tools/list\"");
    EXPECT_GE(listings, 3u);
    EXPECT_LE(listings, 5u) << read_all(log);
}

TEST_F(RelistingCatalogTest, AServerThatNeverAnswersItsListingHoldsUpNoOtherServerAndNoneOfItsCalls) {
    declare("stuck", "[--add-tool-after-call, \"1\", --hang-on-relist]", "limits: {startup_timeout_ms: 6000}\n");
    declare("quick", "[--add-tool-after-call, \"1\"]");
    LiveCatalog catalog(options());
    catalog.rescan();
    ASSERT_TRUE(has(catalog, "stuck__echo"));
    ASSERT_TRUE(has(catalog, "quick__echo"));

    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(call(catalog, "stuck__echo").written, plugin::RawOutcome::Written::result);
    ASSERT_EQ(call(catalog, "quick__echo").written, plugin::RawOutcome::Written::result);
    ASSERT_TRUE(test::wait_until([&] { return has(catalog, "quick__latecomer"); }, 5s));
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "quick waited for stuck's listing";
    // stuck's listing is still waiting for an answer, and its calls go on meanwhile.
    auto during = call(catalog, "stuck__echo");
    EXPECT_EQ(during.written, plugin::RawOutcome::Written::result) << during.error_message;
    EXPECT_FALSE(has(catalog, "stuck__latecomer"));
}

}  // namespace
}  // namespace skillhost::reload
