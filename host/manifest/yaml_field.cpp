#include "manifest/yaml_field.hpp"

#include <yaml-cpp/yaml.h>
#include <yaml-cpp/node/type.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <cctype>

namespace skillhost::manifest::detail {

SourcePosition position_of(const YAML::Node& node) {
    if (!node.IsDefined()) return {};
    const YAML::Mark mark = node.Mark();
    if (mark.is_null() || mark.line < 0 || mark.column < 0) return {};
    return {mark.line + 1, mark.column + 1};
}

namespace {

std::string join_path(const std::string& parent, std::string_view key) {
    if (parent.empty()) return std::string(key);
    return parent + "." + std::string(key);
}

bool is_empty_value(const YAML::Node& node) {
    return node.IsNull() && node.Tag().empty();
}

// Inside {...}, an unquoted text with ", " or ": " is split into several keys; such "keys" have
// spaces or punctuation, which real field names never do.
bool looks_like_split_text(std::string_view key) {
    return std::any_of(key.begin(), key.end(),
                       [](char c) { return !(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'); });
}

constexpr const char* kQuoteHint =
    " (a text containing ', ' or ': ' inside {...} is split into keys; put the text in quotes)";

}  // namespace

Field Field::child(std::string_view key, const YAML::Node& key_node, const YAML::Node& child_value) const {
    SourcePosition where = is_empty_value(child_value) ? position_of(key_node) : position_of(child_value);
    if (where.line == 0) where = at;
    return Field{child_value, join_path(path, key), where};
}

Field Field::item(std::size_t index, const YAML::Node& item_value) const {
    SourcePosition where = position_of(item_value);
    if (where.line == 0) where = at;
    return Field{item_value, path + "[" + std::to_string(index) + "]", where};
}

void ProblemList::add(const Field& where, std::string message) {
    add(where.at, where.path, std::move(message));
}

void ProblemList::add(SourcePosition at, std::string field, std::string message) {
    problems_.push_back(ManifestProblem{file_, at.line, at.column, std::move(field), std::move(message)});
}

std::vector<ManifestProblem> ProblemList::sorted() const {
    std::vector<ManifestProblem> out = problems_;
    auto key = [](const ManifestProblem& p) {
        // Problems without a position sort after all positioned ones.
        const int line = p.line == 0 ? std::numeric_limits<int>::max() : p.line;
        return std::pair{line, p.column};
    };
    std::stable_sort(out.begin(), out.end(),
                     [&](const ManifestProblem& a, const ManifestProblem& b) { return key(a) < key(b); });
    return out;
}

std::optional<FieldMap> FieldMap::read(const Field& field, std::optional<KeyList> allowed, ProblemList& problems) {
    if (!field.value.IsMap()) {
        std::string expected = "expected a mapping (key: value lines)";
        if (allowed) expected += " with keys " + join(*allowed);
        problems.add(field, expected + ", got " + describe(field.value));
        return std::nullopt;
    }
    FieldMap map;
    map.self_ = field;
    for (auto it = field.value.begin(); it != field.value.end(); ++it) {
        // Copies: the iterator's -> returns a temporary pair, so references into it would dangle.
        const YAML::Node key_node = it->first;
        const YAML::Node value = it->second;
        if (!key_node.IsScalar()) {
            Field where{key_node, field.path, position_of(key_node)};
            if (where.at.line == 0) where.at = field.at;
            problems.add(where, "keys must be plain names, got " + describe(key_node) + " as a key");
            continue;
        }
        const std::string& key = key_node.Scalar();
        Field entry = field.child(key, key_node, value);
        if (map.find(key) != nullptr) {
            const SourcePosition first = map.find(key)->at;
            problems.add(
                Field{key_node, entry.path, position_of(key_node)},
                "duplicate key '" + key + "' (first given at line " + std::to_string(first.line) + "); keep only one");
            continue;
        }
        if (allowed && std::find(allowed->begin(), allowed->end(), key) == allowed->end()) {
            problems.add(Field{key_node, entry.path, position_of(key_node)},
                         "unknown key '" + key + "'" + did_you_mean(key, *allowed) +
                             "; allowed keys: " + join(*allowed) + (looks_like_split_text(key) ? kQuoteHint : ""));
            continue;
        }
        map.entries_.emplace_back(key, std::move(entry));
    }
    return map;
}

const Field* FieldMap::find(std::string_view key) const {
    for (const auto& [name, field] : entries_) {
        if (name == key) return &field;
    }
    return nullptr;
}

namespace {

// Optimal-string-alignment distance, case-insensitive: a swap of two neighbouring letters ("paht")
// counts as one typo, as people make it.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    auto same = [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    };
    const std::size_t width = b.size() + 1;
    std::vector<std::size_t> d((a.size() + 1) * width);
    auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * width + j]; };
    for (std::size_t i = 0; i <= a.size(); ++i) at(i, 0) = i;
    for (std::size_t j = 0; j <= b.size(); ++j) at(0, j) = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
            at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1])) {
                at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
            }
        }
    }
    return at(a.size(), b.size());
}

}  // namespace

std::optional<std::string> closest_match(std::string_view word, KeyList candidates) {
    // A third of the word's length (at least 1, at most 3) catches typos without suggesting
    // unrelated short words.
    const std::size_t limit = std::clamp<std::size_t>(word.size() / 3, 1, 3);
    std::optional<std::string> best;
    std::size_t best_distance = limit + 1;
    for (std::string_view candidate : candidates) {
        const std::size_t distance = edit_distance(word, candidate);
        if (distance < best_distance) {
            best_distance = distance;
            best = std::string(candidate);
        }
    }
    // A word that contains a candidate or is contained in one ("timeout" for "timeout_ms",
    // "skill_timeout_ms" for "timeout_ms") is also a likely slip; the shortest such candidate wins.
    if (!best && word.size() >= 4) {
        for (std::string_view candidate : candidates) {
            const bool related = candidate.size() >= 4 && (word.find(candidate) != std::string_view::npos ||
                                                           candidate.find(word) != std::string_view::npos);
            if (related && (!best || candidate.size() < best->size())) best = std::string(candidate);
        }
    }
    return best;
}

