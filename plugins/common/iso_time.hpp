// ISO-8601 timestamps for the built-in plugins: parsing, formatting and local calendar arithmetic.
// Standard library + POSIX only, so plugins stay free of host code.
#pragma once

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost_builtin {

struct CivilTime {
    int year = 1970;
    int month = 1;  // 1..12
    int day = 1;    // 1..31
    int hour = 0;
    int minute = 0;
    int second = 0;
};

// Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's algorithm).
inline std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

inline CivilTime civil_from_unix(std::int64_t unix_seconds) {
    std::int64_t days = unix_seconds >= 0 ? unix_seconds / 86400 : (unix_seconds - 86399) / 86400;
    std::int64_t secs = unix_seconds - days * 86400;
    days += 719468;
    const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    const unsigned doe = static_cast<unsigned>(days - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    CivilTime c;
    c.year = static_cast<int>(static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2));
    c.month = static_cast<int>(m);
    c.day = static_cast<int>(d);
    c.hour = static_cast<int>(secs / 3600);
    c.minute = static_cast<int>(secs / 60 % 60);
    c.second = static_cast<int>(secs % 60);
    return c;
}

inline int days_in_month(int year, int month) {
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[month - 1];
}

// The zone that "local time" means for a call: either a fixed UTC offset (taken from an injected
// `now`, so results do not depend on the machine's TZ) or the process's local zone.
class LocalZone {
public:
    static LocalZone system() { return LocalZone(std::nullopt); }
    static LocalZone fixed(int offset_seconds) { return LocalZone(offset_seconds); }

    int offset_at(std::int64_t unix_seconds) const {
        if (fixed_offset_) return *fixed_offset_;
        std::time_t t = static_cast<std::time_t>(unix_seconds);
        std::tm tm{};
        localtime_r(&t, &tm);
        return static_cast<int>(tm.tm_gmtoff);
    }
    CivilTime civil(std::int64_t unix_seconds) const { return civil_from_unix(unix_seconds + offset_at(unix_seconds)); }
    // Local wall-clock time -> unix seconds. Fields may be out of range (day 0, month 13): they
    // are normalised, which is what calendar arithmetic ("yesterday", "last month") relies on.
    std::int64_t to_unix(int year, int month, int day, int hour = 0, int minute = 0, int second = 0) const {
        int months = month - 1;
        int carry = months >= 0 ? months / 12 : -((-months + 11) / 12);
        int y = year + carry;
        int m = months - carry * 12 + 1;
        std::int64_t local = days_from_civil(y, static_cast<unsigned>(m), 1) * 86400 +
                             static_cast<std::int64_t>(day - 1) * 86400 + hour * 3600 + minute * 60 + second;
        if (fixed_offset_) return local - *fixed_offset_;
        std::tm tm{};
        CivilTime c = civil_from_unix(local);
        tm.tm_year = c.year - 1900;
        tm.tm_mon = c.month - 1;
        tm.tm_mday = c.day;
        tm.tm_hour = c.hour;
        tm.tm_min = c.minute;
        tm.tm_sec = c.second;
        tm.tm_isdst = -1;
        return static_cast<std::int64_t>(std::mktime(&tm));
    }
    bool is_fixed() const { return fixed_offset_.has_value(); }

private:
    explicit LocalZone(std::optional<int> offset) : fixed_offset_(offset) {}
    std::optional<int> fixed_offset_;
};

struct ParsedTime {
    std::int64_t unix_seconds = 0;
    bool date_only = false;     // "2026-11-21": midnight local time
    std::optional<int> offset;  // the offset written in the text, if any (seconds east of UTC)
};

// Accepts YYYY-MM-DD, and YYYY-MM-DDTHH:MM[:SS[.fraction]] with an optional Z or ±HH:MM / ±HHMM
// (a space may replace the T). Times without an offset are local to `zone`.
inline std::optional<ParsedTime> parse_iso8601(std::string_view s, const LocalZone& zone) {
    std::size_t pos = 0;
    auto digits = [&](int count, int& out) {
        if (pos + static_cast<std::size_t>(count) > s.size()) return false;
        int v = 0;
        for (int i = 0; i < count; ++i) {
            char c = s[pos + static_cast<std::size_t>(i)];
            if (c < '0' || c > '9') return false;
            v = v * 10 + (c - '0');
        }
        pos += static_cast<std::size_t>(count);
        out = v;
        return true;
    };
    auto expect = [&](char c) {
        if (pos < s.size() && s[pos] == c) {
            ++pos;
            return true;
        }
        return false;
    };
    CivilTime c;
    if (!digits(4, c.year) || !expect('-') || !digits(2, c.month) || !expect('-') || !digits(2, c.day))
        return std::nullopt;
    if (c.month < 1 || c.month > 12 || c.day < 1 || c.day > days_in_month(c.year, c.month)) return std::nullopt;
    ParsedTime out;
    if (pos == s.size()) {
        out.date_only = true;
        out.unix_seconds = zone.to_unix(c.year, c.month, c.day);
        return out;
    }
    if (!expect('T') && !expect('t') && !expect(' ')) return std::nullopt;
    if (!digits(2, c.hour) || !expect(':') || !digits(2, c.minute)) return std::nullopt;
    if (expect(':')) {
        if (!digits(2, c.second)) return std::nullopt;
        if (expect('.') || expect(',')) {
            std::size_t start = pos;
            while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
            if (pos == start) return std::nullopt;
        }
    }
    if (c.hour > 23 || c.minute > 59 || c.second > 60) return std::nullopt;
    if (c.second == 60) c.second = 59;  // leap second: keep within the minute
    if (pos < s.size()) {
        if (expect('Z') || expect('z')) {
            out.offset = 0;
        } else {
            int sign = 0;
            if (expect('+'))
                sign = 1;
            else if (expect('-'))
                sign = -1;
            else
                return std::nullopt;
            int oh = 0, om = 0;
            if (!digits(2, oh)) return std::nullopt;
            expect(':');
            if (!digits(2, om) || oh > 23 || om > 59) return std::nullopt;
            out.offset = sign * (oh * 3600 + om * 60);
        }
        if (pos != s.size()) return std::nullopt;
    }
    if (out.offset) {
        out.unix_seconds =
            days_from_civil(c.year, static_cast<unsigned>(c.month), static_cast<unsigned>(c.day)) * 86400 +
            c.hour * 3600 + c.minute * 60 + c.second - *out.offset;
    } else {
        out.unix_seconds = zone.to_unix(c.year, c.month, c.day, c.hour, c.minute, c.second);
    }
    return out;
}

// "2026-11-21T14:05:00+01:00" (or "...Z" for offset 0).
inline std::string format_iso8601(std::int64_t unix_seconds, int offset_seconds) {
    CivilTime c = civil_from_unix(unix_seconds + offset_seconds);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", c.year, c.month, c.day, c.hour, c.minute, c.second);
    std::string out = buf;
    if (offset_seconds == 0) return out + "Z";
    int a = offset_seconds < 0 ? -offset_seconds : offset_seconds;
    std::snprintf(buf, sizeof buf, "%c%02d:%02d", offset_seconds < 0 ? '-' : '+', a / 3600, a / 60 % 60);
    return out + buf;
}

inline std::string format_iso8601_local(std::int64_t unix_seconds, const LocalZone& zone) {
    return format_iso8601(unix_seconds, zone.offset_at(unix_seconds));
}

inline std::string format_date(const CivilTime& c) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", c.year, c.month, c.day);
    return buf;
}

inline std::int64_t unix_now() {
    return static_cast<std::int64_t>(std::time(nullptr));
}

}  // namespace skillhost_builtin
