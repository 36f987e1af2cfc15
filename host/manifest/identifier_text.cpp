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
bool letter(char c) {
    return lower(c) || upper(c);
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

bool is_variable_name(std::string_view text) {
    return !text.empty() && (letter(text.front()) || text.front() == '_') &&
           std::all_of(text.begin() + 1, text.end(), [](char c) { return letter(c) || digit(c) || c == '_'; });
}

bool is_header_name(std::string_view text) {
    constexpr std::string_view kTokenPunctuation = "!#$%&'*+-.^_`|~";
    return !text.empty() && std::all_of(text.begin(), text.end(), [&](char c) {
        return letter(c) || digit(c) || kTokenPunctuation.find(c) != std::string_view::npos;
    });
}

bool is_tool_name(std::string_view text) {
    return !text.empty() && text.size() <= kMaxToolName && std::all_of(text.begin(), text.end(), [](char c) {
        return letter(c) || digit(c) || c == '_' || c == '.' || c == '-';
    });
}

bool is_npm_name(std::string_view text) {
    auto part = [](std::string_view piece) {
        return !piece.empty() && piece.front() != '.' && piece.front() != '_' &&
               std::all_of(piece.begin(), piece.end(), [](char c) {
                   return (c >= 'a' && c <= 'z') || digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
               });
    };
    if (text.size() > 214) return false;
    if (text.empty() || text.front() != '@') return part(text);
    const std::size_t slash = text.find('/');
    return slash != std::string_view::npos && part(text.substr(1, slash - 1)) && part(text.substr(slash + 1));
}

bool is_exact_version(std::string_view text) {
    const std::size_t dash = text.find('-');
    const std::string_view core = text.substr(0, dash);
    if (core.empty() || core.front() == '.' || core.back() == '.' || core.find("..") != std::string_view::npos ||
        !std::all_of(core.begin(), core.end(), [](char c) { return digit(c) || c == '.'; })) {
        return false;
    }
    if (dash == std::string_view::npos) return true;
    const std::string_view prerelease = text.substr(dash + 1);
    return !prerelease.empty() && std::all_of(prerelease.begin(), prerelease.end(),
                                              [](char c) { return letter(c) || digit(c) || c == '.' || c == '-'; });
}

bool is_sha512_integrity(std::string_view text) {
    constexpr std::string_view kPrefix = "sha512-";
    if (!text.starts_with(kPrefix)) return false;
    std::string_view digest = text.substr(kPrefix.size());
    for (int padding = 0; padding < 2 && digest.ends_with('='); ++padding) digest.remove_suffix(1);
    return !digest.empty() && std::all_of(digest.begin(), digest.end(),
                                          [](char c) { return letter(c) || digit(c) || c == '+' || c == '/'; });
}

bool has_nul(std::string_view text) {
    return text.find('\0') != std::string_view::npos;
}

bool has_nul_or_line_break(std::string_view text) {
    return text.find_first_of(std::string_view("\0\r\n", 3)) != std::string_view::npos;
}

bool same_header(std::string_view a, std::string_view b) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) { return lower(x) == lower(y); });
}

std::size_t count_of(std::string_view text, std::string_view part) {
    std::size_t count = 0;
    for (std::size_t at = text.find(part); at != std::string_view::npos; at = text.find(part, at + part.size())) {
        ++count;
    }
    return count;
}

}  // namespace skillhost::manifest
