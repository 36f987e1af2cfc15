#include "operator/grounding_check.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <regex>

namespace skillhost::op {
namespace {

namespace json = boost::json;

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

void collect(const json::value& v, std::string& out) {
    if (v.is_string()) {
        out += lower(v.as_string());
        out += '\n';
    } else if (v.is_array()) {
        for (const auto& item : v.as_array()) collect(item, out);
    } else if (v.is_object()) {
        for (const auto& [key, item] : v.as_object()) {
            out += lower(key);
            out += '\n';
            collect(item, out);
        }
    } else if (!v.is_null()) {
        out += json::serialize(v);
        out += '\n';
    }
}

std::string trim(std::string_view text) {
    const auto begin = text.find_first_not_of(" \t\r*_`\"'");
    if (begin == std::string_view::npos) return {};
    const auto end = text.find_last_not_of(" \t\r*_`\"'.,;:");
    return std::string(text.substr(begin, end - begin + 1));
}

// The title part of a list item: the text before the first separator that introduces details.
std::string item_title(std::string_view item) {
    std::size_t cut = item.size();
    for (std::string_view sep : {" — ", " – ", " - ", " (", ": ", " [", ", "}) {
        cut = std::min(cut, item.find(sep));
    }
    return trim(item.substr(0, cut));
}

}  // namespace

std::string observation_haystack(const std::vector<store::ScratchpadEntry>& steps) {
    std::string out;
    for (const auto& step : steps) {
        if (!step.observation) continue;
        collect(step.observation->raw, out);
        out += lower(step.observation->content);
        out += '\n';
    }
    return out;
}

namespace {

// A number is found only as a whole number: "3" must not match inside "2026-11-23T13:05".
bool contains_number(std::string_view haystack, std::string_view number) {
    const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
    for (auto pos = haystack.find(number); pos != std::string_view::npos; pos = haystack.find(number, pos + 1)) {
        const bool left_ok = pos == 0 || (!is_digit(haystack[pos - 1]) && haystack[pos - 1] != '.');
        const std::size_t end = pos + number.size();
        const bool right_ok =
            end >= haystack.size() || (!is_digit(haystack[end]) &&
                                       !(haystack[end] == '.' && end + 1 < haystack.size() && is_digit(haystack[end + 1])));
        if (left_ok && right_ok) return true;
    }
    return false;
}

}  // namespace

std::vector<std::string> ungrounded_items(std::string_view answer, std::string_view haystack) {
    std::vector<std::string> offending;
    const auto record = [&](const std::string& item) {
        if (std::find(offending.begin(), offending.end(), item) == offending.end()) offending.push_back(item);
    };
    const auto check = [&](const std::string& item) {
        if (item.empty()) return;
        if (haystack.find(lower(item)) != std::string_view::npos) return;
        if (std::find(offending.begin(), offending.end(), item) == offending.end()) offending.push_back(item);
    };
    std::string text(answer);

    static const std::regex list_item(R"((?:^|\n)[ \t]*(?:[-*•]|\d{1,3}[.)])[ \t]+([^\n]+))");
    for (std::sregex_iterator it(text.begin(), text.end(), list_item), end; it != end; ++it) {
        check(item_title((*it)[1].str()));
    }
    // List markers are numbering, not data: drop them before looking for numbers.
    static const std::regex marker(R"((^|\n)[ \t]*\d{1,3}[.)][ \t])");
    text = std::regex_replace(text, marker, "$1- ");

    static const std::regex quoted("\"([^\"\\n]{2,200})\"|“([^”\\n]{2,200})”");
    for (std::sregex_iterator it(text.begin(), text.end(), quoted), end; it != end; ++it) {
        check((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
    }
    static const std::regex date(R"(\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?)");
    for (std::sregex_iterator it(text.begin(), text.end(), date), end; it != end; ++it) check(it->str());
    text = std::regex_replace(text, date, " ");
    static const std::regex number(R"((?:^|[^\w.])(\d+(?:\.\d+)?))");
    for (std::sregex_iterator it(text.begin(), text.end(), number), end; it != end; ++it) {
        const std::string value = (*it)[1].str();
        if (!contains_number(haystack, value)) record(value);
    }
    return offending;
}

}  // namespace skillhost::op
