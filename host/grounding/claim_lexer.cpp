#include "grounding/claim_lexer.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace skillhost::grounding {
namespace {

bool is_ascii_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_ascii_alpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_ascii_alnum(char c) {
    return is_ascii_digit(c) || is_ascii_alpha(c);
}
unsigned char byte(char c) {
    return static_cast<unsigned char>(c);
}

// Length of the UTF-8 sequence starting at text[i] (1 for ASCII and for broken bytes).
std::size_t sequence_length(std::string_view text, std::size_t i) {
    const unsigned char b = byte(text[i]);
    std::size_t n = b >= 0xF0 && b <= 0xF7 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    if (i + n > text.size()) return 1;
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(text[i + k]) & 0xC0) != 0x80) return 1;
    }
    return n;
}

// Letters of words: ASCII letters and digits, Latin-1 letters, and other scripts. Punctuation and
// symbols (U+0080..U+00BF, U+2000.., emoji) separate words.
bool is_word_sequence(std::string_view text, std::size_t i, std::size_t n) {
    const unsigned char b = byte(text[i]);
    if (n == 1) return b < 0x80 ? is_ascii_alnum(text[i]) : false;
    if (b == 0xC2 || b == 0xE2 || b >= 0xF0) return false;
    if (b == 0xC3) {
        const unsigned char c = byte(text[i + 1]);
        return c != 0x97 && c != 0xB7;  // × ÷
    }
    return true;
}

bool is_space_at(std::string_view text, std::size_t i, std::size_t& width) {
    const char c = text[i];
    width = 1;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') return true;
    if (byte(c) == 0xC2 && i + 1 < text.size() && byte(text[i + 1]) == 0xA0) {
        width = 2;
        return true;
    }
    return false;
}

// Wrapping punctuation removed from the ends of a compound: ASCII brackets, quotes and emphasis,
// and the UTF-8 quotes, guillemets, bullets and the ellipsis.
std::size_t leading_wrapper(std::string_view s) {
    if (s.empty()) return 0;
    static constexpr std::string_view ascii = "([{\"'*_`#><|";
    if (ascii.find(s[0]) != std::string_view::npos) return 1;
    for (std::string_view w :
         {"\u201C", "\u201D", "\u2018", "\u2019", "\u00AB", "\u00BB", "\u2022", "\u00BF", "\u00A1"}) {
        if (s.starts_with(w)) return w.size();
    }
    return 0;
}

std::size_t trailing_wrapper(std::string_view s) {
    if (s.empty()) return 0;
    static constexpr std::string_view ascii = ")]}\"'*_`.,;:!?|";
    if (ascii.find(s.back()) != std::string_view::npos) return 1;
    for (std::string_view w : {"\u201D", "\u201C", "\u2019", "\u00BB", "\u2026"}) {
        if (s.ends_with(w)) return w.size();
    }
    return 0;
}

bool is_dash(std::string_view s) {
    return s == "-" || s == "\u2013" || s == "\u2014" || s == "--" || s == "|";
}

constexpr std::array<std::string_view, 12> kAbbreviations = {"e.g", "i.e", "a.m", "p.m", "etc", "vs",
                                                             "mr",  "mrs", "ms",  "dr",  "st",  "no"};

bool is_abbreviation(std::string_view lower) {
    return std::find(kAbbreviations.begin(), kAbbreviations.end(), lower) != kAbbreviations.end();
}

std::string ascii_lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

// "1250", "3.5", "0.25": integer part without leading zeros, fraction without trailing zeros.
std::string canonical_number(std::string_view digits) {
    std::string whole, fraction;
    bool in_fraction = false;
    for (char c : digits) {
        if (c == '.') {
            in_fraction = true;
        } else if (c != ',') {
            (in_fraction ? fraction : whole) += c;
        }
    }
    const auto first = whole.find_first_not_of('0');
    whole = first == std::string::npos ? "0" : whole.substr(first);
    while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
    return fraction.empty() ? whole : whole + "." + fraction;
}

