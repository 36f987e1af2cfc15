// Deciding whether bytes are text, and making any bytes safe to put in a JSON string.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace skillhost_builtin::fs {

// Length of the longest prefix of `bytes` that is valid UTF-8, and whether the invalid rest (if
// any) is only an incomplete sequence cut off at the end (as happens when a read is truncated).
struct Utf8Check {
    std::size_t valid_prefix = 0;
    bool truncated_sequence_only = false;
};
Utf8Check check_utf8(std::string_view bytes);

// Text = no NUL byte and valid UTF-8 (an incomplete final sequence is tolerated when `cut`).
bool looks_like_text(std::string_view bytes, bool cut);

// Replaces every invalid UTF-8 sequence by U+FFFD, so the result can go into JSON.
std::string sanitize_utf8(std::string_view bytes);

std::string base64_encode(std::string_view bytes);

// Shortens `text` to at most `max_bytes` without splitting a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

}  // namespace skillhost_builtin::fs
