// Timestamps as the audit log and approval records write them, and the times users type for
// `audit tail --since`.
#pragma once

#include "base/error.hpp"

#include <chrono>
#include <string>
#include <string_view>

namespace skillhost {

using TimePoint = std::chrono::system_clock::time_point;

// "2026-11-21T12:35:15.123Z" — fixed width, so these strings sort like the times they stand for.
std::string format_utc_timestamp(TimePoint time);
// "2026-11-21"
std::string format_utc_date(TimePoint time);

// Accepts "2026-11-21", "2026-11-21T12:35", "2026-11-21T12:35:15[.123][Z]" (UTC) or a duration
// back from `now` ("90s", "15m", "2h", "7d"). INVALID_TIME otherwise.
Result<TimePoint> parse_time_or_age(std::string_view text, TimePoint now);

}  // namespace skillhost
