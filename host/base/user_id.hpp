// What a user id may be, everywhere: in users.yaml, policy.yaml, tokens, and every call the executor
// runs (the id names the user's data directories, so it must be one plain path component).
#pragma once

#include <string_view>

namespace skillhost {

// 1 to 64 characters of a-z 0-9 . _ -, starting with a letter or digit.
bool is_valid_user_id(std::string_view id);

// The rule above in words, for error messages.
inline constexpr std::string_view user_id_rule = "1-64 of a-z 0-9 . _ - starting with a letter or digit";

}  // namespace skillhost
