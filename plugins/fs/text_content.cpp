#include "text_content.hpp"

namespace skillhost_builtin::fs {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when invalid; `incomplete` is set
// when the sequence is valid so far but runs past the end.
std::size_t sequence_length(std::string_view s, std::size_t i, bool& incomplete) {
    incomplete = false;
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = b(i);
    if (c < 0x80) return 1;
    std::size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c == 0xE0) {
        len = 3;
        lo = 0xA0;
    } else if (c >= 0xE1 && c <= 0xEC)
        len = 3;
    else if (c == 0xED) {
        len = 3;
        hi = 0x9F;
    } else if (c >= 0xEE && c <= 0xEF)
        len = 3;
    else if (c == 0xF0) {
        len = 4;
        lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3)
        len = 4;
    else if (c == 0xF4) {
        len = 4;
        hi = 0x8F;
    } else
        return 0;
    for (std::size_t k = 1; k < len; ++k) {
        if (i + k >= s.size()) {
            incomplete = true;
            return 0;
        }
        unsigned char cc = b(i + k);
        unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
        if (cc < l || cc > h) return 0;
    }
    return len;
}

}  // namespace

Utf8Check check_utf8(std::string_view bytes) {
    Utf8Check out;
    std::size_t i = 0;
    while (i < bytes.size()) {
        bool incomplete = false;
        std::size_t n = sequence_length(bytes, i, incomplete);
        if (n == 0) {
            out.valid_prefix = i;
            out.truncated_sequence_only = incomplete;
            return out;
        }
        i += n;
    }
    out.valid_prefix = bytes.size();
    return out;
}

bool looks_like_text(std::string_view bytes, bool cut) {
    if (bytes.find('\0') != std::string_view::npos) return false;
    Utf8Check c = check_utf8(bytes);
    return c.valid_prefix == bytes.size() || (cut && c.truncated_sequence_only);
}

std::string sanitize_utf8(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    std::size_t i = 0;
    while (i < bytes.size()) {
        bool incomplete = false;
        std::size_t n = sequence_length(bytes, i, incomplete);
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
            continue;
        }
        out.append(bytes.substr(i, n));
        i += n;
    }
    return out;
}

std::string base64_encode(std::string_view bytes) {
    static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
                     static_cast<unsigned char>(bytes[i + 2]);
        out += table[v >> 18 & 63];
        out += table[v >> 12 & 63];
        out += table[v >> 6 & 63];
        out += table[v & 63];
    }
    if (i < bytes.size()) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += table[v >> 18 & 63];
        out += table[v >> 12 & 63];
        out += i + 1 < bytes.size() ? table[v >> 6 & 63] : '=';
        out += '=';
    }
    return out;
}

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return text;
    std::size_t end = max_bytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    return text.substr(0, end);
}

}  // namespace skillhost_builtin::fs