int am_pm(std::string_view lower) {
    if (lower == "am" || lower == "a.m" || lower == "a.m.") return 1;
    if (lower == "pm" || lower == "p.m" || lower == "p.m.") return 2;
    return 0;
}

bool valid_date(int year, int month, int day) {
    static constexpr int days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1 || day > days[month - 1]) return false;
    return year == 0 || (year >= 1900 && year <= 2200);
}

int parse_int(std::string_view digits) {
    int v = 0;
    for (char c : digits.substr(0, 9)) v = v * 10 + (c - '0');
    return v;
}

std::size_t digit_run(std::string_view s, std::size_t from) {
    std::size_t i = from;
    while (i < s.size() && is_ascii_digit(s[i])) ++i;
    return i - from;
}

class Lexer {
public:
    Lexer(std::string_view text, std::size_t max_tokens) : text_(text), max_tokens_(max_tokens) {}

    std::vector<Token> run() {
        bool line_start = true;
        while (pos_ < text_.size() && out_.size() < max_tokens_) {
            std::size_t width = 1;
            if (is_space_at(text_, pos_, width)) {
                if (text_[pos_] == '\n') {
                    ++line_;
                    end_sentence();
                    line_start = true;
                }
                pos_ += width;
                continue;
            }
            const std::size_t start = pos_;
            std::size_t end = start;
            while (end < text_.size()) {
                std::size_t w = 1;
                if (is_space_at(text_, end, w)) break;
                ++end;
            }
            pos_ = end;
            std::string_view compound = text_.substr(start, end - start);
            if (line_start) {
                line_start = false;
                if (is_list_marker(compound)) {
                    end_sentence();
                    item_start_ = true;
                    continue;
                }
            }
            compound_(compound, start);
        }
        return std::move(out_);
    }

private:
    static bool is_list_marker(std::string_view c) {
        if (c == "-" || c == "*" || c == "+" || c == "\u2022") return true;
        const std::size_t digits = digit_run(c, 0);
        return digits >= 1 && digits <= 3 && c.size() == digits + 1 && (c.back() == '.' || c.back() == ')');
    }

    void end_sentence() {
        sentence_start_ = true;
        punct_ = true;
        ++sentence_;
        ++clause_;
    }

    void compound_(std::string_view c, std::size_t offset) {
        // Wrapping punctuation.
        bool leading_punct = false;
        for (std::size_t n; (n = leading_wrapper(c)) > 0;) {
            c.remove_prefix(n);
            offset += n;
            leading_punct = true;
        }
        std::string trailing;
        for (std::size_t n; (n = trailing_wrapper(c)) > 0;) {
            const std::string_view cut = c.substr(c.size() - n);
            // Keep the dot of an abbreviation ("a.m.") with the word for classification only.
            trailing.insert(0, cut);
            c.remove_suffix(n);
        }
        if (leading_punct) punct_ = true;
        if (c.empty() || is_dash(c)) {
            if (!c.empty()) {
                ++clause_;
                punct_ = true;
            }
            after_punctuation(trailing, {});
            return;
        }
        const std::string lower = ascii_lower(c);
        classify(c, lower, offset, trailing);
        after_punctuation(trailing, lower);
    }

    void after_punctuation(std::string_view trailing, std::string_view lower) {
        if (trailing.empty()) return;
        punct_ = true;
        const bool abbreviation = is_abbreviation(lower) || (lower.size() == 1 && is_ascii_alpha(lower[0]));
        if (!abbreviation && trailing.find_first_of(".!?") != std::string_view::npos) {
            end_sentence();
        } else if (trailing.find("\u2026") != std::string_view::npos) {
            end_sentence();
        } else if (trailing.find(':') != std::string_view::npos) {
            // "Note: Priya ..." — what follows a colon is written like a new sentence.
            end_sentence();
        } else if (trailing.find_first_of(",;") != std::string_view::npos) {
            ++clause_;
        }
    }

    Token& emit(Token::Kind kind, std::string_view text, std::size_t offset) {
        Token t;
        t.kind = kind;
        t.text = std::string(text);
        t.offset = offset;
        t.sentence_start = sentence_start_;
        t.item_start = item_start_;
        item_start_ = false;
        t.punct_before = punct_;
        t.sentence = sentence_;
        t.clause = clause_;
        t.line = line_;
        sentence_start_ = false;
        punct_ = false;
        out_.push_back(std::move(t));
        return out_.back();
    }

