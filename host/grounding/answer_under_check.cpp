#include "grounding/answer_under_check.hpp"

#include "grounding/claim_lexer.hpp"
#include "grounding/claim_vocabulary.hpp"

namespace skillhost::grounding::detail {

namespace {

constexpr std::size_t kMaxAnswerTokens = 40000;
constexpr std::size_t kMaxReported = 200;
constexpr std::size_t kMaxSpanBytes = 160;

}  // namespace

bool one_of(std::string_view w, std::initializer_list<std::string_view> words) {
    return std::find(words.begin(), words.end(), w) != words.end();
}

// At most `bytes` bytes of text, not cutting a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view text, std::size_t bytes) {
    if (text.size() <= bytes) return text;
    while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
    return text.substr(0, bytes);
}

bool common(std::string_view norm) {
    return is_common_word(norm) || is_common_word(singular(norm));
}

AnswerUnderCheck::AnswerUnderCheck(std::string_view text, const GroundingFacts& facts_) : answer(text), facts(facts_) {
    if (answer.size() > kMaxCheckedAnswerBytes) {
        answer = utf8_prefix(answer, kMaxCheckedAnswerBytes);
        report("length", "(answer of more than " + std::to_string(kMaxCheckedAnswerBytes) + " bytes)",
               "only the first " + std::to_string(kMaxCheckedAnswerBytes) + " bytes of an answer are checked");
    }
    tokens = lex(answer, kMaxAnswerTokens);
    if (tokens.size() == kMaxAnswerTokens) {
        report("length", "(answer of more than " + std::to_string(kMaxAnswerTokens) + " words)",
               "only the first " + std::to_string(kMaxAnswerTokens) + " words of an answer are checked");
    }
    values = read_values(tokens);
    in_value.assign(tokens.size(), false);
    for (const auto& v : values) {
        for (std::size_t i = v.first; i <= v.last && i < tokens.size(); ++i) in_value[i] = true;
    }
}

void AnswerUnderCheck::report(std::string kind, std::string text, std::string reason) {
    if (out_.size() >= kMaxReported || !seen_.insert(kind + "\n" + text).second) return;
    out_.push_back({std::move(kind), std::move(text), std::move(reason)});
}

std::string AnswerUnderCheck::span(std::size_t first, std::size_t last) const {
    const std::size_t begin = tokens[first].offset;
    const std::size_t end = tokens[last].offset + tokens[last].text.size();
    std::string text(utf8_prefix(answer.substr(begin, end - begin), kMaxSpanBytes));
    for (auto& c : text) {
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    }
    return text;
}

}  // namespace skillhost::grounding::detail
