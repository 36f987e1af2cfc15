// Linear text scanning for rule-based reading of text: phrases matched at word boundaries and cuts of the
// text around them. Hand-written instead of std::regex, whose backtracking recurses and overflows
// the stack on long input; every function here is a bounded number of passes over the text.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace skillhost::language {

std::string lowercase(std::string_view text);

// Cuts `junk` characters from both ends.
std::string trim(std::string_view text, std::string_view junk = " \t\r\n.,;:!?\"'");

// A byte that belongs to a word: an ASCII letter, digit or '_' (what \b means).
bool is_word_byte(char c);

// The position of the first occurrence of `phrase` at or after `from` that starts and ends at a word
// boundary, or npos. `text` and `phrase` compare byte for byte (lower-case both for a case-blind match).
std::size_t find_phrase(std::string_view text, std::string_view phrase, std::size_t from = 0);

bool has_phrase(std::string_view text, std::string_view phrase);
bool has_any_phrase(std::string_view text, std::initializer_list<std::string_view> phrases);

// True when `text`, after leading white space, begins with one of `phrases` followed by a word boundary.
bool starts_with_any_phrase(std::string_view text, std::initializer_list<std::string_view> phrases);

// The first of `phrases` found in `text` (earliest position; npos when none), and its length.
struct PhraseHit {
    std::size_t pos = std::string_view::npos;
    std::size_t length = 0;
    explicit operator bool() const { return pos != std::string_view::npos; }
    std::size_t end() const { return pos + length; }
};
PhraseHit first_phrase(std::string_view text, std::initializer_list<std::string_view> phrases, std::size_t from = 0);

}  // namespace skillhost::language
