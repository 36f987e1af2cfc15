// The vocabulary the claim lexer and the grounding check share (see claim_vocabulary.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace skillhost::grounding {

// All take folded lower-case words.
int month_number(std::string_view word);     // 1..12, 0 when not a month name or abbreviation
int weekday_number(std::string_view word);   // 0 Sunday .. 6 Saturday, -1 when not a weekday
int number_word(std::string_view word);      // "seven" -> 7, "twenty" -> 20, "hundred" -> 100; -1 otherwise
int ordinal_word(std::string_view word);     // "third" -> 3; -1 otherwise ("first"/"second" are too common)
bool is_common_word(std::string_view word);  // function words and words answers capitalise without naming anything
// A crude stem for matching paraphrases: -ing/-ed/-es/-s and a final e dropped, then the first four
// letters ("filing" and "file", "renewal" and "renew" meet).
std::string stem(std::string_view word);

// Days since 1970-01-01 for a civil date, and the weekday of a date (0 Sunday).
std::int64_t days_from_civil(int year, int month, int day);
int weekday_of(int year, int month, int day);

}  // namespace skillhost::grounding
