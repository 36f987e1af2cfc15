#include "manifest/identifier_text.hpp"

#include <algorithm>

namespace skillhost::manifest {
namespace {

bool lower(char c) {
    return c >= 'a' && c <= 'z';
}
bool upper(char c) {
    return c >= 'A' && c <= 'Z';
}
bool digit(char c) {
    return c >= '0' && c <= '9';
}

template <typename First, typename Rest>
bool shaped(std::string_view text, First first, Rest rest) {
    return !text.empty() && first(text.front()) && std::all_of(text.begin() + 1, text.end(), rest);
}

std::optional<std::uint32_t> digits(std::string_view text) {
    if (text.empty() || text.size() > 9 || !std::all_of(text.begin(), text.end(), digit)) return std::nullopt;
    std::uint32_t value = 0;
    for (char c : text) value = value * 10 + static_cast<std::uint32_t>(c - '0');
    return value;
}

}  // namespace

bool is_skill_id(std::string_view text) {
    return shaped(text, lower, [](char c) { return lower(c) || digit(c) || c == '_'; });
}

bool is_plugin_name(std::string_view text) {
    return shaped(text, lower, [](char c) { return lower(c) || digit(c) || c == '_' || c == '-'; });
}

bool is_error_code(std::string_view text) {
    return shaped(text, upper, [](char c) { return upper(c) || digit(c) || c == '_'; });
}

std::optional<MajorMinor> parse_major_minor(std::string_view text) {
    const std::size_t dot = text.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    const auto major = digits(text.substr(0, dot));
    const auto minor = digits(text.substr(dot + 1));
    if (!major || !minor) return std::nullopt;
    return MajorMinor{*major, *minor};
}

}  // namespace skillhost::manifest
