#include "decisions/stored_row.hpp"

#include <boost/json/parse.hpp>
#include <openssl/rand.h>

#include <algorithm>
#include <chrono>
#include <random>

namespace skillhost::decisions {

std::int64_t to_ms(TimePoint time) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

// Clamped, not overflowed: the clock counts nanoseconds, about 292 years either side of 1970.
TimePoint from_ms(std::int64_t ms) {
    constexpr std::int64_t limit =
        std::chrono::duration_cast<std::chrono::milliseconds>(TimePoint::duration::max()).count() - 1;
    return TimePoint(std::chrono::milliseconds(std::clamp<std::int64_t>(ms, -limit, limit)));
}

boost::json::value parse_stored_json(const std::string& text) {
    if (text.empty()) return nullptr;
    boost::system::error_code ec;
    auto value = boost::json::parse(text, ec);
    if (ec) return boost::json::value(text);  // keep what was stored rather than lose it
    return value;
}

db::SqlValue text_or_null(std::string_view text) {
    if (text.empty()) return std::monostate{};
    return std::string(text);
}

std::string listing_sql(std::string select, const std::optional<std::string>& user_id,
                        const std::vector<std::string>& states, std::size_t limit, std::vector<db::SqlValue>& params) {
    std::string sql = std::move(select);
    if (user_id) {
        sql += " AND user_id = ?";
        params.emplace_back(*user_id);
    }
    if (!states.empty()) {
        sql += " AND state IN (";
        for (std::size_t i = 0; i < states.size(); ++i) {
            sql += i == 0 ? "?" : ", ?";
            params.emplace_back(states[i]);
        }
        sql += ")";
    }
    sql += " ORDER BY requested_at_ms DESC, id";
    if (limit > 0) sql += " LIMIT " + std::to_string(limit);
    return sql;
}

std::string new_record_id(std::string_view prefix) {
    unsigned char bytes[8];
    if (RAND_bytes(bytes, sizeof bytes) != 1) {
        // The id only needs to be unique, not secret; fall back to the OS's random device.
        std::random_device device;
        for (auto& b : bytes) b = static_cast<unsigned char>(device());
    }
    static constexpr char hex[] = "0123456789abcdef";
    std::string id(prefix);
    for (unsigned char b : bytes) {
        id.push_back(hex[b >> 4]);
        id.push_back(hex[b & 0x0f]);
    }
    return id;
}

}  // namespace skillhost::decisions
