// Checks an answer against the data it must come from. The answer's claims — numbers (in digits and
// words), ordinals, percentages, amounts of money, dates and times, URLs, e-mail addresses, paths,
// quoted strings, proper names, list items, and statements about items' statuses — are each looked
// up in the observations (and the goal). What is not found is reported, with the reason.
#pragma once

#include "grounding/grounding_facts.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace skillhost::grounding {

struct UnsupportedClaim {
    std::string kind;    // number, count, date, time, url, email, path, code, quote, name, list_item, status, length
    std::string text;    // as written in the answer
    std::string reason;  // why the data does not support it
};

// At most this much of an answer is analysed; a longer answer fails the check (the rest would be
// unverified).
inline constexpr std::size_t kMaxCheckedAnswerBytes = 128 * 1024;

std::vector<UnsupportedClaim> unsupported_claims(std::string_view answer, const GroundingFacts& facts);

}  // namespace skillhost::grounding
