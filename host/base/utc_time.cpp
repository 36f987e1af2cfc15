#include "base/utc_time.hpp"
#include "base/error_codes.hpp"

#include "base/duration_text.hpp"

#include <cstdio>
#include <ctime>

namespace skillhost {

namespace {

std::tm utc_fields(TimePoint time, int& millis) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
    const long long seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
    millis = static_cast<int>(ms - seconds * 1000);
    const std::time_t t = static_cast<std::time_t>(seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    return tm;
}

}  // namespace

namespace {

// Writes `value` as `width` decimal digits ending just before `end`.
void put_digits(char* end, int width, int value) {
    for (int i = 0; i < width; ++i, value /= 10) *--end = static_cast<char>('0' + value % 10);
}

// "YYYY-MM-DD" into out[0..10), digit by digit: snprintf's format parsing was a visible part of
// every audit record's cost.
void put_date(char* out, const std::tm& tm) {
    put_digits(out + 4, 4, tm.tm_year + 1900);
    out[4] = '-';
    put_digits(out + 7, 2, tm.tm_mon + 1);
    out[7] = '-';
    put_digits(out + 10, 2, tm.tm_mday);
}

}  // namespace

std::string format_utc_timestamp(TimePoint time) {
    int millis = 0;
    const std::tm tm = utc_fields(time, millis);
    if (tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                      tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
        return buffer;
    }
    std::string out(24, 'T');
    put_date(out.data(), tm);
    put_digits(out.data() + 13, 2, tm.tm_hour);
    out[13] = ':';
    put_digits(out.data() + 16, 2, tm.tm_min);
    out[16] = ':';
    put_digits(out.data() + 19, 2, tm.tm_sec);
    out[19] = '.';
    put_digits(out.data() + 23, 3, millis);
    out[23] = 'Z';
    return out;
}

std::string format_utc_date(TimePoint time) {
    int millis = 0;
    const std::tm tm = utc_fields(time, millis);
    if (tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
        return buffer;
    }
    std::string out(10, '-');
    put_date(out.data(), tm);
    return out;
}

Result<TimePoint> parse_time_or_age(std::string_view text, TimePoint now) {
    if (auto age = parse_duration_text(text)) return now - *age;
    const std::string s(text);
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, millis = 0;
    int consumed = 0;
    bool ok = false;
    if (std::sscanf(s.c_str(), "%4d-%2d-%2d%n", &year, &month, &day, &consumed) == 3) {
        std::string_view rest = text.substr(static_cast<std::size_t>(consumed));
        if (rest.empty()) {
            ok = true;
        } else if (rest.front() == 'T' || rest.front() == ' ') {
            const std::string time_part(rest.substr(1));
            int used = 0;
            if (std::sscanf(time_part.c_str(), "%2d:%2d%n", &hour, &minute, &used) == 2) {
                std::string_view tail = std::string_view(time_part).substr(static_cast<std::size_t>(used));
                if (!tail.empty() && tail.front() == ':') {
                    int more = 0;
                    const std::string sec(tail.substr(1));
                    if (std::sscanf(sec.c_str(), "%2d%n", &second, &more) == 1) {
                        tail = std::string_view(tail).substr(1 + static_cast<std::size_t>(more));
                        if (!tail.empty() && tail.front() == '.') {
                            std::size_t digits = 1;
                            int scale = 100;
                            while (digits < tail.size() && tail[digits] >= '0' && tail[digits] <= '9') {
                                millis += (tail[digits] - '0') * scale;
                                scale /= 10;
                                ++digits;
                            }
                            tail.remove_prefix(digits);
                        }
                    } else {
                        tail = "?";
                    }
                }
                ok = tail.empty() || tail == "Z";
            }
        }
    }
    ok = ok && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 60;
    if (!ok) {
        Error error{errors::kInvalidTime,
                    "`" + s +
                        "` is not a time; use a UTC date like 2026-11-21, a date and time like "
                        "2026-11-21T12:30:00Z, or an age like 15m, 2h or 7d",
                    {},
                    {}};
        error.details["value"] = s;
        return error;
    }
    std::tm tm{};
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    tm.tm_sec = second;
    return TimePoint(std::chrono::seconds(timegm(&tm))) + std::chrono::milliseconds(millis);
}

}  // namespace skillhost
