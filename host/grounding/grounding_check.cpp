#include "grounding/grounding_check.hpp"

#include <algorithm>
#include <set>

namespace skillhost::grounding {
namespace {

constexpr std::size_t kMaxAnswerTokens = 40000;
constexpr std::size_t kMaxReported = 200;
constexpr std::size_t kMaxQuoteBytes = 300;
constexpr std::size_t kMaxSpanBytes = 160;

bool one_of(std::string_view w, std::initializer_list<std::string_view> words) {
    return std::find(words.begin(), words.end(), w) != words.end();
}

// At most `bytes` bytes of text, not cutting a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view text, std::size_t bytes) {
    if (text.size() <= bytes) return text;
    while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
    return text.substr(0, bytes);
}

bool common(std::string_view norm) {
    return is_common_word(norm) || is_common_word(singular(norm));
}

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

class Checker {
public:
    Checker(std::string_view answer, const GroundingFacts& facts) : answer_(answer), f_(facts) {}

    std::vector<UnsupportedClaim> run() {
        if (answer_.size() > kMaxCheckedAnswerBytes) {
            answer_ = utf8_prefix(answer_, kMaxCheckedAnswerBytes);
            report("length", "(answer of more than " + std::to_string(kMaxCheckedAnswerBytes) + " bytes)",
                   "only the first " + std::to_string(kMaxCheckedAnswerBytes) + " bytes of an answer are checked");
        }
        tokens_ = lex(answer_, kMaxAnswerTokens);
        if (tokens_.size() == kMaxAnswerTokens) {
            report("length", "(answer of more than " + std::to_string(kMaxAnswerTokens) + " words)",
                   "only the first " + std::to_string(kMaxAnswerTokens) + " words of an answer are checked");
        }
        values_ = read_values(tokens_);
        in_value_.assign(tokens_.size(), false);
        for (const auto& v : values_) {
            for (std::size_t i = v.first; i <= v.last && i < tokens_.size(); ++i) in_value_[i] = true;
        }
        check_values();
        check_tokens();
        check_quotes();
        check_names();
        check_list_items();
        check_statuses();
        return std::move(out_);
    }

private:
    void report(std::string kind, std::string text, std::string reason) {
        if (out_.size() >= kMaxReported || !seen_.insert(kind + "\n" + text).second) return;
        out_.push_back({std::move(kind), std::move(text), std::move(reason)});
    }

    std::string span(std::size_t first, std::size_t last) const {
        const std::size_t begin = tokens_[first].offset;
        const std::size_t end = tokens_[last].offset + tokens_[last].text.size();
        std::string text(utf8_prefix(answer_.substr(begin, end - begin), kMaxSpanBytes));
        for (auto& c : text) {
            if (c == '\n' || c == '\r' || c == '\t') c = ' ';
        }
        return text;
    }

    bool literal(const std::string& norm) const { return f_.numbers.contains(norm); }

    // ---- numbers, dates, times ----

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

    // ---- URLs, e-mail addresses, paths, codes ----

    void check_tokens() {
        for (std::size_t i = 0; i < tokens_.size(); ++i) {
            const Token& t = tokens_[i];
            switch (t.kind) {
                case Token::Kind::url: {
                    bool ok = f_.urls.contains(t.norm);
                    for (auto it = f_.urls.begin(); !ok && it != f_.urls.end(); ++it) {
                        ok = it->starts_with(t.norm + "/") || it->starts_with(t.norm + "?");
                    }
                    if (!ok) report("url", t.text, "no observation has this URL");
                    break;
                }
                case Token::Kind::email:
                    if (!f_.emails.contains(t.norm)) report("email", t.text, "no observation has this e-mail address");
                    break;
                case Token::Kind::path: {
                    std::string norm = t.norm;
                    while (norm.starts_with("/")) norm.erase(0, 1);
                    if (!f_.paths.contains(t.norm) && !f_.paths.contains(norm)) {
                        report("path", t.text, "no observation has this path");
                    }
                    break;
                }
                case Token::Kind::code:
                    if (!f_.has_word(t.norm) && !f_.codes.contains(t.norm))
                        report("code", t.text, "no observation has it");
                    break;
                default: break;
            }
        }
    }

