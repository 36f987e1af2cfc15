// Turns "yesterday", "this morning", "last 3 days" or since/until timestamps into a half-open
// interval [since, until) of unix seconds, relative to a "now" in the caller's local time.
#pragma once

#include "../common/iso_time.hpp"

#include <skillhost/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost_builtin::memory {

// "Now" for one call, and the zone that "today" and "this morning" are measured in. An injected
// `now` argument (ISO-8601 with offset) fixes both, so queries are reproducible in tests.
struct Clock {
    std::int64_t now = 0;
    LocalZone zone = LocalZone::system();
};

// From the optional `now` argument; INVALID_TIMESTAMP when it does not parse.
Clock clock_from_args(const skillhost::Json& args);

struct TimeWindow {
    std::optional<std::int64_t> since;  // inclusive
    std::optional<std::int64_t> until;  // exclusive
    std::string description;            // the phrase or bounds it came from

    skillhost::Json to_json(const Clock& clock) const;
};

// The phrases `when` understands, for error messages and documentation.
extern const char* const kWhenPhrases;

// Parses a `when` phrase. Throws SkillError INVALID_TIME_WINDOW listing the supported phrases.
TimeWindow window_from_phrase(std::string_view phrase, const Clock& clock);

// Combines `when`, `since` and `until` from the arguments (all optional; they intersect).
TimeWindow window_from_args(const skillhost::Json& args, const Clock& clock);

// Parses an ISO-8601 timestamp argument; INVALID_TIMESTAMP naming `field` on failure.
std::int64_t timestamp_arg(std::string_view field, std::string_view text, const Clock& clock);

}  // namespace skillhost_builtin::memory
