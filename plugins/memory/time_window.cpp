#include "time_window.hpp"

#include <skillhost/skill.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

namespace skillhost_builtin::memory {

using skillhost::Json;
using skillhost::SkillError;

const char* const kWhenPhrases =
    "today, yesterday, this morning, this afternoon, this evening, tonight, last night, this week, last week, "
    "this month, last month, this year, last year, last N days, last N hours, N days ago, or a date YYYY-MM-DD";

namespace {

std::vector<std::string> words_of(std::string_view phrase) {
    std::string lowered;
    for (char c : phrase) lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::istringstream in(lowered);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

std::optional<int> small_number(const std::string& word) {
    static const char* names[] = {"zero", "one",   "two",   "three", "four", "five",
                                  "six",  "seven", "eight", "nine",  "ten"};
    for (int i = 0; i <= 10; ++i)
        if (word == names[i]) return i;
    if (word.empty() || word.size() > 5 || !std::all_of(word.begin(), word.end(), ::isdigit)) return std::nullopt;
    return std::stoi(word);
}

[[noreturn]] void invalid_window(std::string_view phrase) {
    throw SkillError("INVALID_TIME_WINDOW",
                     "'" + std::string(phrase) + "' is not a time window this skill understands; use one of: " +
                         kWhenPhrases + " — or give since/until as ISO-8601 timestamps",
                     Json::object({{"when", std::string(phrase)}, {"supported", kWhenPhrases}}));
}

// Monday = 0.
int weekday(const CivilTime& c) {
    std::int64_t days = days_from_civil(c.year, static_cast<unsigned>(c.month), static_cast<unsigned>(c.day));
    return static_cast<int>(((days + 3) % 7 + 7) % 7);
}

}  // namespace

Clock clock_from_args(const Json& args) {
    Clock clock;
    clock.now = unix_now();
    const Json* now = args.find("now");
    if (!now || now->is_null()) return clock;
    auto parsed = parse_iso8601(now->as_string(), LocalZone::system());
    if (!parsed)
        throw SkillError(
            "INVALID_TIMESTAMP",
            "now '" + now->as_string() + "' is not an ISO-8601 timestamp; write e.g. 2026-11-21T15:30:00+01:00",
            Json::object({{"field", "now"}, {"value", now->as_string()}}));
    clock.now = parsed->unix_seconds;
    if (parsed->offset) clock.zone = LocalZone::fixed(*parsed->offset);
    return clock;
}

Json TimeWindow::to_json(const Clock& clock) const {
    Json out = Json::object({{"description", description}});
    out["since"] = since ? Json(format_iso8601_local(*since, clock.zone)) : Json();
    out["until"] = until ? Json(format_iso8601_local(*until, clock.zone)) : Json();
    return out;
}

TimeWindow window_from_phrase(std::string_view phrase, const Clock& clock) {
    const std::vector<std::string> w = words_of(phrase);
    const LocalZone& z = clock.zone;
    const CivilTime today = z.civil(clock.now);
    auto day_start = [&](int offset_days) { return z.to_unix(today.year, today.month, today.day + offset_days); };
    auto at = [&](int offset_days, int hour) {
        return z.to_unix(today.year, today.month, today.day + offset_days, hour);
    };
    TimeWindow tw;
    tw.description = std::string(phrase);
    auto set = [&](std::int64_t s, std::int64_t u) {
        tw.since = s;
        tw.until = u;
        return tw;
    };
    const std::string joined = [&] {
        std::string j;
        for (const auto& x : w) j += (j.empty() ? "" : " ") + x;
        return j;
    }();

    if (joined == "today") return set(day_start(0), day_start(1));
    if (joined == "yesterday") return set(day_start(-1), day_start(0));
    if (joined == "this morning") return set(at(0, 5), at(0, 12));
    if (joined == "this afternoon") return set(at(0, 12), at(0, 17));
    if (joined == "this evening" || joined == "tonight") return set(at(0, 17), day_start(1));
    if (joined == "last night") return set(at(-1, 18), at(0, 6));
    if (joined == "this week" || joined == "last week") {
        int monday = -weekday(today);
        if (joined == "this week") return set(day_start(monday), day_start(monday + 7));
        return set(day_start(monday - 7), day_start(monday));
    }
    if (joined == "this month")
        return set(z.to_unix(today.year, today.month, 1), z.to_unix(today.year, today.month + 1, 1));
    if (joined == "last month")
        return set(z.to_unix(today.year, today.month - 1, 1), z.to_unix(today.year, today.month, 1));
    if (joined == "this year") return set(z.to_unix(today.year, 1, 1), z.to_unix(today.year + 1, 1, 1));
    if (joined == "last year") return set(z.to_unix(today.year - 1, 1, 1), z.to_unix(today.year, 1, 1));
    // "last 3 days" / "past 3 days": from midnight N days ago to the end of today.
    // "last 6 hours": the rolling N hours up to now.
    if (w.size() == 3 && (w[0] == "last" || w[0] == "past")) {
        auto n = small_number(w[1]);
        if (n && *n >= 1 && *n <= 3660 && (w[2] == "days" || w[2] == "day")) return set(day_start(-*n), day_start(1));
        if (n && *n >= 1 && *n <= 24 * 366 && (w[2] == "hours" || w[2] == "hour"))
            return set(clock.now - static_cast<std::int64_t>(*n) * 3600, clock.now + 1);
    }
    if (w.size() == 2 && (w[0] == "last" || w[0] == "past") && (w[1] == "day" || w[1] == "hour")) {
        if (w[1] == "day") return set(clock.now - 86400, clock.now + 1);
        return set(clock.now - 3600, clock.now + 1);
    }
    if (w.size() == 3 && (w[1] == "days" || w[1] == "day") && w[2] == "ago") {
        auto n = small_number(w[0]);
        if (n && *n <= 3660) return set(day_start(-*n), day_start(-*n + 1));
    }
    if (w.size() == 1) {
        auto date = parse_iso8601(w[0], z);
        if (date && date->date_only) return set(date->unix_seconds, date->unix_seconds + 86400);
    }
    invalid_window(phrase);
}

std::int64_t timestamp_arg(std::string_view field, std::string_view text, const Clock& clock) {
    auto parsed = parse_iso8601(text, clock.zone);
    if (!parsed)
        throw SkillError("INVALID_TIMESTAMP",
                         std::string(field) + " '" + std::string(text) +
                             "' is not an ISO-8601 timestamp; write YYYY-MM-DD or e.g. 2026-11-21T15:30:00+01:00",
                         Json::object({{"field", std::string(field)}, {"value", std::string(text)}}));
    return parsed->unix_seconds;
}

TimeWindow window_from_args(const Json& args, const Clock& clock) {
    TimeWindow tw;
    std::vector<std::string> parts;
    if (const Json* when = args.find("when"); when && !when->is_null() && !when->as_string().empty()) {
        tw = window_from_phrase(when->as_string(), clock);
        parts.push_back(tw.description);
    }
    if (const Json* since = args.find("since"); since && !since->is_null()) {
        std::int64_t s = timestamp_arg("since", since->as_string(), clock);
        tw.since = tw.since ? std::max(*tw.since, s) : s;
        parts.push_back("since " + since->as_string());
    }
    if (const Json* until = args.find("until"); until && !until->is_null()) {
        std::int64_t u = timestamp_arg("until", until->as_string(), clock);
        tw.until = tw.until ? std::min(*tw.until, u) : u;
        parts.push_back("until " + until->as_string());
    }
    if (tw.since && tw.until && *tw.since >= *tw.until && (args.contains("since") || args.contains("until")))
        throw SkillError("INVALID_TIME_WINDOW",
                         "the time window is empty: it starts at or after its end; check since, until and when",
                         Json::object({{"since", format_iso8601_local(*tw.since, clock.zone)},
                                       {"until", format_iso8601_local(*tw.until, clock.zone)}}));
    tw.description.clear();
    for (const auto& p : parts) tw.description += (tw.description.empty() ? "" : ", ") + p;
    if (tw.description.empty()) tw.description = "any time";
    return tw;
}

}  // namespace skillhost_builtin::memory