    // ---- quoted strings ----

    void check_quotes() {
        std::size_t i = 0;
        while (i < answer_.size()) {
            std::string_view open, close;
            const std::string_view rest = answer_.substr(i);
            if (rest.starts_with("\"")) {
                open = close = "\"";
            } else if (rest.starts_with("\u201C")) {
                open = "\u201C";
                close = "\u201D";
            } else if (rest.starts_with("`")) {
                open = close = "`";
            } else {
                ++i;
                continue;
            }
            const std::size_t start = i + open.size();
            const std::string_view window = answer_.substr(start, kMaxQuoteBytes);
            const std::size_t end = window.find(close);
            const std::size_t newline = window.find('\n');
            if (end == std::string_view::npos || (newline != std::string_view::npos && newline < end)) {
                i = start;
                continue;
            }
            quote(window.substr(0, end));
            i = start + end + close.size();
        }
    }

    void quote(std::string_view content) {
        std::vector<std::string> norms;
        for (const auto& t : lex(content, 100)) norms.push_back(t.norm);
        if (norms.empty()) return;
        if (!f_.has_phrase(norms))
            report("quote", "\"" + std::string(content) + "\"", "no observation contains this text");
    }

    // ---- proper names ----

    bool name_token(std::size_t i) const {
        const Token& t = tokens_[i];
        return t.kind == Token::Kind::word && !in_value_[i] && (t.capitalised || t.all_caps) && t.norm != "i";
    }

    void check_names() {
        for (std::size_t i = 0; i < tokens_.size(); ++i) {
            if (!name_token(i)) continue;
            std::size_t end = i;
            while (end + 1 < tokens_.size() && name_token(end + 1) && !tokens_[end + 1].punct_before &&
                   tokens_[end + 1].line == tokens_[i].line) {
                ++end;
            }
            // Common words split a run: "The Harbor team" names "Harbor".
            std::size_t piece = i;
            for (std::size_t k = i; k <= end + 1; ++k) {
                const bool boundary =
                    k > end || common(tokens_[k].norm) || f_.list_nouns.contains(singular(tokens_[k].norm));
                if (!boundary) continue;
                if (k > piece) name(piece, k - 1, i);
                piece = k + 1;
            }
            i = end;
        }
    }

    void name(std::size_t first, std::size_t last, std::size_t run_first) {
        // A single capitalised word that starts a sentence may be an ordinary word: it counts as a
        // name only when it is not a common word and no form of it (same stem) is in the data, and
        // it does not look like an English verb or adverb form.
        if (first == run_first && first == last && tokens_[first].sentence_start) {
            if (tokens_[first].item_start) return;  // the list item check covers it
            const std::string& w = tokens_[first].norm;
            if (f_.has_word(w) || f_.has_stem(stem(w))) return;
            for (std::string_view suffix : {"ing", "ed", "ly", "ful", "ness", "tion", "ment", "ies", "able"}) {
                if (w.size() > suffix.size() + 2 && w.ends_with(suffix)) return;
            }
        }
        std::vector<std::string> norms;
        for (std::size_t k = first; k <= last; ++k) norms.push_back(tokens_[k].norm);
        // A multi-word name may be a title-cased paraphrase ("Boat Insurance Renewal"): its words,
        // stemmed, must then all be in one record — an invented surname still is not.
        if (f_.has_phrase(norms) || (norms.size() > 1 && f_.in_one_record(norms, true))) return;
        report("name", span(first, last), "no observation mentions this name");
    }

    // ---- list items ----

