// The parts of the grounding check (grounding_check.hpp), each a kind of claim in its own file,
// share one answer under check: its tokens and values, the facts it is checked against, and the
// list of what is not supported. Internal to grounding/.
#pragma once

#include "grounding/grounding_check.hpp"

#include <cstddef>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::grounding::detail {

bool one_of(std::string_view w, std::initializer_list<std::string_view> words);
// At most `bytes` bytes of text, not cutting a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view text, std::size_t bytes);
// A word too common to be a name or a list item's content.
bool common(std::string_view norm);

// The answer, lexed once, and what was found unsupported so far (each claim reported once, at most
// kMaxReported in all).
class AnswerUnderCheck {
public:
    AnswerUnderCheck(std::string_view answer, const GroundingFacts& facts);

    void report(std::string kind, std::string text, std::string reason);
    // The answer's text from token `first` to token `last`, on one line, at most kMaxSpanBytes.
    std::string span(std::size_t first, std::size_t last) const;
    // The observations have this number written exactly so.
    bool literal(const std::string& norm) const { return facts.numbers.contains(norm); }
    std::vector<UnsupportedClaim> take() { return std::move(out_); }

    std::string_view answer;  // cut to kMaxCheckedAnswerBytes
    const GroundingFacts& facts;
    std::vector<Token> tokens;
    std::vector<ClaimValue> values;
    std::vector<bool> in_value;  // per token: part of a value (a number, a date...)

private:
    std::vector<UnsupportedClaim> out_;
    std::set<std::string> seen_;
};

// What a check of one kind of claim sees: the answer under check by the names the checks use.
class ClaimCheck {
public:
    explicit ClaimCheck(AnswerUnderCheck& a)
        : a_(a), answer_(a.answer), f_(a.facts), tokens_(a.tokens), values_(a.values), in_value_(a.in_value) {}

protected:
    void report(std::string kind, std::string text, std::string reason) {
        a_.report(std::move(kind), std::move(text), std::move(reason));
    }
    std::string span(std::size_t first, std::size_t last) const { return a_.span(first, last); }
    bool literal(const std::string& norm) const { return a_.literal(norm); }

    AnswerUnderCheck& a_;
    std::string_view answer_;
    const GroundingFacts& f_;
    const std::vector<Token>& tokens_;
    const std::vector<ClaimValue>& values_;
    const std::vector<bool>& in_value_;
};

// Numbers (digits and words), ordinals, percentages, amounts, counts, dates, weekdays and times.
void check_values(AnswerUnderCheck& answer);
// URLs, e-mail addresses, paths and codes, quoted strings, proper names and list items: text that
// must appear in the observations.
void check_quoted_text(AnswerUnderCheck& answer);
// Statements about the status of items ("all tasks are done", "the report is still open").
void check_statuses(AnswerUnderCheck& answer);

}  // namespace skillhost::grounding::detail