    void classify(std::string_view c, const std::string& lower, std::size_t offset, std::string& trailing) {
        if (lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("www.")) {
            emit(Token::Kind::url, c, offset).norm = normalise_url(lower);
            return;
        }
        if (const auto at = lower.find('@'); at != std::string::npos && at > 0 &&
                                             lower.find('.', at) != std::string::npos &&
                                             lower.find('/') == std::string::npos) {
            emit(Token::Kind::email, c, offset).norm = fold_lower(c);
            return;
        }
        if (iso_date(c, offset)) return;
        if (is_path(c, lower)) {
            std::string norm = fold_lower(c);
            if (norm.starts_with("./")) norm.erase(0, 2);
            emit(Token::Kind::path, c, offset).norm = std::move(norm);
            return;
        }
        // Ranges and compounds ("3-5", "high-priority", "10:00–11:00", "lockboxes,480") are their
        // parts; a comma between digits is a thousands separator ("1,250").
        std::size_t begin = 0;
        for (std::size_t i = 0; i <= c.size();) {
            std::size_t n = 1;
            bool split = i == c.size();
            if (!split && std::string_view("-;=()[]{}\"<>|+").find(c[i]) != std::string_view::npos) split = true;
            if (!split && c[i] == ',') {
                const bool thousands = i > 0 && is_ascii_digit(c[i - 1]) && digit_run(c, i + 1) == 3;
                split = !thousands;
            }
            if (!split && (c.substr(i).starts_with("\u2013") || c.substr(i).starts_with("\u2014"))) {
                split = true;
                n = 3;
            }
            if (split) {
                if (i > begin) part(c.substr(begin, i - begin), offset + begin, trailing);
                begin = i + n;
            }
            i += split ? n : sequence_length(c, i);
        }
    }

    static std::string normalise_url(std::string norm) {
        for (std::string_view scheme : {"https://", "http://"}) {
            if (norm.starts_with(scheme)) norm.erase(0, scheme.size());
        }
        if (norm.starts_with("www.")) norm.erase(0, 4);
        while (!norm.empty() && norm.back() == '/') norm.pop_back();
        return norm;
    }

    static bool is_path(std::string_view c, const std::string& lower) {
        bool letter = false;
        for (char ch : c) letter = letter || is_ascii_alpha(ch);
        if (!letter) return false;
        if (c.find('/') != std::string_view::npos) {
            // "and/or" is not a path.
            return !(lower == "and/or" || lower == "either/or");
        }
        const auto dot = c.rfind('.');
        if (dot == std::string_view::npos || dot + 1 >= c.size()) return false;
        const std::string_view ext = c.substr(dot + 1);
        if (ext.size() > 6 || is_abbreviation(lower)) return false;
        bool ext_letter = false, ext_lower = true, ext_upper = true;
        for (char ch : ext) {
            if (!is_ascii_alnum(ch)) return false;
            if (is_ascii_alpha(ch)) ext_letter = true;
            if (ch >= 'A' && ch <= 'Z') ext_lower = false;
            if (ch >= 'a' && ch <= 'z') ext_upper = false;
        }
        if (!ext_letter || !(ext_lower || ext_upper)) return false;
        for (char ch : c) {
            if (!is_ascii_alnum(ch) && ch != '.' && ch != '_' && ch != '-' && ch != '~') return false;
        }
        // "e.g" style abbreviations have one-letter parts; a file name has a name before the dot.
        return dot > 1 || (dot == 1 && ext.size() > 1) || (dot == 0 && ext.size() > 1);
    }