    void check_list_items() {
        std::size_t start = 0;
        while (start < answer_.size()) {
            std::size_t end = answer_.find('\n', start);
            if (end == std::string_view::npos) end = answer_.size();
            list_item(answer_.substr(start, end - start));
            start = end + 1;
        }
    }

    void list_item(std::string_view line) {
        std::size_t i = 0;
        while (i < line.size() && i < 16 && (line[i] == ' ' || line[i] == '\t')) ++i;
        line.remove_prefix(i);
        std::size_t marker = 0;
        if (line.starts_with("- ") || line.starts_with("* ") || line.starts_with("+ ")) {
            marker = 2;
        } else if (line.starts_with("\u2022 ")) {
            marker = 4;
        } else {
            std::size_t d = 0;
            while (d < line.size() && d < 4 && line[d] >= '0' && line[d] <= '9') ++d;
            if (d >= 1 && d <= 3 && d + 1 < line.size() && (line[d] == '.' || line[d] == ')') && line[d + 1] == ' ') {
                marker = d + 2;
            }
        }
        if (marker == 0) return;
        std::string_view title = line.substr(marker);
        for (std::string_view prefix : {"[ ] ", "[x] ", "[X] "}) {
            if (title.starts_with(prefix)) title.remove_prefix(prefix.size());
        }
        title = utf8_prefix(title, 300);
        std::size_t cut = title.size();
        for (std::string_view separator : {" \u2014 ", " \u2013 ", " - ", " (", ": ", ":**", " [", ", ", " | ", "; "}) {
            cut = std::min(cut, title.find(separator));
        }
        title = title.substr(0, cut);
        std::vector<std::string> all, content;
        for (const auto& t : lex(title, 80)) {
            all.push_back(t.norm);
            if (t.kind != Token::Kind::word || t.norm.size() < 3 || common(t.norm)) continue;
            if (number_word(t.norm) >= 0 || ordinal_word(t.norm) >= 0 || month_number(t.norm) ||
                weekday_number(t.norm) >= 0 || !canonical_status(t.norm).empty() || f_.field_keys.contains(t.norm) ||
                f_.list_nouns.contains(singular(t.norm))) {
                continue;
            }
            content.push_back(t.norm);
        }
        if (content.empty() || f_.has_phrase(all) || f_.in_one_record(content, true)) return;
        std::string shown(title);
        while (!shown.empty() && (shown.back() == '*' || shown.back() == ' ' || shown.back() == '.')) shown.pop_back();
        while (!shown.empty() && (shown.front() == '*' || shown.front() == '_')) shown.erase(0, 1);
        report("list_item", shown, "no item in the observations matches it");
    }

    // ---- statuses ----

    void check_statuses() {
        if (f_.status_items.empty()) return;
        std::vector<std::size_t> group;
        for (std::size_t i = 0; i <= tokens_.size(); ++i) {
            const bool split =
                i == tokens_.size() || (!group.empty() && tokens_[i].clause != tokens_[group.back()].clause) ||
                one_of(tokens_[i].norm, {"and", "but", "while", "whereas", "although", "though", "however"});
            if (split) {
                if (!group.empty()) status_group(group);
                group.clear();
                if (i < tokens_.size() && tokens_[i].kind == Token::Kind::word &&
                    one_of(tokens_[i].norm, {"and", "but", "while", "whereas", "although", "though", "however"})) {
                    continue;
                }
            }
            if (i < tokens_.size()) group.push_back(i);
        }
    }

    struct StatusWord {
        std::size_t token;
        std::string status;
        bool negated;
    };

