// skillhost/json.hpp — a small JSON value for plugin authors (header-only, standard library only).
//
// Enough JSON to read skill arguments and build results without another dependency:
//   skillhost::Json args = skillhost::Json::parse(text);          // throws skillhost::JsonError
//   std::string title = args["title"].as_string();
//   skillhost::Json out = skillhost::Json::object({{"id", 7}, {"tags", Json::array({"a", "b"})}});
//   std::string text = out.dump();
// Objects keep insertion order. Numbers keep integers exact (int64) and use double otherwise.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
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
    Json(unsigned long u) : value_(static_cast<std::int64_t>(u)) {}
    Json(unsigned long long u) : value_(static_cast<std::int64_t>(u)) {}
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
    const Json& operator[](std::size_t index) const { return as_array().at(index); }
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

    friend bool operator==(const Json& a, const Json& b) {
        if (a.is_number() && b.is_number() && a.kind() != b.kind())
            return a.as_double() == b.as_double();
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
        static const char* names[] = {"null", "a boolean", "an integer", "a number",
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

    static void write_string(std::string& out, std::string_view s) {
        out += '"';
        for (unsigned char c : s) {
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
                if (!std::isfinite(d)) { out += "null"; break; }
                char buf[32];
                std::snprintf(buf, sizeof buf, "%.17g", d);
                out += buf;
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
        std::string_view text;
        std::size_t pos;
        int depth;

        [[noreturn]] void fail(const std::string& what) const {
            throw JsonError("invalid JSON at byte " + std::to_string(pos) + ": " + what);
        }
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
        Json value() {
            if (pos >= text.size()) fail("unexpected end of input");
            if (++depth > 256) fail("nesting deeper than 256 levels");
            Json v;
            char c = text[pos];
            if (c == '{') v = object_value();
            else if (c == '[') v = array_value();
            else if (c == '"') v = Json(string_value());
            else if (consume("true")) v = Json(true);
            else if (consume("false")) v = Json(false);
            else if (consume("null")) v = Json();
            else if (c == '-' || (c >= '0' && c <= '9')) v = number_value();
            else fail(std::string("unexpected character '") + c + "'");
            --depth;
            return v;
        }
        Json object_value() {
            Object obj;
            ++pos;
            skip_space();
            if (pos < text.size() && text[pos] == '}') { ++pos; return Json(std::move(obj)); }
            for (;;) {
                skip_space();
                if (pos >= text.size() || text[pos] != '"') fail("expected a quoted member name");
                std::string key = string_value();
                skip_space();
                if (pos >= text.size() || text[pos] != ':') fail("expected ':' after member name");
                ++pos;
                skip_space();
                Json member = value();
                bool replaced = false;
                for (auto& m : obj)
                    if (m.first == key) { m.second = std::move(member); replaced = true; break; }
                if (!replaced) obj.emplace_back(std::move(key), std::move(member));
                skip_space();
                if (pos < text.size() && text[pos] == ',') { ++pos; continue; }
                if (pos < text.size() && text[pos] == '}') { ++pos; return Json(std::move(obj)); }
                fail("expected ',' or '}' in object");
            }
        }
        Json array_value() {
            Array arr;
            ++pos;
            skip_space();
            if (pos < text.size() && text[pos] == ']') { ++pos; return Json(std::move(arr)); }
            for (;;) {
                skip_space();
                arr.push_back(value());
                skip_space();
                if (pos < text.size() && text[pos] == ',') { ++pos; continue; }
                if (pos < text.size() && text[pos] == ']') { ++pos; return Json(std::move(arr)); }
                fail("expected ',' or ']' in array");
            }
        }
        unsigned hex4() {
            if (pos + 4 > text.size()) fail("truncated \\u escape");
            unsigned v = 0;
            for (int i = 0; i < 4; ++i) {
                char h = text[pos++];
                v <<= 4;
                if (h >= '0' && h <= '9') v |= static_cast<unsigned>(h - '0');
                else if (h >= 'a' && h <= 'f') v |= static_cast<unsigned>(h - 'a' + 10);
                else if (h >= 'A' && h <= 'F') v |= static_cast<unsigned>(h - 'A' + 10);
                else fail("bad hex digit in \\u escape");
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
            std::string out;
            ++pos;
            while (pos < text.size()) {
                char c = text[pos++];
                if (c == '"') return out;
                if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
                if (c != '\\') { out += c; continue; }
                if (pos >= text.size()) break;
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
                        if (cp >= 0xD800 && cp <= 0xDBFF) {
                            if (!consume("\\u")) fail("lone high surrogate");
                            unsigned lo = hex4();
                            if (lo < 0xDC00 || lo > 0xDFFF) fail("bad low surrogate");
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        }
                        append_utf8(out, cp);
                        break;
                    }
                    default: fail(std::string("unknown escape '\\") + e + "'");
                }
            }
            fail("unterminated string");
        }
        Json number_value() {
            std::size_t start = pos;
            bool is_float = false;
            if (text[pos] == '-') ++pos;
            if (pos >= text.size() || text[pos] < '0' || text[pos] > '9') fail("expected a digit");
            while (pos < text.size()) {
                char c = text[pos];
                if (c >= '0' && c <= '9') { ++pos; continue; }
                if (c == '.' || c == 'e' || c == 'E' || c == '+' || (c == '-' && pos > start)) {
                    is_float = true;
                    ++pos;
                    continue;
                }
                break;
            }
            std::string token(text.substr(start, pos - start));
            if (!is_float) {
                errno = 0;
                char* end = nullptr;
                long long v = std::strtoll(token.c_str(), &end, 10);
                if (errno == 0 && end && *end == '\0') return Json(static_cast<std::int64_t>(v));
            }
            char* end = nullptr;
            double d = std::strtod(token.c_str(), &end);
            if (!end || *end != '\0') fail("malformed number '" + token + "'");
            return Json(d);
        }
    };

    std::variant<std::nullptr_t, bool, std::int64_t, double, std::string, Array, Object> value_{};
};

}  // namespace skillhost
