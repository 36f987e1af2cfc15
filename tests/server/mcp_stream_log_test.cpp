// McpStreamLog in-process: event ids, the priming event, replay after Last-Event-ID, and its bounds.
#include "server/mcp_stream_log.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace skillhost::server {
namespace {

using namespace std::chrono_literals;

std::vector<StreamEvent> drain(EventChannel& channel) {
    std::vector<StreamEvent> out;
    while (auto event = channel.next(0ms)) out.push_back(*event);
    return out;
}

TEST(McpStreamLog, AStreamStartsWithAPrimingEventAndNumbersItsEvents) {
    McpStreamLog log;
    auto channel = std::make_shared<EventChannel>();
    const auto stream = log.open(channel);
    log.push(stream, "message", "{\"a\":1}", false);
    log.push(stream, "message", "{\"b\":2}", true);
    auto events = drain(*channel);
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].id, std::to_string(stream) + "-0");
    EXPECT_TRUE(events[0].data.empty());
    EXPECT_EQ(events[0].name, "priming");  // not a `message`: clients parse those as JSON-RPC
    EXPECT_EQ(events[0].retry, McpStreamLimits{}.retry);
    EXPECT_EQ(events[1].id, std::to_string(stream) + "-1");
    EXPECT_EQ(events[2].id, std::to_string(stream) + "-2");
    EXPECT_TRUE(channel->ended());
    EXPECT_NE(log.open(std::make_shared<EventChannel>()), stream);  // ids stay unique in the session
}

TEST(McpStreamLog, ResumingReplaysWhatFollowedTheIdThenContinuesOnTheNewChannel) {
    McpStreamLog log;
    auto first = std::make_shared<EventChannel>();
    const auto stream = log.open(first);
    log.push(stream, "message", "one", false);
    log.push(stream, "message", "two", false);
    auto second = std::make_shared<EventChannel>();
    auto resumed = log.resume(std::to_string(stream) + "-1", second);
    ASSERT_TRUE(resumed) << resumed.error().message;
    EXPECT_TRUE(first->closed());  // the old connection's stream ends
    log.push(stream, "message", "three", true);
    auto events = drain(*second);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].data, "two");
    EXPECT_EQ(events[1].data, "three");
    EXPECT_TRUE(second->ended());

    // A stream that ended: its replay, then the end.
    auto third = std::make_shared<EventChannel>();
    ASSERT_TRUE(log.resume(std::to_string(stream) + "-2", third));
    EXPECT_EQ(drain(*third).size(), 1u);
    EXPECT_TRUE(third->ended());
}

TEST(McpStreamLog, MalformedUnknownAndDroppedIdsAreClearErrors) {
    McpStreamLimits limits;
    limits.events_per_stream = 4;
    limits.finished_streams = 2;
    McpStreamLog log(limits);
    auto channel = std::make_shared<EventChannel>();
    const auto stream = log.open(channel);
    for (int i = 0; i < 10; ++i) log.push(stream, "message", std::to_string(i), false);
    const std::string s = std::to_string(stream);
    for (const std::string& bad :
         std::vector<std::string>{"", "x", "3", "-1", "1-", "1-x", "99999999999999999999999-1", std::string(5000, '7')})
        EXPECT_EQ(log.resume(bad, std::make_shared<EventChannel>()).error().code, "MCP_BAD_EVENT_ID") << bad;
    EXPECT_EQ(log.resume("999-0", std::make_shared<EventChannel>()).error().code, "MCP_EVENTS_GONE");
    EXPECT_EQ(log.resume(s + "-11", std::make_shared<EventChannel>()).error().code, "MCP_EVENTS_GONE");
    auto dropped = log.resume(s + "-2", std::make_shared<EventChannel>());  // events 3..6 were dropped
    ASSERT_FALSE(dropped);
    EXPECT_EQ(dropped.error().code, "MCP_EVENTS_GONE");
    EXPECT_NE(dropped.error().message.find("keeps its last 4"), std::string::npos) << dropped.error().message;
    auto kept = std::make_shared<EventChannel>();
    ASSERT_TRUE(log.resume(s + "-6", kept));  // 7, 8, 9, 10 are kept
    EXPECT_EQ(drain(*kept).size(), 4u);

    // Finished streams beyond finished_streams are forgotten, oldest first.
    log.finish(stream);
    for (int i = 0; i < 2; ++i) log.finish(log.open(std::make_shared<EventChannel>()));
    EXPECT_EQ(log.resume(s + "-10", std::make_shared<EventChannel>()).error().code, "MCP_EVENTS_GONE");
}

}  // namespace
}  // namespace skillhost::server
