// `skillhost serve` with isolation.max_tasks (pids.max or the host's count): a skill starting threads without
// end is killed at the limit with a structured error naming it, while the daemon keeps serving
// other calls (the same plugin's and a healthy one's).
#include "daemon_process.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

namespace skillhost::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(ThreadLimitDaemon, AThreadBombEndsInAStructuredErrorAndTheDaemonKeepsServing) {
    DaemonSetup setup;
    setup.extra_yaml = "isolation:\n  max_tasks: 64\n  kill_grace_ms: 300\n  restart_backoff_ms: 1\n";
    DaemonProcess d(setup);
    const fs::path source = fs::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "hostile";
    for (const auto& entry : fs::directory_iterator(source))
        if (entry.is_regular_file())
            fs::copy_file(entry.path(), d.plugins_dir() / entry.path().filename(),
                          fs::copy_options::overwrite_existing);
    d.start();

    // A healthy isolated plugin keeps answering while the bomb goes off.
    std::atomic<bool> stop{false};
    std::atomic<int> healthy_ok{0}, healthy_failed{0};
    std::jthread healthy([&] {
        while (!stop.load()) {
            auto r = d.post("/v1/skills/echo/call", R"({"args":{"text":"hi"}})", "alice");
            (r.status == 200 && r.body.find("\"ok\":true") != std::string::npos ? healthy_ok : healthy_failed)++;
        }
    });

    auto bomb = d.post("/v1/skills/thread_bomb/call", R"({"args":{}})", "owner");
    ASSERT_EQ(bomb.status, 200) << bomb.body;
    const auto body = bomb.json().as_object();
    EXPECT_FALSE(body.at("ok").as_bool());
    const auto& error = body.at("error").as_object();
    EXPECT_EQ(error.at("code").as_string(), "PLUGIN_KILLED") << bomb.body;
    EXPECT_EQ(error.at("details").at("limit").as_string(), "max_tasks") << bomb.body;
    EXPECT_THAT(std::string(error.at("message").as_string()), HasSubstr("over its limit of 64"));

    // The same plugin answers again (a new runner), and so does everything else.
    auto again = d.post("/v1/skills/ok/call", R"({"args":{}})", "owner");
    EXPECT_EQ(again.status, 200);
    EXPECT_THAT(again.body, HasSubstr("\"ok\":true"));
    stop.store(true);
    healthy.join();
    EXPECT_GT(healthy_ok.load(), 0);
    EXPECT_EQ(healthy_failed.load(), 0);
    EXPECT_EQ(d.get("/healthz", "").status, 200);
}

}  // namespace
}  // namespace skillhost::testing
