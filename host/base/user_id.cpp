#include "base/user_id.hpp"

#include <algorithm>

namespace skillhost {

bool is_valid_user_id(std::string_view id) {
    if (id.empty() || id.size() > 64) return false;
    auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!lower_or_digit(id.front())) return false;
    return std::all_of(id.begin(), id.end(),
                       [&](char c) { return lower_or_digit(c) || c == '.' || c == '_' || c == '-'; });
}

}  // namespace skillhost
