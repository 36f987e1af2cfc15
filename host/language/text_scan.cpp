#include "language/text_scan.hpp"

#include <cctype>

namespace skillhost::language {

std::string lowercase(std::string_view text) {
    std::string out(text);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string trim(std::string_view text, std::string_view junk) {
    const auto first = text.find_first_not_of(junk);
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(junk);
    return std::string(text.substr(first, last - first + 1));
}

bool is_word_byte(char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || c == '_';
}

std::size_t find_phrase(std::string_view text, std::string_view phrase, std::size_t from) {
    if (phrase.empty()) return std::string_view::npos;
    // A phrase that begins (ends) with a non-word byte needs no boundary on that side.
    const bool bound_start = is_word_byte(phrase.front());
    const bool bound_end = is_word_byte(phrase.back());
    for (auto pos = text.find(phrase, from); pos != std::string_view::npos; pos = text.find(phrase, pos + 1)) {
        const bool starts = !bound_start || pos == 0 || !is_word_byte(text[pos - 1]);
        const std::size_t end = pos + phrase.size();
        const bool ends = !bound_end || end == text.size() || !is_word_byte(text[end]);
        if (starts && ends) return pos;
    }
    return std::string_view::npos;
}

bool has_phrase(std::string_view text, std::string_view phrase) {
    return find_phrase(text, phrase) != std::string_view::npos;
}

bool has_any_phrase(std::string_view text, std::initializer_list<std::string_view> phrases) {
    for (auto phrase : phrases) {
        if (has_phrase(text, phrase)) return true;
    }
    return false;
}

bool starts_with_any_phrase(std::string_view text, std::initializer_list<std::string_view> phrases) {
    const auto start = text.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) return false;
    text.remove_prefix(start);
    for (auto phrase : phrases) {
        if (!text.starts_with(phrase)) continue;
        if (text.size() == phrase.size() || !is_word_byte(phrase.back()) || !is_word_byte(text[phrase.size()])) {
            return true;
        }
    }
    return false;
}

PhraseHit first_phrase(std::string_view text, std::initializer_list<std::string_view> phrases, std::size_t from) {
    PhraseHit hit;
    for (auto phrase : phrases) {
        const auto pos = find_phrase(text, phrase, from);
        if (pos < hit.pos) hit = PhraseHit{pos, phrase.size()};
    }
    return hit;
}

}  // namespace skillhost::language
