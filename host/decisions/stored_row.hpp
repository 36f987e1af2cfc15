// How the durable queues (approvals, elicitations) store values in a database row: times as unix
// milliseconds, JSON as text, an empty text as NULL, and random record ids.
#pragma once

#include "base/utc_time.hpp"
#include "db/backend_connection.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::decisions {

std::int64_t to_ms(TimePoint time);
// A stored time far outside what the clock holds (a hand-edited or foreign row) is clamped.
TimePoint from_ms(std::int64_t ms);
// The JSON stored as text; null for an empty text, the text itself when it is not JSON.
boost::json::value parse_stored_json(const std::string& text);
db::SqlValue text_or_null(std::string_view text);
// A queue's listing: `select` (which ends in a WHERE condition) narrowed to one user and some states (none: all), newest first, at
// most `limit` rows (0: all); the values to bind go to `params`.
std::string listing_sql(std::string select, const std::optional<std::string>& user_id,
                        const std::vector<std::string>& states, std::size_t limit, std::vector<db::SqlValue>& params);
// `prefix` + 16 random hex digits ("apr-", "eli-").
std::string new_record_id(std::string_view prefix);

}  // namespace skillhost::decisions