std::string did_you_mean(std::string_view word, KeyList candidates) {
    const auto match = closest_match(word, candidates);
    return match ? " (did you mean '" + *match + "'?)" : std::string();
}

std::string join(KeyList words, std::string_view separator) {
    std::string out;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0) out += separator;
        out += words[i];
    }
    return out;
}

std::string join(const std::vector<std::string>& words, std::string_view separator) {
    std::vector<std::string_view> views(words.begin(), words.end());
    return join(KeyList(views), separator);
}

std::string describe(const YAML::Node& node) {
    switch (node.Type()) {
        case YAML::NodeType::Map: return "a mapping";
        case YAML::NodeType::Sequence: return "a list";
        case YAML::NodeType::Scalar: {
            std::string text = node.Scalar();
            if (text.size() > 60) text = text.substr(0, 57) + "...";
            return "\"" + text + "\"";
        }
        case YAML::NodeType::Null: return is_empty_value(node) ? "nothing" : "null";
        case YAML::NodeType::Undefined: break;
    }
    return "nothing";
}

bool is_null_value(const YAML::Node& node) {
    if (node.IsNull()) return true;
    if (!node.IsScalar() || node.Tag() == "!") return false;  // a quoted "null" is a string
    const std::string& text = node.Scalar();
    return text == "~" || text == "null" || text == "Null" || text == "NULL";
}

std::optional<bool> parse_bool_text(std::string_view text) {
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
    return std::nullopt;
}

std::optional<std::int64_t> parse_integer_text(std::string_view text) {
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<double> parse_number_text(std::string_view text) {
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    // JSON has no NaN or infinity, and from_chars would accept "nan"/"inf".
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

std::optional<std::string> read_string(const Field& field, ProblemList& problems) {
    if (!field.value.IsScalar()) {
        problems.add(field, "expected a string, got " + describe(field.value));
        return std::nullopt;
    }
    return field.value.Scalar();
}

std::optional<std::string> read_text(const Field& field, ProblemList& problems) {
    auto text = read_string(field, problems);
    if (!text) return std::nullopt;
    if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
        problems.add(field, "must not be empty; write a short text");
        return std::nullopt;
    }
    return text;
}

std::optional<bool> read_bool(const Field& field, ProblemList& problems) {
    if (field.value.IsScalar()) {
        if (auto value = parse_bool_text(field.value.Scalar())) return value;
    }
    problems.add(field, "expected true or false, got " + describe(field.value));
    return std::nullopt;
}

std::optional<std::int64_t> read_integer(const Field& field, std::int64_t minimum, std::int64_t maximum,
                                         ProblemList& problems) {
    const std::string range = " from " + std::to_string(minimum) + " to " + std::to_string(maximum);
    std::optional<std::int64_t> value;
    if (field.value.IsScalar()) value = parse_integer_text(field.value.Scalar());
    if (!value) {
        problems.add(field, "expected a whole number" + range + ", got " + describe(field.value));
        return std::nullopt;
    }
    if (*value < minimum || *value > maximum) {
        problems.add(field, "value " + std::to_string(*value) + " is out of range; expected a whole number" + range);
        return std::nullopt;
    }
    return value;
}

std::optional<double> read_number(const Field& field, ProblemList& problems) {
    std::optional<double> value;
    if (field.value.IsScalar()) value = parse_number_text(field.value.Scalar());
    if (!value) problems.add(field, "expected a number, got " + describe(field.value));
    return value;
}

std::optional<std::string> read_choice(const Field& field, KeyList choices, ProblemList& problems) {
    if (field.value.IsScalar()) {
        const std::string& text = field.value.Scalar();
        if (std::find(choices.begin(), choices.end(), text) != choices.end()) return text;
        problems.add(field, "unknown value \"" + text + "\"" + did_you_mean(text, choices) + "; expected one of " +
                                join(choices));
        return std::nullopt;
    }
    problems.add(field, "expected one of " + join(choices) + ", got " + describe(field.value));
    return std::nullopt;
}

std::optional<std::vector<Field>> read_list(const Field& field, ProblemList& problems) {
    if (!field.value.IsSequence()) {
        problems.add(field, "expected a list, got " + describe(field.value));
        return std::nullopt;
    }
    std::vector<Field> items;
    std::size_t index = 0;
    for (auto it = field.value.begin(); it != field.value.end(); ++it, ++index) {
        items.push_back(field.item(index, *it));
    }
    return items;
}

std::optional<std::vector<std::string>> read_string_list(const Field& field, bool single_allowed,
                                                         ProblemList& problems) {
    if (single_allowed && field.value.IsScalar()) return std::vector<std::string>{field.value.Scalar()};
    if (!field.value.IsSequence()) {
        problems.add(field, std::string(single_allowed ? "expected a string or a list of strings"
                                                       : "expected a list of strings") +
                                ", got " + describe(field.value));
        return std::nullopt;
    }
    auto items = read_list(field, problems);
    std::vector<std::string> out;
    bool all_read = true;
    for (const Field& item : *items) {
        auto text = read_string(item, problems);
        if (text) {
            out.push_back(std::move(*text));
        } else {
            all_read = false;
        }
    }
    if (!all_read) return std::nullopt;
    return out;
}

}  // namespace skillhost::manifest::detail
