// One permission rule from policy.yaml, e.g. `fs_write(path=notes/**)`: a skill id glob plus
// optional argument patterns, all of which must match.
#pragma once

#include "manifest/skill_spec.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::policy {

enum class RuleKind { deny, ask, allow };
const char* to_string(RuleKind);

struct ArgumentPattern {
    std::string name;
    std::string pattern;  // glob on the argument's string form
};

struct Rule {
    RuleKind kind = RuleKind::deny;
    std::string text;           // as written, e.g. "fs_write(path=notes/**)"
    std::string skill_pattern;  // glob on the skill id
    std::vector<ArgumentPattern> arguments;
    std::string scope = "global";  // "global" or the user id the rule belongs to
    std::string file;
    int line = 0;
    int column = 0;

    // "policy.yaml:12"
    std::string location() const;
};

struct RuleSyntaxError {
    std::size_t offset = 0;  // 0-based position in the rule text
    std::string message;
};

// Parses `skill_glob` or `skill_glob(name=pattern, name="pattern with , or )")`. Fills `rule`'s
// text, skill_pattern and arguments; returns the problem otherwise.
std::optional<RuleSyntaxError> parse_rule_text(std::string_view text, Rule& rule);

// The string forms argument patterns are matched against, computed once per call and only for
// arguments some rule names. Strings match as they are; numbers, booleans and null as their JSON
// text; arrays and objects as compact JSON. Filesystem-path inputs (the manifest's path_inputs) are
// normalised first, so `notes/../secrets/key` cannot slip past a `secrets/**` rule: resolved
// against the workspace (symlinks included, as far as they exist) and matched relative to it when
// inside it, as an absolute path otherwise.
class CallArguments {
public:
    CallArguments(const boost::json::value& args, const manifest::SkillSpec& spec, std::filesystem::path workspace);
    // nullopt when the argument is absent (an absent argument never matches a pattern).
    const std::optional<std::string>& string_form(const std::string& name) const;
    // Whether the manifest declares the input a filesystem path.
    bool is_path(std::string_view name) const;
    // Whether the input is an array of paths (`name[]` in path_inputs, as foreign tools declare).
    bool is_path_array(std::string_view name) const;
    // Its elements, each in the path form used for matching (an element that is not a string is
    // its JSON text); nullopt when the argument is absent or not an array.
    std::optional<std::vector<std::string>> path_elements(std::string_view name) const;

private:
    std::optional<std::string> compute(const std::string& name) const;
    const boost::json::value& args_;
    const manifest::SkillSpec& spec_;
    std::filesystem::path workspace_;
    mutable std::map<std::string, std::optional<std::string>, std::less<>> cache_;
};

// An argument declared as an array of paths matches a deny or ask rule when any element does, and
// an allow rule only when every element does (and there is one): each way, the stricter reading.
bool rule_matches(const Rule& rule, std::string_view skill_id, const CallArguments& args);
// True when `pattern` ends in `/**` and `path` is the directory it names the inside of: a rule on
// `**/.ssh/**` covers `.ssh` itself, since listing the directory shows what the rule hides.
bool path_pattern_covers_directory(std::string_view pattern, std::string_view path);

// True when the skill id part matches (used by explanations: "matches the skill but not path=...").
bool rule_matches_skill(const Rule& rule, std::string_view skill_id);

// The path form used for matching (exposed for tests and `policy explain`).
std::string normalise_path_argument(std::string_view value, const std::filesystem::path& workspace);

}  // namespace skillhost::policy
