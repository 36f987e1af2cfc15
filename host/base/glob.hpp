// Glob patterns for rule matching: `*` matches any run of characters except `/`, `**` matches any
// run including `/` (and `**/` may match nothing, so `**/x` matches `x`), `?` one character except
// `/`. Every other character matches itself.
#pragma once

#include <string_view>

namespace skillhost {

bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace skillhost