    void status_group(const std::vector<std::size_t>& group) {
        std::vector<StatusWord> words;
        std::set<std::string> stems, norms;
        bool universal = false, none = false, all_clear = false;
        for (std::size_t g = 0; g < group.size(); ++g) {
            const Token& t = tokens_[group[g]];
            if (t.kind != Token::Kind::word) continue;
            norms.insert(t.norm);
            if (t.norm.size() >= 3) stems.insert(stem(t.norm));
            const std::string previous = g > 0 ? tokens_[group[g - 1]].norm : std::string();
            std::string status = canonical_status(t.norm);
            if (t.norm == "progress" && previous == "in") status = "in_progress";
            if (one_of(t.norm, {"all", "every", "everything", "each"}) && !one_of(previous, {"not", "t"}))
                universal = true;
            if (one_of(t.norm, {"no", "none", "nothing", "zero"})) none = true;
            if ((t.norm == "up" && previous == "caught") ||
                (previous == "nothing" &&
                 one_of(t.norm, {"left", "to", "remaining", "outstanding", "pending", "open"})) ||
                (previous == "all" && t.norm == "clear")) {
                all_clear = true;
            }
            if (status.empty()) continue;
            bool negated = false;
            for (std::size_t back = 1; back <= 3 && back <= g; ++back) {
                negated = negated || one_of(tokens_[group[g - back]].norm, {"not", "t", "never", "nor"});
            }
            words.push_back({group[g], status, negated});
        }
        if (words.empty() && !all_clear) return;
        std::vector<const GroundingFacts::StatusItem*> mentioned;
        for (const auto& item : f_.status_items) {
            std::size_t matched = 0;
            for (const auto& s : item.stems) matched += stems.contains(s) ? 1 : 0;
            if (!item.stems.empty() && (matched >= 2 || matched == item.stems.size())) mentioned.push_back(&item);
        }
        const std::string text = span(group.front(), group.back());
        if (!mentioned.empty() && !universal && !none && !all_clear) {
            for (const auto* item : mentioned) {
                bool consistent = false;
                for (const auto& w : words) consistent = consistent || ((w.status == item->status) != w.negated);
                if (!consistent) {
                    report("status", text, "\"" + item->title + "\" has status " + item->status);
                }
            }
            return;
        }
        if (!mentioned.empty()) return;
        // Statements about every item: filtered by the group's values ("all your high-priority tasks").
        std::vector<std::string> qualifiers;
        for (const auto& n : norms) {
            if (f_.group_values.contains(n) && canonical_status(n).empty() && n != "in_progress")
                qualifiers.push_back(n);
        }
        const auto selected = [&](const GroundingFacts::StatusItem& item) {
            for (const auto& q : qualifiers) {
                if (!item.values.contains(q)) return false;
            }
            return true;
        };
        if (all_clear || none) {
            std::set<std::string> targets;
            if (all_clear) targets = {"open", "in_progress"};
            for (const auto& w : words) {
                if (!w.negated) targets.insert(w.status);
            }
            for (const auto& item : f_.status_items) {
                if (selected(item) && targets.contains(item.status)) {
                    report("status", text, "\"" + item.title + "\" has status " + item.status);
                    return;
                }
            }
            return;
        }
        if (!universal) return;
        for (const auto& w : words) {
            if (w.negated) continue;
            std::size_t total = 0, other = 0;
            const GroundingFacts::StatusItem* example = nullptr;
            for (const auto& item : f_.status_items) {
                if (!selected(item)) continue;
                ++total;
                if (item.status != w.status) {
                    ++other;
                    if (!example) example = &item;
                }
            }
            if (example) {
                report("status", text,
                       std::to_string(other) + " of " + std::to_string(total) + " are not " + w.status + " (\"" +
                           example->title + "\" has status " + example->status + ")");
                return;
            }
        }
    }

    std::string_view answer_;
    const GroundingFacts& f_;
    std::vector<Token> tokens_;
    std::vector<ClaimValue> values_;
    std::vector<bool> in_value_;
    std::set<std::size_t> weekday_done_;
    std::vector<UnsupportedClaim> out_;
    std::set<std::string> seen_;
};

}  // namespace

std::vector<UnsupportedClaim> unsupported_claims(std::string_view answer, const GroundingFacts& facts) {
    return Checker(answer, facts).run();
}

}  // namespace skillhost::grounding
