#include "oauth/bearer_challenge.hpp"

#include <cctype>

namespace skillhost::oauth {
namespace {

bool is_token_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) return true;
    switch (c) {
        case '!':
        case '#':
        case '$':
        case '%':
        case '&':
        case '\'':
        case '*':
        case '+':
        case '-':
        case '.':
        case '^':
        case '_':
        case '`':
        case '|':
        case '~':
        case '/':
        case ':':
        case '=': return true;
        default: return false;
    }
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

// A cursor over the header; every step moves forward, so the whole read is linear.
struct Reader {
    std::string_view text;
    std::size_t at = 0;

    bool done() const { return at >= text.size(); }
    void skip_space() {
        while (!done() && (text[at] == ' ' || text[at] == '\t')) ++at;
    }
    std::string_view token() {
        const std::size_t start = at;
        while (!done() && is_token_char(text[at]) && text[at] != '=') ++at;
        return text.substr(start, at - start);
    }
    // A token68 or token value (may end in '=' padding).
    std::string_view bare_value() {
        const std::size_t start = at;
        while (!done() && is_token_char(text[at])) ++at;
        return text.substr(start, at - start);
    }
    std::string quoted() {  // at the opening quote
        std::string value;
        ++at;
        while (!done() && text[at] != '"') {
            if (text[at] == '\\' && at + 1 < text.size()) ++at;
            value += text[at++];
        }
        if (!done()) ++at;  // the closing quote
        return value;
    }
};

}  // namespace

std::optional<BearerChallenge> parse_bearer_challenge(std::string_view header) {
    if (header.size() > kMaxHeaderBytes) return std::nullopt;
    Reader in{header};
    std::optional<BearerChallenge> found;
    bool in_bearer = false;
    while (!in.done()) {
        in.skip_space();
        if (in.done()) break;
        if (in.text[in.at] == ',') {
            ++in.at;
            continue;
        }
        const std::string_view name = in.token();
        if (name.empty()) {  // a character no grammar allows here: step over it
            ++in.at;
            continue;
        }
        in.skip_space();
        if (in.done() || in.text[in.at] != '=') {
            // A scheme name starts a new challenge.
            if (found && in_bearer) return found;  // the Bearer challenge ended
            in_bearer = equals_ignoring_case(name, "bearer");
            if (in_bearer) found.emplace();
            continue;
        }
        ++in.at;  // '='
        in.skip_space();
        std::string value;
        if (!in.done() && in.text[in.at] == '"') {
            value = in.quoted();
        } else {
            value = std::string(in.bare_value());
        }
        if (!in_bearer || !found || value.size() > kMaxParameterBytes) continue;
        if (equals_ignoring_case(name, "error"))
            found->error = value;
        else if (equals_ignoring_case(name, "error_description"))
            found->error_description = value;
        else if (equals_ignoring_case(name, "scope"))
            found->scope = value;
        else if (equals_ignoring_case(name, "resource_metadata"))
            found->resource_metadata = value;
    }
    return found;
}

}  // namespace skillhost::oauth
