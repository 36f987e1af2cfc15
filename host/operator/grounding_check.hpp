// Checks a strict answer against the data it must come from: every number, date, quoted string and
// list-item title in the answer has to appear in some observation. What does not is "offending".
#pragma once

#include "store/run_record.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace skillhost::op {

// Every string and number inside the observations' raw payloads and texts, one per line, lower case.
std::string observation_haystack(const std::vector<store::ScratchpadEntry>& steps);

// The items of `answer` that the haystack does not contain. Empty means grounded.
std::vector<std::string> ungrounded_items(std::string_view answer, std::string_view haystack);

}  // namespace skillhost::op
