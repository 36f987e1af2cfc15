// What the observations (and the user's goal) say, indexed for the grounding check: every number,
// date, time, URL, e-mail address, path and word that appears, the lists the skills returned (their
// sizes and the values of their items' fields), and the items that carry a status field.
#pragma once

#include "grounding/claim_lexer.hpp"
#include "store/run_record.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace skillhost::grounding {

// A date, time, number or weekday read from tokens ("28 November", "seven", "Friday", "5:30 pm").
struct ClaimValue {
    enum class Kind { number, date, month, weekday, time, ordinal };
    Kind kind = Kind::number;
    std::size_t first = 0, last = 0;  // token indexes, inclusive
    std::string norm;                 // numbers: canonical text
    double value = 0;
    bool integer = false, percent = false;
    std::string currency;
    int year = 0, month = 0, day = 0, alt_month = 0, alt_day = 0;
    int weekday = -1;
    int minutes = -1;
    bool twelve_hour_unknown = false;
};

// Reads the values in a token sequence. `tokens` as produced by lex().
std::vector<ClaimValue> read_values(const std::vector<Token>& tokens);

// "tasks" -> "task", "memories" -> "memory", "lockboxes" -> "lockbox".
std::string singular(std::string_view word);

// done/completed/finished -> done, open/pending/todo -> open, in_progress/started -> in_progress,
// cancelled/canceled -> cancelled; empty for other words.
std::string canonical_status(std::string_view word);

class GroundingFacts {
public:
    // `today` (year, month, day) lets "in 5 days" be compared with the observed dates.
    static GroundingFacts from_observations(const std::vector<store::ScratchpadEntry>& steps, std::string_view goal,
                                            std::optional<std::tuple<int, int, int>> today = std::nullopt);

    struct List {
        std::set<std::string> nouns;  // "task", from the key and the tool
        std::size_t size = 0;
        std::vector<std::int64_t> declared;  // count/total fields beside the list
        std::vector<std::unordered_set<std::string>>
            items;  // each item's field values (lower case, canonical statuses too)
    };
    struct StatusItem {
        std::string title;
        std::vector<std::string> stems;  // content words of the title, stemmed
        std::string status;              // canonical
        std::unordered_set<std::string> values;
    };

    // Lexical facts.
    std::unordered_set<std::string> numbers, codes, urls, emails, paths, currencies;
    std::set<std::pair<int, int>> month_days;
    std::set<std::tuple<int, int, int>> dates;
    std::set<int> months, weekdays, minutes, days_of_month;
    std::set<std::int64_t> day_offsets;  // observed date minus today, in days (when today is known)
    // Lists and statuses.
    std::vector<List> lists;
    std::unordered_set<std::string> group_values, field_keys, list_nouns;
    std::set<std::int64_t> counts;       // list sizes and count/total fields
    std::set<std::int64_t> percentages;  // share of a list's items having one value, rounded both ways
    std::size_t max_list = 0, max_lines = 0;
    std::vector<StatusItem> status_items;

    // The words of `norms` appear consecutively in one string. Bounded work; false when exceeded.
    bool has_phrase(const std::vector<std::string>& norms) const;
    // All the words appear in one record (an object's own strings); `stemmed` compares stems.
    bool in_one_record(const std::vector<std::string>& words, bool stemmed) const;
    bool has_word(std::string_view norm) const { return ids_.contains(std::string(norm)); }
    // The words written right after (`offset` 1) or right before (-1) `norm` within one string of the
    // observations, each once; bounded.
    std::vector<std::string> neighbours(std::string_view norm, int offset) const;
    bool has_stem(const std::string& word_stem) const { return stem_records_.contains(word_stem); }
    bool truncated() const { return truncated_; }

private:
    friend class FactsBuilder;
    std::unordered_map<std::string, std::uint32_t> ids_;
    std::vector<std::uint32_t> stream_;  // word ids; kBoundary between strings
    std::vector<std::vector<std::uint32_t>> positions_;
    std::vector<std::string> norms_;  // by word id
    std::unordered_map<std::string, std::vector<std::uint32_t>> word_records_, stem_records_;
    bool truncated_ = false;
};

}  // namespace skillhost::grounding