    bool iso_date(std::string_view c, std::size_t offset) {
        if (c.size() < 10 || digit_run(c, 0) != 4 || c[4] != '-' || digit_run(c, 5) != 2 || c[7] != '-' ||
            digit_run(c, 8) != 2) {
            return false;
        }
        const int year = parse_int(c.substr(0, 4)), month = parse_int(c.substr(5, 2)), day = parse_int(c.substr(8, 2));
        if (!valid_date(year, month, day)) return false;
        Token& t = emit(Token::Kind::date, c.substr(0, 10), offset);
        t.year = year;
        t.month = month;
        t.day = day;
        t.norm = std::string(c.substr(0, 10));
        if (c.size() >= 16 && (c[10] == 'T' || c[10] == 't' || c[10] == '_') && digit_run(c, 11) == 2 && c[13] == ':' &&
            digit_run(c, 14) == 2) {
            Token& time = emit(Token::Kind::time, c.substr(11, 5), offset + 11);
            time.minutes = parse_int(c.substr(11, 2)) * 60 + parse_int(c.substr(14, 2));
            time.norm = std::string(c.substr(11, 5));
            time.punct_before = true;
        }
        return true;
    }

    // The next compound's text, lower case without trailing punctuation, for "5 pm".
    std::string_view peek_compound(std::size_t& after) const {
        std::size_t i = pos_;
        while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t')) ++i;
        std::size_t end = i;
        while (end < text_.size() && end - i < 16) {
            std::size_t w = 1;
            if (is_space_at(text_, end, w)) break;
            ++end;
        }
        after = end;
        return text_.substr(i, end - i);
    }

    // Consumes a following "am"/"pm"/"o'clock"; returns 1 am, 2 pm, 3 o'clock, 0 none.
    int take_following_clock_word(std::string& trailing, std::size_t& word_end) {
        if (!trailing.empty() && trailing.find_first_of(",;:!?") != std::string::npos) return 0;
        std::size_t after = 0;
        std::string_view next = peek_compound(after);
        std::string_view core = next;
        std::string tail;
        while (!core.empty() && (core.back() == '.' || core.back() == ',' || core.back() == ';' || core.back() == ')' ||
                                 core.back() == '!' || core.back() == '?')) {
            tail.insert(tail.begin(), core.back());
            core.remove_suffix(1);
        }
        const std::string lower = ascii_lower(core);
        int kind = am_pm(lower);
        if (lower == "o'clock" || lower == "o\u2019clock") kind = 3;
        if (kind == 0) return 0;
        pos_ = after;
        word_end = static_cast<std::size_t>(core.data() - text_.data()) + core.size();
        // "5 p.m." keeps its own dots; a following sentence end is still one.
        if (kind != 3 && tail.starts_with(".") && lower.find('.') != std::string::npos) tail.erase(0, 1);
        trailing += tail;
        return kind;
    }

    void part(std::string_view p, std::size_t offset, std::string& trailing) {
        if (p.empty()) return;
        const std::string lower = ascii_lower(p);
        std::size_t i = 0;
        std::string currency;
        for (auto [symbol, code] : {std::pair{"$", "usd"}, std::pair{"\u20AC", "eur"}, std::pair{"\u00A3", "gbp"},
                                    std::pair{"\u00A5", "jpy"}}) {
            if (p.starts_with(symbol)) {
                currency = code;
                i = std::string_view(symbol).size();
            }
        }
        if (i < p.size() && is_ascii_digit(p[i])) {
            if (clock_time(p, lower, offset, trailing) || slash_date(p, offset) ||
                number(p, lower, i, currency, offset, trailing)) {
                return;
            }
            emit(Token::Kind::code, p, offset).norm = fold_lower(p);
            return;
        }
        bool digit = false, letter = false;
        for (char ch : p) {
            digit = digit || is_ascii_digit(ch);
            letter = letter || is_ascii_alpha(ch);
        }
        if (digit && letter) {
            emit(Token::Kind::code, p, offset).norm = fold_lower(p);
            return;
        }
        words(p, offset);
    }

