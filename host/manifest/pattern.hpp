// A manifest `pattern`, compiled once when the manifest is read and matched in linear time (RE2).
// Patterns are applied to arguments from any caller before policy runs, so matching must never
// backtrack or recurse, whatever the pattern and the input.
#pragma once

#include "base/error.hpp"

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace skillhost::manifest {

class Pattern {
public:
    // Compiles `source` with JSON Schema's meaning (the text matches when the pattern is found
    // anywhere in it). PATTERN_INVALID says why RE2 refused it: malformed, or a construct a
    // linear-time engine cannot run (backreferences, lookahead and lookbehind).
    static Result<std::shared_ptr<const Pattern>> compile(std::string_view source);

    ~Pattern();
    Pattern(const Pattern&) = delete;
    Pattern& operator=(const Pattern&) = delete;

    bool found_in(std::string_view text) const;
    const std::string& source() const { return source_; }

private:
    Pattern(std::string source, std::unique_ptr<re2::RE2> compiled);

    std::string source_;
    std::unique_ptr<re2::RE2> compiled_;
};

// The longest pattern a manifest may declare.
inline constexpr std::size_t max_pattern_length = 4096;

}  // namespace skillhost::manifest
