// skillhost/json.hpp — a small JSON value for plugin authors (header-only, standard library only).
//
// Enough JSON to read skill arguments and build results without another dependency:
//   skillhost::Json args = skillhost::Json::parse(text);          // throws skillhost::JsonError
//   std::string title = args["title"].as_string();
//   skillhost::Json out = skillhost::Json::object({{"id", 7}, {"tags", Json::array({"a", "b"})}});
//   std::string text = out.dump();
// Objects keep insertion order (equality ignores it). Numbers keep integers exact (int64) and use
// double otherwise; number text is read and written independently of the C locale. dump() always
// produces valid UTF-8: invalid byte sequences in strings (e.g. a string cut mid-character) are
// replaced by U+FFFD rather than producing JSON the host would reject.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace skillhost {

class JsonError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Json {
public:
    using Array = std::vector<Json>;
    using Member = std::pair<std::string, Json>;
    using Object = std::vector<Member>;
    enum class Kind { null, boolean, integer, number, string, array, object };

    Json() = default;
    Json(std::nullptr_t) {}
    Json(bool b) : value_(b) {}
    Json(int i) : value_(static_cast<std::int64_t>(i)) {}
    Json(long i) : value_(static_cast<std::int64_t>(i)) {}
    Json(long long i) : value_(static_cast<std::int64_t>(i)) {}
    Json(unsigned u) : value_(static_cast<std::int64_t>(u)) {}
    // Unsigned values above INT64_MAX do not fit an integer; they become (inexact) doubles rather
    // than wrapping to negative numbers.
    Json(unsigned long u) : Json(static_cast<unsigned long long>(u)) {}
    Json(unsigned long long u) {
        if (u > static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()))
            value_ = static_cast<double>(u);
        else
            value_ = static_cast<std::int64_t>(u);
    }
    Json(double d) : value_(d) {}
    Json(const char* s) : value_(std::string(s)) {}
    Json(std::string s) : value_(std::move(s)) {}
    Json(std::string_view s) : value_(std::string(s)) {}
    Json(Array a) : value_(std::move(a)) {}
    Json(Object o) : value_(std::move(o)) {}

    static Json array(std::initializer_list<Json> items = {}) { return Json(Array(items)); }
    static Json object(std::initializer_list<Member> members = {}) { return Json(Object(members)); }

    Kind kind() const { return static_cast<Kind>(value_.index()); }
    bool is_null() const { return kind() == Kind::null; }
    bool is_bool() const { return kind() == Kind::boolean; }
    bool is_integer() const { return kind() == Kind::integer; }
    bool is_number() const { return kind() == Kind::integer || kind() == Kind::number; }
    bool is_string() const { return kind() == Kind::string; }
    bool is_array() const { return kind() == Kind::array; }
    bool is_object() const { return kind() == Kind::object; }

    bool as_bool() const { return get<bool>("a boolean"); }
    std::int64_t as_int() const {
        if (is_integer()) return std::get<std::int64_t>(value_);
        if (kind() == Kind::number) {
            double d = std::get<double>(value_);
            if (std::floor(d) == d && std::fabs(d) < 9.2e18) return static_cast<std::int64_t>(d);
        }
        throw JsonError("expected an integer, got " + describe());
    }
    double as_double() const {
        if (is_integer()) return static_cast<double>(std::get<std::int64_t>(value_));
        return get<double>("a number");
    }
    const std::string& as_string() const { return get<std::string>("a string"); }
    const Array& as_array() const { return get<Array>("an array"); }
    Array& as_array() { return get<Array>("an array"); }
    const Object& as_object() const { return get<Object>("an object"); }
    Object& as_object() { return get<Object>("an object"); }

    // Object member lookup. Returns nullptr when absent (or when this is not an object).
    const Json* find(std::string_view key) const {
        if (!is_object()) return nullptr;
        for (const auto& m : std::get<Object>(value_))
            if (m.first == key) return &m.second;
        return nullptr;
    }
    bool contains(std::string_view key) const { return find(key) != nullptr; }
    // Read access: a missing member reads as null, so `args["x"].is_null()` tests absence.
    const Json& operator[](std::string_view key) const {
        static const Json null_value;
        const Json* found = find(key);
        return found ? *found : null_value;
    }
    // Write access: inserts a null member when absent (turns a null value into an object).
    Json& operator[](std::string_view key) {
        if (is_null()) value_ = Object{};
        Object& obj = as_object();
        for (auto& m : obj)
            if (m.first == key) return m.second;
        obj.emplace_back(std::string(key), Json());
        return obj.back().second;
    }
    // Array element access; throws std::out_of_range past the end.
    const Json& operator[](std::size_t index) const { return as_array().at(index); }
    Json& operator[](std::size_t index) { return as_array().at(index); }
    void push_back(Json v) {
        if (is_null()) value_ = Array{};
        as_array().push_back(std::move(v));
    }
    std::size_t size() const {
        if (is_array()) return as_array().size();
        if (is_object()) return as_object().size();
        return 0;
    }

    // Typed reads with a default for absent or null members.
    std::string string_or(std::string_view key, std::string fallback) const {
        const Json* v = find(key);
        return v && !v->is_null() ? v->as_string() : fallback;
    }
    std::int64_t int_or(std::string_view key, std::int64_t fallback) const {
        const Json* v = find(key);
        return v && !v->is_null() ? v->as_int() : fallback;
    }
    bool bool_or(std::string_view key, bool fallback) const {
        const Json* v = find(key);
        return v && !v->is_null() ? v->as_bool() : fallback;
    }

    // Numbers compare by value (1 == 1.0); objects compare as sets of members (order ignored).
    friend bool operator==(const Json& a, const Json& b) {
        if (a.is_number() && b.is_number() && a.kind() != b.kind()) return a.as_double() == b.as_double();
        if (a.is_object() && b.is_object()) {
            const Object& members = std::get<Object>(a.value_);
            if (members.size() != b.size()) return false;
            for (const auto& m : members) {
                const Json* other = b.find(m.first);
                if (!other || !(m.second == *other)) return false;
            }
            return true;
        }
        return a.value_ == b.value_;
    }

    // Serialises to compact JSON, or indented by `indent` spaces when indent > 0.
    std::string dump(int indent = 0) const {
        std::string out;
        write(out, indent, 0);
        return out;
    }

    // Parses one JSON value; trailing non-space text is an error. Errors name the byte offset.
    static Json parse(std::string_view text) {
        Parser p{text, 0, 0};
        p.skip_space();
        Json v = p.value();
        p.skip_space();
        if (p.pos != text.size()) p.fail("unexpected text after the JSON value");
        return v;
    }

    std::string describe() const {
        static const char* names[] = {"null",     "a boolean", "an integer", "a number",
                                      "a string", "an array",  "an object"};
        return names[value_.index()];
    }

