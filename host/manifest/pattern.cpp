#include "manifest/pattern.hpp"
#include "manifest/error_codes.hpp"

#include <re2/re2.h>

namespace skillhost::manifest {

Pattern::Pattern(std::string source, std::unique_ptr<re2::RE2> compiled)
    : source_(std::move(source)), compiled_(std::move(compiled)) {}

Pattern::~Pattern() = default;

Result<std::shared_ptr<const Pattern>> Pattern::compile(std::string_view source) {
    if (source.size() > max_pattern_length) {
        Error error{errors::kPatternInvalid, "the pattern is " + std::to_string(source.size()) +
                                                 " characters long; keep it under " +
                                                 std::to_string(max_pattern_length)};
        return error;
    }
    re2::RE2::Options options;
    options.set_log_errors(false);
    options.set_encoding(re2::RE2::Options::EncodingUTF8);
    // Bounds the compiled program (and so the memory a hostile manifest can make the host spend).
    options.set_max_mem(8 << 20);
    auto compiled = std::make_unique<re2::RE2>(re2::StringPiece(source.data(), source.size()), options);
    if (!compiled->ok()) {
        std::string why = compiled->error();
        if (compiled->error_code() == re2::RE2::ErrorBadPerlOp ||
            compiled->error_code() == re2::RE2::ErrorBadNamedCapture)
            why += " (lookahead, lookbehind and backreferences cannot run in linear time and are not supported)";
        else if (compiled->error_code() == re2::RE2::ErrorPatternTooLarge)
            why += " (the pattern expands to too large a program; simplify its repetitions)";
        return Error{errors::kPatternInvalid, why};
    }
    return std::shared_ptr<const Pattern>(new Pattern(std::string(source), std::move(compiled)));
}

bool Pattern::found_in(std::string_view text) const {
    return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *compiled_);
}

}  // namespace skillhost::manifest
