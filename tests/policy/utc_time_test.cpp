#include "base/duration_text.hpp"
#include "base/utc_time.hpp"

#include <gtest/gtest.h>

namespace skillhost::policy {
namespace {

TEST(UtcTime, FormatsFixedWidthUtc) {
    const TimePoint t = TimePoint(std::chrono::milliseconds(1'763'728'515'123));
    EXPECT_EQ(format_utc_timestamp(t), "2025-11-21T12:35:15.123Z");
    EXPECT_EQ(format_utc_date(t), "2025-11-21");
}

TEST(UtcTime, ParsesDatesTimesAndAges) {
    const TimePoint now = *parse_time_or_age("2026-11-21T12:00:00Z", TimePoint{});
    EXPECT_EQ(format_utc_timestamp(now), "2026-11-21T12:00:00.000Z");
    EXPECT_EQ(format_utc_timestamp(*parse_time_or_age("2026-11-21", now)), "2026-11-21T00:00:00.000Z");
    EXPECT_EQ(format_utc_timestamp(*parse_time_or_age("2026-11-21T08:30", now)), "2026-11-21T08:30:00.000Z");
    EXPECT_EQ(format_utc_timestamp(*parse_time_or_age("2026-11-21T08:30:05.25Z", now)), "2026-11-21T08:30:05.250Z");
    EXPECT_EQ(format_utc_timestamp(*parse_time_or_age("15m", now)), "2026-11-21T11:45:00.000Z");
    EXPECT_EQ(format_utc_timestamp(*parse_time_or_age("2d", now)), "2026-11-19T12:00:00.000Z");
    for (const char* bad : {"yesterday", "2026-13-01", "2026-11-21T25:00", "15 minutes", "", "2026-11-21Tnoon"}) {
        auto parsed = parse_time_or_age(bad, now);
        ASSERT_FALSE(parsed.ok()) << bad;
        EXPECT_EQ(parsed.error().code, "INVALID_TIME");
    }
}

TEST(DurationText, ParsesAndFormatsUnits) {
    EXPECT_EQ(parse_duration_text("500ms"), std::chrono::milliseconds(500));
    EXPECT_EQ(parse_duration_text("24h"), std::chrono::hours(24));
    EXPECT_EQ(parse_duration_text("7d"), std::chrono::hours(168));
    EXPECT_EQ(parse_duration_text("0s"), std::nullopt);
    EXPECT_EQ(parse_duration_text("1.5h"), std::nullopt);
    EXPECT_EQ(parse_duration_text("h"), std::nullopt);
    EXPECT_EQ(format_duration_text(std::chrono::hours(24)), "1d");
    EXPECT_EQ(format_duration_text(std::chrono::minutes(90)), "90m");
    EXPECT_EQ(format_duration_text(std::chrono::milliseconds(1500)), "1500ms");
}

}  // namespace
}  // namespace skillhost::policy
