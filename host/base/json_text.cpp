#include "base/json_text.hpp"

#include <boost/json/stream_parser.hpp>

#include <charconv>
#include <cmath>
#include <boost/json/serialize.hpp>

namespace skillhost {
namespace {

void write_pretty(std::string& out, const boost::json::value& v, int indent, int depth) {
    auto newline = [&](int d) {
        if (indent <= 0) return;
        out += '\n';
        out.append(static_cast<std::size_t>(indent * d), ' ');
    };
    if (v.is_object()) {
        const auto& obj = v.get_object();
        if (obj.empty()) {
            out += "{}";
            return;
        }
        out += '{';
        bool first = true;
        for (const auto& kv : obj) {
            if (!first) out += ',';
            first = false;
            newline(depth + 1);
            out += boost::json::serialize(boost::json::string(kv.key()));
            out += indent > 0 ? ": " : ":";
            write_pretty(out, kv.value(), indent, depth + 1);
        }
        newline(depth);
        out += '}';
    } else if (v.is_array()) {
        const auto& arr = v.get_array();
        if (arr.empty()) {
            out += "[]";
            return;
        }
        out += '[';
        bool first = true;
        for (const auto& item : arr) {
            if (!first) out += ',';
            first = false;
            newline(depth + 1);
            write_pretty(out, item, indent, depth + 1);
        }
        newline(depth);
        out += ']';
    } else if (v.is_double()) {
        out += format_json_number(v.get_double());
    } else {
        out += boost::json::serialize(v);
    }
}

}  // namespace

std::string format_json_number(double d) {
    if (!std::isfinite(d)) return "null";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, d);
    std::string text(buf, res.ptr);
    // Keep it a JSON number that reads back as a double: 3 -> 3.0 is not needed, JSON has one type.
    return text;
}

std::string compact_json(const boost::json::value& value) {
    std::string out;
    write_pretty(out, value, 0, 0);
    return out;
}

std::string pretty_json(const boost::json::value& value, int indent) {
    std::string out;
    write_pretty(out, value, indent, 0);
    return out;
}

bool parse_json(std::string_view text, boost::json::value& out, std::string& problem) {
    boost::json::parse_options opts;
    opts.max_depth = 256;
    boost::json::stream_parser parser({}, opts);
    boost::system::error_code ec;
    std::size_t consumed = parser.write_some(text.data(), text.size(), ec);
    if (!ec && consumed < text.size()) {
        // write_some stops after a complete value: anything but whitespace after it is an error.
        std::size_t pos = text.find_first_not_of(" \t\r\n", consumed);
        if (pos != std::string_view::npos) {
            problem = "unexpected text after the JSON value at byte " + std::to_string(pos);
            return false;
        }
    }
    if (!ec) parser.finish(ec);
    if (ec) {
        problem = ec.message() + " at byte " + std::to_string(consumed);
        return false;
    }
    out = parser.release();
    return true;
}

}  // namespace skillhost
