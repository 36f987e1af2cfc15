#include "operator/lightweight_tool_choice.hpp"

#include "manifest/skill_spec.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <set>

namespace skillhost::op {
namespace {

namespace json = boost::json;
using manifest::SchemaType;
using manifest::SkillSpec;

// Lower-case words of a manifest's text, a plural's final "s" dropped ("tasks" -> "task").
std::set<std::string> words_of(std::string_view text) {
    std::set<std::string> words;
    std::string word;
    const auto flush = [&] {
        if (word.size() > 3 && word.back() == 's' && !word.ends_with("ss")) word.pop_back();
        if (!word.empty()) words.insert(word);
        word.clear();
    };
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u)) {
            word += static_cast<char>(std::tolower(u));
        } else {
            flush();
        }
    }
    flush();
    return words;
}

const manifest::Schema* input(const SkillSpec& spec, std::string_view name) {
    for (const auto& [property, schema] : spec.inputs.properties) {
        if (property == name) return &schema;
    }
    return nullptr;
}

bool has_input(const SkillSpec& spec, std::initializer_list<std::string_view> names) {
    return std::any_of(names.begin(), names.end(), [&](std::string_view name) { return input(spec, name); });
}

// The free-text input: a string input the manifest requires, named like a search's words.
std::string text_input(const SkillSpec& spec) {
    for (std::string_view name : {"query", "text", "q", "term", "keywords"}) {
        const auto* schema = input(spec, name);
        if (schema && schema->type == SchemaType::string && spec.inputs.is_required(name)) return std::string(name);
    }
    return {};
}

bool requires_nothing(const SkillSpec& spec) {
    return std::none_of(spec.inputs.properties.begin(), spec.inputs.properties.end(),
                        [&](const auto& property) { return spec.inputs.is_required(property.first); });
}

// What the manifest says a skill is for, against what the intent is about.
int purpose_score(const SkillSpec& spec, std::initializer_list<std::string_view> about,
                  std::initializer_list<std::string_view> does) {
    const auto category = words_of(spec.category);
    const auto described = words_of(spec.title + " " + spec.description);
    int score = 0;
    for (auto word : about) {
        if (category.contains(std::string(word))) score += 3;
        if (described.contains(std::string(word))) score += 2;
    }
    if (score == 0) return 0;  // a skill for other data, whatever it does
    for (auto word : does) {
        if (described.contains(std::string(word))) score += 1;
    }
    return score;
}

}  // namespace

std::optional<LightweightCall> choose_lightweight_call(const std::vector<const catalog::CatalogEntry*>& entries,
                                                       const LightweightRequest& request) {
    const SkillSpec* best = nullptr;
    int best_score = 0;
    for (const auto* entry : entries) {
        const SkillSpec& spec = *entry->spec;
        if (!spec.annotations.read_only) continue;
        int score = 0;
        if (request.intent == "task") {
            if (!requires_nothing(spec)) continue;
            score = purpose_score(spec, {"task", "todo", "to-do"}, {"list", "open", "due"});
        } else if (request.intent == "temporal") {
            // A time window it takes ("when", "since") and nothing it must be told.
            if (!requires_nothing(spec) || !has_input(spec, {"when", "since"})) continue;
            score = purpose_score(spec, {"memory", "memorie", "event", "happened"}, {"recent", "time", "newest"});
        } else {
            if (text_input(spec).empty()) continue;
            score = purpose_score(spec, {"memory", "memorie", "remember", "note", "fact"}, {"find", "search", "word"});
        }
        if (score > best_score) {
            best = &spec;
            best_score = score;
        }
    }
    if (!best) return std::nullopt;
    LightweightCall call{best->id, {}};
    if (request.intent == "task") {
        if (request.wants_completed && input(*best, "include_completed")) call.args["include_completed"] = true;
    } else if (request.intent == "temporal") {
        if (request.time_phrase && input(*best, "when")) call.args["when"] = *request.time_phrase;
    } else {
        call.args[text_input(*best)] = request.query;
    }
    return call;
}

}  // namespace skillhost::op
