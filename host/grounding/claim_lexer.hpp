// Splits text into the tokens the grounding check reasons about: words, numbers, dates, times,
// URLs, e-mail addresses, file paths and codes. One pass, no backtracking, no regex: answers and
// observations can be long and hostile, so every step looks at a bounded window.
#pragma once

#include "grounding/claim_vocabulary.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::grounding {

struct Token {
    enum class Kind { word, number, date, time, url, email, path, code };
    Kind kind = Kind::word;
    std::string text;  // as written (wrapping punctuation removed)
    std::string norm;  // lower case, accents folded; numbers: canonical ("1250", "3.5"); paths/URLs normalised
    // number
    double value = 0;
    bool integer = false;
    bool percent = false;
    bool ordinal = false;  // 3rd, 28th
    std::string currency;  // "eur", "usd", "gbp", "jpy" when a symbol was attached
    // date: day/month (month 0: unknown); a second reading for ambiguous slash dates (28/11 vs 11/28)
    int year = 0, month = 0, day = 0;
    int alt_month = 0, alt_day = 0;
    // time: minutes after midnight; `twelve_hour_unknown` when 5:30 could be 17:30
    int minutes = -1;
    bool twelve_hour_unknown = false;
    // position
    bool capitalised = false;     // first letter upper case
    bool all_caps = false;        // two or more letters, all upper case
    bool sentence_start = false;  // first token of a sentence, line or list item
    bool item_start = false;      // first token after a list marker ("- ", "2. ")
    bool punct_before = false;    // punctuation (not just spaces) separates it from the previous token
    std::uint32_t sentence = 0;
    std::uint32_t clause = 0;  // a new clause after , ; : and at every sentence
    std::uint32_t line = 0;
    std::size_t offset = 0;  // byte offset in the text
};

// At most `max_tokens` tokens are produced (the caller says what happens to the rest).
std::vector<Token> lex(std::string_view text, std::size_t max_tokens = 200000);

// Lower case with Latin-1 accents folded to ASCII ("Tomás" -> "tomas"); other bytes unchanged.
std::string fold_lower(std::string_view text);

}  // namespace skillhost::grounding