private:
    template <class T>
    const T& get(const char* what) const {
        if (const T* p = std::get_if<T>(&value_)) return *p;
        throw JsonError(std::string("expected ") + what + ", got " + describe());
    }
    template <class T>
    T& get(const char* what) {
        if (T* p = std::get_if<T>(&value_)) return *p;
        throw JsonError(std::string("expected ") + what + ", got " + describe());
    }

    // Length of the valid UTF-8 sequence starting at s[i] (1-4), or 0 when it is invalid
    // (overlong forms, surrogates, code points above U+10FFFF and truncated sequences included).
    static std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
        auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
        auto cont = [&](std::size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
            return k < s.size() && byte(k) >= lo && byte(k) <= hi;
        };
        unsigned char c = byte(i);
        if (c < 0x80) return 1;
        if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
        if (c == 0xE0) return cont(i + 1, 0xA0) && cont(i + 2) ? 3 : 0;
        if (c == 0xED) return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : 0;
        if (c >= 0xE1 && c <= 0xEF) return cont(i + 1) && cont(i + 2) ? 3 : 0;
        if (c == 0xF0) return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0;
        if (c >= 0xF1 && c <= 0xF3) return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
        if (c == 0xF4) return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : 0;
        return 0;
    }

    static void write_string(std::string& out, std::string_view s) {
        out += '"';
        std::size_t i = 0;
        while (i < s.size()) {
            unsigned char c = static_cast<unsigned char>(s[i]);
            if (c >= 0x80) {
                std::size_t len = utf8_sequence_length(s, i);
                if (len == 0) {
                    out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
                    ++i;
                } else {
                    out.append(s.substr(i, len));
                    i += len;
                }
                continue;
            }
            ++i;
            switch (c) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\n': out += "\\n"; break;
                case '\r': out += "\\r"; break;
                case '\t': out += "\\t"; break;
                case '\b': out += "\\b"; break;
                case '\f': out += "\\f"; break;
                default:
                    if (c < 0x20) {
                        char buf[8];
                        std::snprintf(buf, sizeof buf, "\\u%04x", c);
                        out += buf;
                    } else {
                        out += static_cast<char>(c);
                    }
            }
        }
        out += '"';
    }

    // Shortest text that reads back as the same double; integral values keep a ".0" so they read
    // back as numbers, not integers.
    static void write_double(std::string& out, double d) {
        char buf[32];
#if defined(__cpp_lib_to_chars)
        auto written = std::to_chars(buf, buf + sizeof buf, d);
        std::string_view text(buf, static_cast<std::size_t>(written.ptr - buf));
#else
        std::ostringstream stream;
        stream.imbue(std::locale::classic());
        stream.precision(17);
        stream << d;
        std::string held = stream.str();
        std::string_view text(held);
        (void)buf;
#endif
        out += text;
        if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
    }

    void write(std::string& out, int indent, int depth) const {
        auto newline = [&](int d) {
            if (indent <= 0) return;
            out += '\n';
            out.append(static_cast<std::size_t>(indent * d), ' ');
        };
        switch (kind()) {
            case Kind::null: out += "null"; break;
            case Kind::boolean: out += std::get<bool>(value_) ? "true" : "false"; break;
            case Kind::integer: out += std::to_string(std::get<std::int64_t>(value_)); break;
            case Kind::number: {
                double d = std::get<double>(value_);
                if (!std::isfinite(d)) {
                    out += "null";
                    break;
                }  // JSON has no NaN or infinity
                write_double(out, d);
                break;
            }
            case Kind::string: write_string(out, std::get<std::string>(value_)); break;
            case Kind::array: {
                const Array& a = std::get<Array>(value_);
                out += '[';
                for (std::size_t i = 0; i < a.size(); ++i) {
                    if (i) out += ',';
                    newline(depth + 1);
                    a[i].write(out, indent, depth + 1);
                }
                if (!a.empty()) newline(depth);
                out += ']';
                break;
            }
            case Kind::object: {
                const Object& o = std::get<Object>(value_);
                out += '{';
                for (std::size_t i = 0; i < o.size(); ++i) {
                    if (i) out += ',';
                    newline(depth + 1);
                    write_string(out, o[i].first);
                    out += indent > 0 ? ": " : ":";
                    o[i].second.write(out, indent, depth + 1);
                }
                if (!o.empty()) newline(depth);
                out += '}';
                break;
            }
        }
    }

    struct Parser {
        static constexpr int max_depth = 256;

        std::string_view text;
        std::size_t pos;
        int depth;

        [[noreturn]] void fail_at(std::size_t at, const std::string& what) const {
            throw JsonError("invalid JSON at byte " + std::to_string(at) + ": " + what);
        }
        [[noreturn]] void fail(const std::string& what) const { fail_at(pos, what); }
        static bool is_digit(char c) { return c >= '0' && c <= '9'; }
        bool digit_here() const { return pos < text.size() && is_digit(text[pos]); }
        void skip_space() {
            while (pos < text.size() &&
                   (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\r' || text[pos] == '\t'))
                ++pos;
        }
        bool consume(std::string_view word) {
            if (text.substr(pos, word.size()) != word) return false;
            pos += word.size();
            return true;
        }
        static std::string describe_char(char c) {
            unsigned char u = static_cast<unsigned char>(c);
            if (u >= 0x20 && u < 0x7F) return std::string("'") + c + "'";
            char buf[8];
            std::snprintf(buf, sizeof buf, "0x%02X", u);
            return std::string("byte ") + buf;
        }
        Json value() {
            if (pos >= text.size()) fail("unexpected end of input, expected a value");
            if (++depth > max_depth) fail("nesting deeper than " + std::to_string(max_depth) + " levels");
            Json v;
            char c = text[pos];
            if (c == '{')
                v = object_value();
            else if (c == '[')
                v = array_value();
            else if (c == '"')
                v = Json(string_value());
            else if (consume("true"))
                v = Json(true);
            else if (consume("false"))
                v = Json(false);
            else if (consume("null"))
                v = Json();
            else if (c == '-' || is_digit(c))
                v = number_value();
            else
                fail("unexpected character " + describe_char(c) + ", expected a value");
            --depth;
            return v;
        }
        Json object_value() {
            Object obj;
            ++pos;
            skip_space();
            if (pos < text.size() && text[pos] == '}') {
                ++pos;
                return Json(std::move(obj));
            }
            for (;;) {
                skip_space();
                if (pos >= text.size() || text[pos] != '"') fail("expected a quoted member name");
                std::string key = string_value();
                skip_space();
                if (pos >= text.size() || text[pos] != ':') fail("expected ':' after member name");
                ++pos;
                skip_space();
                Json member = value();
                // A repeated member name keeps its first position and takes the last value.
                bool replaced = false;
                for (auto& m : obj)
                    if (m.first == key) {
                        m.second = std::move(member);
                        replaced = true;
                        break;
                    }
                if (!replaced) obj.emplace_back(std::move(key), std::move(member));
                skip_space();
                if (pos < text.size() && text[pos] == ',') {
                    ++pos;
                    continue;
                }
                if (pos < text.size() && text[pos] == '}') {
                    ++pos;
                    return Json(std::move(obj));
                }
                fail("expected ',' or '}' in object");
            }
        }
        Json array_value() {
            Array arr;
            ++pos;
            skip_space();
            if (pos < text.size() && text[pos] == ']') {
                ++pos;
                return Json(std::move(arr));
            }
            for (;;) {
                skip_space();
                arr.push_back(value());
                skip_space();
                if (pos < text.size() && text[pos] == ',') {
                    ++pos;
                    continue;
                }
                if (pos < text.size() && text[pos] == ']') {
                    ++pos;
                    return Json(std::move(arr));
                }
                fail("expected ',' or ']' in array");
            }
        }
        unsigned hex4() {
            std::size_t start = pos;
            if (pos + 4 > text.size()) fail_at(start, "truncated \\u escape, expected 4 hex digits");
            unsigned v = 0;
            for (int i = 0; i < 4; ++i) {
                char h = text[pos++];
                v <<= 4;
                if (h >= '0' && h <= '9')
                    v |= static_cast<unsigned>(h - '0');
                else if (h >= 'a' && h <= 'f')
                    v |= static_cast<unsigned>(h - 'a' + 10);
                else if (h >= 'A' && h <= 'F')
                    v |= static_cast<unsigned>(h - 'A' + 10);
                else
                    fail_at(pos - 1, "bad hex digit " + describe_char(h) + " in \\u escape");
            }
            return v;
        }
        static void append_utf8(std::string& out, unsigned cp) {
            if (cp < 0x80) {
                out += static_cast<char>(cp);
            } else if (cp < 0x800) {
                out += static_cast<char>(0xC0 | (cp >> 6));
                out += static_cast<char>(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                out += static_cast<char>(0xE0 | (cp >> 12));
                out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                out += static_cast<char>(0x80 | (cp & 0x3F));
            } else {
                out += static_cast<char>(0xF0 | (cp >> 18));
                out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
                out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                out += static_cast<char>(0x80 | (cp & 0x3F));
            }
        }
        std::string string_value() {
            std::size_t opened = pos;
            std::string out;
            ++pos;
            while (pos < text.size()) {
                char c = text[pos++];
                if (c == '"') return out;
                if (static_cast<unsigned char>(c) < 0x20)
                    fail_at(pos - 1, "control character " + describe_char(c) + " in string; escape it");
                if (c != '\\') {
                    out += c;
                    continue;
                }
                if (pos >= text.size()) break;
                std::size_t escape_at = pos - 1;
                char e = text[pos++];
                switch (e) {
                    case '"': out += '"'; break;
                    case '\\': out += '\\'; break;
                    case '/': out += '/'; break;
                    case 'b': out += '\b'; break;
                    case 'f': out += '\f'; break;
                    case 'n': out += '\n'; break;
                    case 'r': out += '\r'; break;
                    case 't': out += '\t'; break;
                    case 'u': {
                        unsigned cp = hex4();
                        if (cp >= 0xDC00 && cp <= 0xDFFF)
                            fail_at(escape_at, "lone low surrogate \\u escape (no high surrogate before it)");
                        if (cp >= 0xD800 && cp <= 0xDBFF) {
                            if (!consume("\\u"))
                                fail_at(escape_at, "high surrogate \\u escape not followed by a low surrogate");
                            unsigned lo = hex4();
                            if (lo < 0xDC00 || lo > 0xDFFF)
                                fail_at(pos - 6, "expected a low surrogate (\\uDC00-\\uDFFF) after a high surrogate");
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        }
                        append_utf8(out, cp);
                        break;
                    }
                    default: fail_at(escape_at, "unknown escape '\\" + std::string(1, e) + "'");
                }
            }
            fail_at(opened, "unterminated string");
        }
        // The JSON number grammar exactly: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
        Json number_value() {
            std::size_t start = pos;
            bool is_float = false;
            if (text[pos] == '-') ++pos;
            if (!digit_here()) fail("expected a digit");
            if (text[pos] == '0') {
                ++pos;
                if (digit_here()) fail_at(start, "numbers must not have leading zeros");
            } else {
                while (digit_here()) ++pos;
            }
            if (pos < text.size() && text[pos] == '.') {
                is_float = true;
                ++pos;
                if (!digit_here()) fail("expected a digit after the decimal point");
                while (digit_here()) ++pos;
            }
            if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
                is_float = true;
                ++pos;
                if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
                if (!digit_here()) fail("expected a digit in the exponent");
                while (digit_here()) ++pos;
            }
            std::string_view token = text.substr(start, pos - start);
            if (!is_float) {
                std::int64_t v = 0;
                auto parsed = std::from_chars(token.data(), token.data() + token.size(), v);
                if (parsed.ec == std::errc()) return Json(v);
                // Too large for int64: fall through to double, as JSON numbers are.
            }
            double d = 0;
            if (!read_double(token, d)) {
                if (decimal_magnitude(token) > 0)
                    fail_at(start, "number " + std::string(token) + " is too large for a double");
                d = token[0] == '-' ? -0.0 : 0.0;  // underflow: as close to zero as a double gets
            }
            return Json(d);
        }
        // Reads a grammar-checked number token without regard to the C locale. False when out
        // of range.
        static bool read_double(std::string_view token, double& out) {
#if defined(__cpp_lib_to_chars)
            auto parsed = std::from_chars(token.data(), token.data() + token.size(), out);
            return parsed.ec == std::errc();
#else
            std::istringstream stream{std::string(token)};
            stream.imbue(std::locale::classic());
            stream >> out;
            return !stream.fail() && std::isfinite(out) && (out != 0 || decimal_magnitude(token) > -300);
#endif
        }
        // Power of ten of the token's leading significant digit plus one (so > 0 means >= 1), to
        // tell an overflow from an underflow. Tokens are grammar-checked.
        static long decimal_magnitude(std::string_view token) {
            std::size_t i = token[0] == '-' ? 1 : 0;
            long integer_digits = 0;
            long leading_fraction_zeros = 0;
            bool significant_seen = false;
            for (; i < token.size() && is_digit(token[i]); ++i)
                if (significant_seen || token[i] != '0') {
                    significant_seen = true;
                    ++integer_digits;
                }
            if (i < token.size() && token[i] == '.') {
                for (++i; i < token.size() && is_digit(token[i]); ++i) {
                    if (!significant_seen && token[i] == '0')
                        ++leading_fraction_zeros;
                    else
                        significant_seen = true;
                }
            }
            long exponent = 0;
            if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
                ++i;
                bool negative = token[i] == '-';
                if (token[i] == '+' || token[i] == '-') ++i;
                for (; i < token.size(); ++i)
                    if (exponent < 100000) exponent = exponent * 10 + (token[i] - '0');
                if (negative) exponent = -exponent;
            }
            if (!significant_seen) return std::numeric_limits<long>::min();  // the value is zero
            return (integer_digits > 0 ? integer_digits : -leading_fraction_zeros) + exponent;
        }
    };

    std::variant<std::nullptr_t, bool, std::int64_t, double, std::string, Array, Object> value_{};
};

}  // namespace skillhost