    bool clock_time(std::string_view p, const std::string& lower, std::size_t offset, std::string& trailing) {
        const std::size_t h = digit_run(p, 0);
        if (h < 1 || h > 2 || h >= p.size() || p[h] != ':' || digit_run(p, h + 1) != 2) return false;
        std::size_t end = h + 3;
        if (end < p.size() && p[end] == ':' && digit_run(p, end + 1) == 2) end += 3;
        int kind = 0;
        if (end < p.size()) {
            kind = am_pm(lower.substr(end));
            if (kind == 0) return false;
        }
        int hour = parse_int(p.substr(0, h));
        const int minute = parse_int(p.substr(h + 1, 2));
        if (hour > 23 || minute > 59) return false;
        std::size_t word_end = offset + p.size();
        if (kind == 0) kind = take_following_clock_word(trailing, word_end);
        Token& t = emit(Token::Kind::time, text_.substr(offset, word_end - offset), offset);
        set_clock(t, hour, minute, kind);
        return true;
    }

    static void set_clock(Token& t, int hour, int minute, int kind) {
        if (kind == 1 && hour == 12) hour = 0;
        if (kind == 2 && hour < 12) hour += 12;
        t.minutes = hour * 60 + minute;
        t.twelve_hour_unknown = (kind == 0 || kind == 3) && hour >= 1 && hour <= 12;
        t.norm = std::to_string(hour) + ":" + (minute < 10 ? "0" : "") + std::to_string(minute);
    }

    bool slash_date(std::string_view p, std::size_t offset) {
        std::array<int, 3> parts{};
        std::array<std::size_t, 3> widths{};
        std::size_t count = 0, i = 0;
        char separator = 0;
        while (count < 3) {
            const std::size_t n = digit_run(p, i);
            if (n == 0 || n > 4) return false;
            parts[count] = parse_int(p.substr(i, n));
            widths[count++] = n;
            i += n;
            if (i == p.size()) break;
            if ((p[i] != '/' && p[i] != '.') || (separator && p[i] != separator)) return false;
            separator = p[i++];
        }
        if (i != p.size() || count < 2 || (separator == '.' && count < 3)) return false;
        int year = 0, a = parts[0], b = parts[1];
        if (count == 3) {
            if (widths[0] == 4) {
                year = parts[0];
                a = parts[2];
                b = parts[1];  // 2026/11/28: day, month
            } else {
                year = widths[2] == 2 ? 2000 + parts[2] : parts[2];
            }
        } else if (widths[0] > 2 || widths[1] > 2) {
            return false;
        }
        // a/b read as day/month and as month/day.
        const bool day_month = valid_date(year, b, a);
        const bool month_day = count == 3 && widths[0] == 4 ? false : valid_date(year, a, b);
        if (!day_month && !month_day) return false;
        Token& t = emit(Token::Kind::date, p, offset);
        t.year = year;
        t.norm = std::string(p);
        if (day_month) {
            t.month = b;
            t.day = a;
            if (month_day && a != b) {
                t.alt_month = a;
                t.alt_day = b;
            }
        } else {
            t.month = a;
            t.day = b;
        }
        return true;
    }

