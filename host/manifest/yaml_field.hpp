// Internal to manifest/: reading YAML values while recording every problem with its position and
// dotted field path. Readers never throw and never stop at the first problem; they report into a
// ProblemList and return nullopt for a value they could not read.
#pragma once

#include "manifest/manifest.hpp"

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skillhost::manifest::detail {

// yaml-cpp's 0-based Mark as a 1-based position; {0,0} when the node has no mark.
SourcePosition position_of(const YAML::Node& node);

// A YAML value together with where it is: its dotted field path and its source position.
struct Field {
    YAML::Node value;
    std::string path;
    SourcePosition at;

    // The value under `key` of this mapping. An empty value (`key:` with nothing after it) is
    // positioned at its key, because yaml-cpp marks it at the next token, often on a later line.
    Field child(std::string_view key, const YAML::Node& key_node, const YAML::Node& child_value) const;
    // Item `index` of this sequence, path "field[index]".
    Field item(std::size_t index, const YAML::Node& item_value) const;
};

class ProblemList {
public:
    explicit ProblemList(std::string file) : file_(std::move(file)) {}

    void add(const Field& where, std::string message);
    void add(SourcePosition at, std::string field, std::string message);

    bool empty() const { return problems_.empty(); }
    // Every problem, ordered by position in the file (problems without a position last).
    std::vector<ManifestProblem> sorted() const;

private:
    std::string file_;
    std::vector<ManifestProblem> problems_;
};

using KeyList = std::span<const std::string_view>;

// The entries of one YAML mapping whose keys have been checked.
class FieldMap {
public:
    // Reports a value that is not a mapping, keys that are not plain strings, duplicate keys and,
    // when `allowed` is given, keys outside it (naming the allowed keys, with a "did you mean").
    static std::optional<FieldMap> read(const Field& field, std::optional<KeyList> allowed, ProblemList& problems);

    const Field* find(std::string_view key) const;
    const Field& self() const { return self_; }
    const std::vector<std::pair<std::string, Field>>& entries() const { return entries_; }

private:
    Field self_;
    std::vector<std::pair<std::string, Field>> entries_;
};

// The closest candidate to a misspelt word, if one is close enough to be a likely typo.
std::optional<std::string> closest_match(std::string_view word, KeyList candidates);
// " (did you mean X?)" or "" when nothing is close.
std::string did_you_mean(std::string_view word, KeyList candidates);
std::string join(KeyList words, std::string_view separator = ", ");
std::string join(const std::vector<std::string>& words, std::string_view separator = ", ");
// How a value looks, for "got ..." in messages: "a mapping", "a list", "nothing", "\"text\"".
std::string describe(const YAML::Node& node);

// Text of a scalar interpreted without any schema; nullopt when the text is not of that kind.
bool is_null_value(const YAML::Node& node);
std::optional<bool> parse_bool_text(std::string_view text);
std::optional<std::int64_t> parse_integer_text(std::string_view text);
std::optional<double> parse_number_text(std::string_view text);

// Readers for manifest fields. Each reports what it expected when the value does not fit.
std::optional<std::string> read_string(const Field& field, ProblemList& problems);
// A string that is not empty or only whitespace.
std::optional<std::string> read_text(const Field& field, ProblemList& problems);
std::optional<bool> read_bool(const Field& field, ProblemList& problems);
std::optional<std::int64_t> read_integer(const Field& field, std::int64_t minimum, std::int64_t maximum,
                                         ProblemList& problems);
std::optional<double> read_number(const Field& field, ProblemList& problems);
std::optional<std::string> read_choice(const Field& field, KeyList choices, ProblemList& problems);
std::optional<std::vector<Field>> read_list(const Field& field, ProblemList& problems);
// A list of strings, or (when `single_allowed`) one string standing for a list of one.
std::optional<std::vector<std::string>> read_string_list(const Field& field, bool single_allowed,
                                                         ProblemList& problems);

}  // namespace skillhost::manifest::detail
