// Instances wake each other: an event appended to a run's log on one connection (another
// instance) reaches a listener as the bare run id, and the listener re-reads the log from there.
#include "db/postgres_listener.hpp"
#include "store/run_event_log.hpp"
#include "support/postgres_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace skillhost::store {
namespace {

using namespace std::chrono_literals;

// Waits for notifications until one names `run_id`, at most a minute (far beyond any delivery).
bool notified_of(db::PgListener& listener, std::string_view run_id) {
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < give_up) {
        auto received = listener.wait(1s);
        if (!received) return false;
        for (const auto& note : *received)
            if (note.channel == db::run_events_channel && note.payload == run_id) return true;
    }
    return false;
}

TEST(PostgresRunEventNotifications, AnAppendOnOneInstanceWakesAListenerOnAnotherWithOnlyTheRunId) {
    SKILLHOST_POSTGRES_DATABASE(url);
    auto writer = RunEventLog::open(db::StorageLocation::postgres(url));
    auto reader = RunEventLog::open(db::StorageLocation::postgres(url));
    ASSERT_TRUE(writer.ok() && reader.ok());
    auto listener = db::PgListener::open(url, {std::string(db::run_events_channel)});
    ASSERT_TRUE(listener.ok()) << listener.error().message;

    ASSERT_TRUE((*writer)->append("run-elsewhere", "thought", R"({"text":"looking"})").ok());
    ASSERT_TRUE(notified_of(**listener, "run-elsewhere"));
    // The notification says which run changed, not what: the listener reads the log itself.
    auto events = (*reader)->read("run-elsewhere", 0);
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), 1u);
    EXPECT_EQ(events->front().payload, R"({"text":"looking"})");

    ASSERT_TRUE((*writer)->append("run-elsewhere", "completion", R"({"answer":"done"})").ok());
    ASSERT_TRUE(notified_of(**listener, "run-elsewhere"));
    auto later = (*reader)->read("run-elsewhere", events->back().seq);
    ASSERT_TRUE(later.ok());
    ASSERT_EQ(later->size(), 1u);
    EXPECT_EQ(later->front().kind, "completion");
}

TEST(PostgresRunEventNotifications, WakeEndsAWaitFromAnotherThreadWithNothing) {
    SKILLHOST_POSTGRES_DATABASE(url);
    auto listener = db::PgListener::open(url, {std::string(db::run_events_channel)});
    ASSERT_TRUE(listener.ok()) << listener.error().message;
    std::thread waker([&] { (*listener)->wake(); });
    auto received = (*listener)->wait(10min);  // returns at the wake-up, long before this
    waker.join();
    ASSERT_TRUE(received.ok()) << received.error().message;
    EXPECT_TRUE(received->empty());
}

TEST(PostgresRunEventNotifications, AChannelNameThatIsNoIdentifierIsRefusedBeforeConnecting) {
    auto refused = db::PgListener::open("host=/nonexistent", {"runs; DROP TABLE runs"});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "INVALID_CHANNEL");
}

}  // namespace
}  // namespace skillhost::store