    bool number(std::string_view p, const std::string& lower, std::size_t i, std::string currency, std::size_t offset,
                std::string& trailing) {
        const std::size_t start = i;
        const std::size_t lead = digit_run(p, i);
        i += lead;
        // Thousands separators only in groups of three: "1,250" but not "1,2".
        while (lead <= 3 && i + 3 < p.size() && p[i] == ',' && digit_run(p, i + 1) == 3 &&
               (i + 4 == p.size() || !is_ascii_digit(p[i + 4]))) {
            i += 4;
        }
        if (i + 1 < p.size() && p[i] == '.' && is_ascii_digit(p[i + 1])) i += 1 + digit_run(p, i + 1);
        const std::string digits(p.substr(start, i - start));
        const std::string suffix = lower.substr(i);
        bool percent = false, ordinal = false, thousands = false;
        if (suffix == "%") {
            percent = true;
        } else if (suffix == "st" || suffix == "nd" || suffix == "rd" || suffix == "th") {
            ordinal = true;
        } else if (const int kind = am_pm(suffix); kind != 0) {
            const int hour = parse_int(digits);
            if (hour < 1 || hour > 12 || digits.find('.') != std::string::npos) return false;
            set_clock(emit(Token::Kind::time, p, offset), hour, 0, kind);
            return true;
        } else if (suffix == "\u20ac" || suffix == "eur") {
            currency = "eur";
        } else if (suffix == "usd") {
            currency = "usd";
        } else if (!suffix.empty()) {
            static constexpr std::string_view units[] = {"k", "x",  "h",  "hr", "hrs", "min", "mins", "s",
                                                         "d", "km", "kg", "m",  "gb",  "mb",  "kb",   "ms"};
            if (std::find(std::begin(units), std::end(units), suffix) == std::end(units)) return false;
            thousands = suffix == "k";
        }
        std::string norm = canonical_number(digits);
        double value = std::strtod(norm.c_str(), nullptr);
        if (thousands && value < 1e12) {
            value *= 1000;
            norm = canonical_number(std::to_string(static_cast<long long>(value)));
        }
        const bool integer = norm.find('.') == std::string::npos;
        // "5 pm", "5 o'clock".
        if (integer && !percent && !ordinal && currency.empty() && suffix.empty() && value >= 1 && value <= 12) {
            std::size_t word_end = 0;
            if (const int kind = take_following_clock_word(trailing, word_end); kind != 0) {
                set_clock(emit(Token::Kind::time, text_.substr(offset, word_end - offset), offset),
                          static_cast<int>(value), 0, kind);
                return true;
            }
        }
        Token& t = emit(Token::Kind::number, p, offset);
        t.norm = std::move(norm);
        t.value = value;
        t.integer = integer;
        t.percent = percent;
        t.ordinal = ordinal;
        t.currency = std::move(currency);
        return true;
    }

    void words(std::string_view p, std::size_t offset) {
        std::size_t i = 0;
        while (i < p.size()) {
            std::size_t n = sequence_length(p, i);
            if (!is_word_sequence(p, i, n)) {
                i += n;  // "Tomás's": the "s" stays glued to the name (no punct_before)
                continue;
            }
            const std::size_t begin = i;
            while (i < p.size() && is_word_sequence(p, i, n = sequence_length(p, i))) i += n;
            const std::string_view w = p.substr(begin, i - begin);
            Token& t = emit(Token::Kind::word, w, offset + begin);
            t.norm = fold_lower(w);
            const unsigned char b0 = byte(w[0]);
            t.capitalised = (w[0] >= 'A' && w[0] <= 'Z') || (b0 == 0xC3 && w.size() > 1 && byte(w[1]) >= 0x80 &&
                                                             byte(w[1]) <= 0x9E && byte(w[1]) != 0x97);
            int letters = 0;
            bool upper = true;
            for (char ch : w) {
                if (is_ascii_alpha(ch)) {
                    ++letters;
                    upper = upper && ch >= 'A' && ch <= 'Z';
                }
            }
            t.all_caps = letters >= 2 && upper;
        }
    }

    std::string_view text_;
    std::size_t max_tokens_;
    std::size_t pos_ = 0;
    std::vector<Token> out_;
    std::uint32_t sentence_ = 0, clause_ = 0, line_ = 0;
    bool sentence_start_ = true;
    bool item_start_ = false;
    bool punct_ = true;
};

}  // namespace

std::vector<Token> lex(std::string_view text, std::size_t max_tokens) {
    return Lexer(text, max_tokens).run();
}

std::string fold_lower(std::string_view text) {
    // Latin-1 letters U+00C0..U+00FF to their ASCII base letter; '*' keeps the byte pair (× ÷).
    static constexpr std::string_view fold = "aaaaaaaceeeeiiiidnooooo*ouuuuyts";
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= 'A' && c <= 'Z') {
            out += static_cast<char>(c - 'A' + 'a');
        } else if (byte(c) == 0xC3 && i + 1 < text.size() && byte(text[i + 1]) >= 0x80 && byte(text[i + 1]) <= 0xBF) {
            const unsigned index = (byte(text[i + 1]) - 0x80) % 32;
            const char base = byte(text[i + 1]) == 0xBF ? 'y' : fold[index];
            if (base == '*') {
                out += c;
                out += text[i + 1];
            } else {
                out += base;
            }
            ++i;
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace skillhost::grounding
