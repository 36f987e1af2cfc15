// The host's generic advice per error code, shown after a plugin's own error hints.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace skillhost::exec {

// What to try next when an error with `code` happens, independent of the skill. Empty for codes
// the host has nothing general to say about.
const std::vector<std::string>& generic_suggestions(std::string_view code);

}  // namespace skillhost::exec
