// The event-stream reader of the Streamable HTTP transport: every line ending, events split across
// reads at any byte, comments, ids and retry, and the bound on an event's size.
#include "upstream/sse_parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace skillhost::upstream {
namespace {

struct Collected {
    std::vector<SseEvent> events;
    SseParser parser;
    explicit Collected(std::size_t limit = 1024)
        : parser(limit, [this](SseEvent event) { events.push_back(std::move(event)); }) {}
};

TEST(SseParser, ReadsEventsWithEveryLineEndingAndSkipsComments) {
    Collected c;
    EXPECT_TRUE(c.parser.feed(": keep-alive\n\ndata: one\n\ndata: two\r\n\r\nevent: note\rdata: three\r\r"));
    ASSERT_EQ(c.events.size(), 3u);
    EXPECT_EQ(c.events[0].data, "one");
    EXPECT_EQ(c.events[0].event, "message");
    EXPECT_EQ(c.events[1].data, "two");
    EXPECT_EQ(c.events[2].data, "three");
    EXPECT_EQ(c.events[2].event, "note");
}

TEST(SseParser, AnEventSplitAtAnyByteIsTheSameEvent) {
    const std::string stream = "id: 7\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n";
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
        Collected c;
        c.parser.feed(stream.substr(0, cut));
        c.parser.feed(stream.substr(cut));
        ASSERT_EQ(c.events.size(), 1u) << "cut at " << cut;
        EXPECT_EQ(c.events[0].data, "{\"a\":\n1}");
        EXPECT_EQ(c.events[0].id, "7");
    }
}

TEST(SseParser, KeepsTheLastIdAndRetryAndSkipsEventsWithoutData) {
    Collected c;
    c.parser.feed("id: e-1\nretry: 500\n\nretry: soon\n\n");
    EXPECT_TRUE(c.events.empty());
    EXPECT_EQ(c.parser.last_event_id(), "e-1");
    ASSERT_TRUE(c.parser.retry_ms());
    EXPECT_EQ(*c.parser.retry_ms(), 500u) << "a retry that is not digits is ignored";
}

TEST(SseParser, AnEventOverTheLimitStopsTheParserAndKeepsNothingOfIt) {
    Collected c(64);
    EXPECT_TRUE(c.parser.feed("data: small\n\n"));
    EXPECT_FALSE(c.parser.feed("data: " + std::string(100, 'x')));
    EXPECT_TRUE(c.parser.oversized());
    EXPECT_FALSE(c.parser.feed("\n\ndata: later\n\n")) << "nothing is read after the limit";
    ASSERT_EQ(c.events.size(), 1u);
    EXPECT_FALSE(c.parser.feed(std::string(10, '\n')));
}

TEST(SseParser, ManyDataLinesCountTowardsTheLimitTogether) {
    Collected c(64);
    std::string stream;
    for (int i = 0; i < 20; ++i) stream += "data: 12345\n";
    EXPECT_FALSE(c.parser.feed(stream + "\n"));
    EXPECT_TRUE(c.events.empty());
}

}  // namespace
}  // namespace skillhost::upstream
