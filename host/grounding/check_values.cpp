// Numbers, counts, amounts, dates and times in an answer, against the observations.
#include "grounding/answer_under_check.hpp"
#include "grounding/claim_lexer.hpp"
#include "grounding/claim_vocabulary.hpp"

#include <algorithm>
#include <set>

namespace skillhost::grounding::detail {
namespace {

std::string upper(std::string text) {
    for (auto& c : text) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    return text;
}

// The value of a number as the observations write it ("480", "two"); -1 for other words.
std::int64_t number_value(std::string_view norm) {
    if (norm.empty() || norm.size() > 12) return -1;
    if (std::all_of(norm.begin(), norm.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        std::int64_t value = 0;
        for (char c : norm) value = value * 10 + (c - '0');
        return value;
    }
    return number_word(norm);
}

// Words that sit beside any number ("of", "more", "the"): a number beside one says nothing about
// which number the data has there.
bool is_function_word(std::string_view word) {
    static constexpr std::string_view words[] = {
        "about",         "after", "all",   "also",   "and",   "another", "any",    "are",    "around",  "at",
        "before",        "but",   "by",    "each",   "every", "for",     "from",   "had",    "has",     "have",
        "her",           "his",   "into",  "its",    "just",  "last",    "least",  "less",   "more",    "most",
        "not",           "off",   "once",  "only",   "other", "our",     "out",    "over",   "per",     "than",
        "that",          "the",   "their", "then",   "these", "those",   "this",   "under",  "until",   "was",
        "were",          "which", "with",  "within", "you",   "your",    "almost", "nearly", "exactly", "roughly",
        "approximately", "some",  "first", "next"};
    return std::find(std::begin(words), std::end(words), word) != std::end(words);
}

// The number as a word, for the small values answers spell out; empty above twenty.
std::string_view number_name(std::int64_t value) {
    static constexpr std::string_view names[] = {"zero",     "one",      "two",      "three",   "four",    "five",
                                                 "six",      "seven",    "eight",    "nine",    "ten",     "eleven",
                                                 "twelve",   "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                                                 "eighteen", "nineteen", "twenty"};
    return value >= 0 && value <= 20 ? names[value] : std::string_view();
}

// Units that make a number a quantity ("about 3 hours", "2 kg"): such a number is only what the
// observations say with that unit. Days and weeks are durations from today, checked against dates.
bool is_unit(std::string_view word) {
    static constexpr std::string_view units[] = {
        "hour", "hr",       "hrs", "minute",    "min",       "mins", "second", "sec",   "month", "year", "kg",
        "gram", "kilogram", "km",  "kilometre", "kilometer", "mile", "metre",  "meter", "litre", "liter"};
    return std::find(std::begin(units), std::end(units), word) != std::end(units);
}

const char* weekday_name(int d) {
    static constexpr const char* names[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                            "Thursday", "Friday", "Saturday"};
    return d >= 0 && d < 7 ? names[d] : "?";
}

class ValueCheck : ClaimCheck {
public:
    using ClaimCheck::ClaimCheck;
    void run() { check_values(); }

private:
    void check_values() {
        // Dates first: a weekday written with a date is checked against that date.
        for (std::size_t k = 0; k < values_.size(); ++k) {
            if (values_[k].kind == ClaimValue::Kind::date) check_date(k);
        }
        for (std::size_t k = 0; k < values_.size(); ++k) {
            const ClaimValue& v = values_[k];
            switch (v.kind) {
                case ClaimValue::Kind::number: check_number(v); break;
                case ClaimValue::Kind::ordinal:
                    if (!(literal(v.norm) || v.value <= static_cast<double>(f_.max_list) ||
                          v.value <= static_cast<double>(f_.max_lines) ||
                          (v.value <= 31 && f_.days_of_month.contains(static_cast<int>(v.value))))) {
                        report("number", span(v.first, v.last), "no list in the observations has that many items");
                    }
                    break;
                case ClaimValue::Kind::date: break;
                case ClaimValue::Kind::month:
                    if (!f_.months.contains(v.month) || (v.year && !literal(std::to_string(v.year)))) {
                        report("date", span(v.first, v.last), "no observation has a date in this month");
                    }
                    break;
                case ClaimValue::Kind::weekday:
                    if (!weekday_done_.contains(k) && !f_.weekdays.contains(v.weekday)) {
                        report("date", span(v.first, v.last), "no observed date falls on this weekday");
                    }
                    break;
                case ClaimValue::Kind::time: {
                    const bool ok = f_.minutes.contains(v.minutes) ||
                                    (v.twelve_hour_unknown && f_.minutes.contains((v.minutes + 720) % 1440));
                    if (!ok) report("time", span(v.first, v.last), "no observation has this time");
                    break;
                }
            }
        }
    }

    void check_date(std::size_t k) {
        const ClaimValue& v = values_[k];
        const auto known = [&](int m, int d) {
            return v.year ? f_.dates.contains({v.year, m, d}) : f_.month_days.contains({m, d});
        };
        const bool first_reading = known(v.month, v.day);
        const bool second_reading = v.alt_month && known(v.alt_month, v.alt_day);
        if (!first_reading && !second_reading) {
            report("date", span(v.first, v.last), "no observation has this date");
            return;
        }
        // A weekday written with the date must be that date's weekday.
        for (std::size_t w : {k - 1, k + 1}) {
            if (w >= values_.size() || values_[w].kind != ClaimValue::Kind::weekday) continue;
            const ClaimValue& day = values_[w];
            const std::size_t gap = day.first > v.last ? day.first - v.last : v.first - day.last;
            if (gap > 3) continue;
            weekday_done_.insert(w);
            const int m = first_reading ? v.month : v.alt_month, d = first_reading ? v.day : v.alt_day;
            std::set<int> actual;
            for (const auto& [y, mm, dd] : f_.dates) {
                if (mm == m && dd == d && (v.year == 0 || y == v.year)) actual.insert(weekday_of(y, m, d));
            }
            if (!actual.empty() && !actual.contains(day.weekday)) {
                report("date", span(std::min(day.first, v.first), std::max(day.last, v.last)),
                       std::string("that date is a ") + weekday_name(*actual.begin()));
            }
        }
    }

    struct CountContext {
        bool subset = false, generic = false, unknown_qualifier = false;
        int duration_days = 0;
        std::string noun;
        std::vector<std::string> qualifiers;
        std::vector<std::string> after;  // field values after the noun: "2 tasks are tagged finance"
    };

    CountContext count_context(const ClaimValue& v) const {
        CountContext c;
        const std::uint32_t clause = tokens_[v.last].clause;
        for (std::size_t j = v.last + 1, n = 0; j < tokens_.size() && n < 5; ++j, ++n) {
            const Token& t = tokens_[j];
            if (t.kind != Token::Kind::word || t.clause != clause) break;
            const std::string s = singular(t.norm);
            if (n == 0 && one_of(t.norm, {"of", "more", "other", "others", "remaining", "left", "additional", "further",
                                          "out", "extra", "else", "another", "among"})) {
                c.subset = true;
                break;
            }
            if (n == 0 && one_of(s, {"day", "week"})) {
                c.duration_days = s == "week" ? 7 : 1;
                break;
            }
            if (one_of(s, {"item", "thing", "entry", "one", "record", "result", "match", "line", "point"}) &&
                !f_.list_nouns.contains(s)) {
                c.generic = true;
                c.noun = s;
                break;
            }
            if (f_.list_nouns.contains(s)) {
                c.noun = s;
                for (std::size_t k = j + 1; k < tokens_.size() && k <= j + 5; ++k) {
                    const Token& next = tokens_[k];
                    if (next.kind != Token::Kind::word || next.clause != clause) break;
                    if (f_.group_values.contains(next.norm)) c.after.push_back(next.norm);
                    if (auto status = canonical_status(next.norm); !status.empty()) c.after.push_back(status);
                }
                break;
            }
            if (f_.group_values.contains(t.norm)) {
                c.qualifiers.push_back(t.norm);
                continue;
            }
            if (f_.group_values.contains(s)) {
                c.qualifiers.push_back(s);
                continue;
            }
            if (auto status = canonical_status(t.norm); !status.empty() && f_.group_values.contains(status)) {
                c.qualifiers.push_back(status);
                continue;
            }
            if (one_of(t.norm,
                       {"and", "or",  "but", "to",   "in",   "on",    "at",   "due", "for",   "with", "by",  "from",
                        "is",  "are", "was", "were", "that", "which", "this", "per", "times", "if",   "when"})) {
                break;
            }
            if (one_of(t.norm, {"your", "my", "the", "these", "those", "currently", "still", "total", "all", "active",
                                "just", "only", "current", "new"}) ||
                f_.field_keys.contains(t.norm) || f_.field_keys.contains(s)) {
                continue;
            }
            c.unknown_qualifier = true;
        }
        return c;
    }

    // The word beside a number, in the same clause: `side` -1 before it, 1 after it.
    const Token* beside(const ClaimValue& v, int side) const {
        if (side < 0 && v.first == 0) return nullptr;
        const std::size_t at = side < 0 ? v.first - 1 : v.last + 1;
        if (at >= tokens_.size()) return nullptr;
        const Token& t = tokens_[at];
        const bool separated = side < 0 ? tokens_[v.first].punct_before : t.punct_before;
        if (t.kind != Token::Kind::word || separated || t.clause != tokens_[v.last].clause) return nullptr;
        return &t;
    }

    // "Order three more lockboxes" where the data says "Order two more lockboxes": a word beside the
    // number is written beside numbers in the observations, never beside this one.
    bool altered_in_quote(const ClaimValue& v, std::int64_t value) {
        for (int side : {-1, 1}) {
            const Token* word = beside(v, side);
            if (!word || word->norm.size() < 3 || is_function_word(word->norm)) continue;
            bool same = false;
            std::string other;
            for (const auto& n : f_.neighbours(word->norm, -side)) {
                const std::int64_t observed = number_value(n);
                if (observed < 0) continue;
                if (observed == value) {
                    same = true;
                } else if (other.empty()) {
                    other = n;
                }
            }
            if (same || other.empty()) continue;
            const std::string said = side < 0 ? word->text + " " + other : other + " " + word->text;
            const std::size_t first = side < 0 ? v.first - 1 : v.first, last = side < 0 ? v.last : v.last + 1;
            report("number", span(first, last), "the observations say \"" + said + "\"");
            return true;
        }
        return false;
    }

    // "about 3 hours": the observations must give the same number with the same unit.
    bool checked_as_quantity(const ClaimValue& v, std::int64_t value) {
        const Token* unit = beside(v, 1);
        if (!unit || !is_unit(singular(unit->norm))) return false;
        std::vector<std::string> forms = {std::to_string(value)};
        if (auto name = number_name(value); !name.empty()) forms.emplace_back(name);
        const std::string one = singular(unit->norm);
        for (const auto& form : forms) {
            for (const auto& written : {unit->norm, one, one + "s"}) {
                if (f_.has_phrase({form, written})) return true;
            }
        }
        report("quantity", span(v.first, v.last + 1), "no observation gives this quantity");
        return true;
    }

    // "(notes/lockbox.md, line 3)": a line of a text the observations returned.
    bool cites_a_line(const ClaimValue& v, std::int64_t value) const {
        const Token* word = beside(v, -1);
        return word && one_of(word->norm, {"line", "row"}) && value >= 1 &&
               value <= static_cast<std::int64_t>(f_.max_lines);
    }

    void check_number(const ClaimValue& v) {
        const std::string text = span(v.first, v.last);
        // Numbers too large to count anything can only be quoted from the data.
        if (!(v.value >= 0 && v.value < 1e15)) {
            if (!literal(v.norm)) report("number", text, "no observation has this number");
            return;
        }
        if (v.percent) {
            if (!literal(v.norm) && !(v.integer && f_.percentages.contains(static_cast<std::int64_t>(v.value)))) {
                report("number", text, "no observation has this percentage, and no share of a listed group gives it");
            }
            return;
        }
        if (!v.currency.empty()) {
            if (!literal(v.norm)) {
                report("amount", text, "no observation has this amount");
            } else if (!f_.currencies.contains(v.currency)) {
                report("amount", text, "the observations give no amounts in " + upper(v.currency));
            }
            return;
        }
        if (literal(v.norm) && !v.integer) return;
        const auto value = static_cast<std::int64_t>(v.value);
        if (v.integer && (altered_in_quote(v, value) || checked_as_quantity(v, value) || cites_a_line(v, value)))
            return;
        const CountContext c = count_context(v);
        if (c.duration_days) {
            if (!literal(v.norm) && !f_.day_offsets.contains(value * c.duration_days) &&
                !f_.day_offsets.contains(-value * c.duration_days)) {
                report("number", text, "no observed date is that far from today");
            }
            return;
        }
        if (c.subset) {
            if (!literal(v.norm) && value > static_cast<std::int64_t>(std::max(f_.max_list, f_.max_lines))) {
                report("count", text, "no list in the observations has that many items");
            }
            return;
        }
        if (c.noun.empty() && c.qualifiers.empty()) {
            if (!literal(v.norm) && !f_.counts.contains(value))
                report("number", text, "no observation has this number");
            return;
        }
        std::set<std::int64_t> exact;
        std::int64_t most = c.generic ? static_cast<std::int64_t>(f_.max_lines) : 0;
        const auto count_lists = [&](const std::vector<std::string>& qualifiers) {
            for (const auto& l : f_.lists) {
                if (!c.noun.empty() && !c.generic && !l.nouns.contains(c.noun)) continue;
                if (qualifiers.empty()) {
                    exact.insert(static_cast<std::int64_t>(l.size));
                    exact.insert(l.declared.begin(), l.declared.end());
                    most = std::max(most, static_cast<std::int64_t>(l.size));
                    continue;
                }
                std::int64_t matching = 0;
                for (const auto& item : l.items) {
                    bool all = true;
                    for (const auto& q : qualifiers) all = all && item.contains(q);
                    matching += all ? 1 : 0;
                }
                exact.insert(matching);
                most = std::max(most, matching);
            }
        };
        count_lists(c.qualifiers);
        if (!exact.contains(value) && !c.after.empty()) {
            std::vector<std::string> both = c.qualifiers;
            both.insert(both.end(), c.after.begin(), c.after.end());
            count_lists(both);
        }
        const bool ok = c.generic || c.unknown_qualifier ? value <= most || literal(v.norm) : exact.contains(value);
        if (!ok) {
            std::string counts;
            for (auto n : exact) counts += (counts.empty() ? "" : ", ") + std::to_string(n);
            report("count", text,
                   exact.empty()
                       ? "no list in the observations matches it"
                       : "the observations give " + counts + (c.unknown_qualifier || c.generic ? " at most" : ""));
        }
    }

    std::set<std::size_t> weekday_done_;  // weekdays checked with the date written beside them
};

}  // namespace

void check_values(AnswerUnderCheck& answer) {
    ValueCheck(answer).run();
}

}  // namespace skillhost::grounding::detail
