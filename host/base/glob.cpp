#include "base/glob.hpp"

#include <vector>

namespace skillhost {

namespace {

// Memoised over (pattern position, text position) so patterns like `**a**b**` stay polynomial.
class GlobMatcher {
public:
    GlobMatcher(std::string_view pattern, std::string_view text)
        : pattern_(pattern), text_(text), memo_((pattern.size() + 1) * (text.size() + 1), unknown) {}

    bool match(std::size_t p, std::size_t t) {
        char& cached = memo_[p * (text_.size() + 1) + t];
        if (cached != unknown) return cached == yes;
        const bool result = compute(p, t);
        cached = result ? yes : no;
        return result;
    }

private:
    bool compute(std::size_t p, std::size_t t) {
        if (p == pattern_.size()) return t == text_.size();
        const char c = pattern_[p];
        if (c == '*') {
            const bool double_star = p + 1 < pattern_.size() && pattern_[p + 1] == '*';
            if (double_star) {
                std::size_t next = p + 2;
                while (next < pattern_.size() && pattern_[next] == '*') ++next;
                // `**/` may stand for no directory at all.
                if (next < pattern_.size() && pattern_[next] == '/' && match(next + 1, t)) return true;
                for (std::size_t k = t; k <= text_.size(); ++k) {
                    if (match(next, k)) return true;
                }
                return false;
            }
            for (std::size_t k = t; k <= text_.size(); ++k) {
                if (match(p + 1, k)) return true;
                if (k < text_.size() && text_[k] == '/') break;
            }
            return false;
        }
        if (t == text_.size()) return false;
        if (c == '?') return text_[t] != '/' && match(p + 1, t + 1);
        return c == text_[t] && match(p + 1, t + 1);
    }

    static constexpr char unknown = 0, yes = 1, no = 2;
    std::string_view pattern_;
    std::string_view text_;
    std::vector<char> memo_;
};

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
    // Fast paths for the common rule shapes: exact ids and a lone `*`.
    if (pattern.find_first_of("*?") == std::string_view::npos) return pattern == text;
    if (pattern == "*") return text.find('/') == std::string_view::npos;
    return GlobMatcher(pattern, text).match(0, 0);
}

}  // namespace skillhost
