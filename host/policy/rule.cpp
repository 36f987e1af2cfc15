#include "policy/rule.hpp"

#include "base/glob.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace skillhost::policy {

const char* to_string(RuleKind kind) {
    switch (kind) {
        case RuleKind::deny: return "deny";
        case RuleKind::ask: return "ask";
        case RuleKind::allow: return "allow";
    }
    return "deny";
}

std::string Rule::location() const {
    return file + ":" + std::to_string(line);
}

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t';
}
bool is_skill_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-' || c == '*' || c == '?';
}
bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// Claude Code's spelling of MCP tools, accepted so its rules can be reused: `mcp__SERVER__TOOL` is the
// skill SERVER__TOOL, and `mcp__SERVER` every tool of that server.
std::string foreign_tool_pattern(std::string_view pattern) {
    constexpr std::string_view prefix = "mcp__";
    if (!pattern.starts_with(prefix) || pattern.size() == prefix.size()) return std::string(pattern);
    const std::string_view rest = pattern.substr(prefix.size());
    if (rest.find("__") == std::string_view::npos) return std::string(rest) + "__*";
    return std::string(rest);
}

class RuleTextParser {
public:
    explicit RuleTextParser(std::string_view text) : text_(text) {}

    std::optional<RuleSyntaxError> parse(Rule& rule) {
        skip_spaces();
        const std::size_t start = pos_;
        while (pos_ < text_.size() && is_skill_char(text_[pos_])) ++pos_;
        if (pos_ == start) {
            if (pos_ == text_.size())
                return fail("empty rule; write a skill id or glob such as `fs_write` or `task_*`");
            return fail(std::string("unexpected `") + text_[pos_] +
                        "`; a rule starts with a skill id or glob (letters, digits, _ . - * ?)");
        }
        rule.skill_pattern = foreign_tool_pattern(text_.substr(start, pos_ - start));
        skip_spaces();
        if (pos_ < text_.size() && text_[pos_] == '(') {
            ++pos_;
            if (auto problem = parse_arguments(rule)) return problem;
        }
        skip_spaces();
        if (pos_ != text_.size()) {
            return fail(std::string("unexpected `") + text_[pos_] +
                        "` after the rule; expected `skill` or `skill(name=pattern, ...)`");
        }
        rule.text = std::string(text_);
        return std::nullopt;
    }

private:
    std::optional<RuleSyntaxError> parse_arguments(Rule& rule) {
        skip_spaces();
        if (pos_ < text_.size() && text_[pos_] == ')') {
            return fail("empty argument list; write name=pattern inside the parentheses or drop them");
        }
        while (true) {
            skip_spaces();
            const std::size_t name_start = pos_;
            while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
            if (pos_ == name_start) return fail("expected an argument name (e.g. `path=notes/**`)");
            std::string name(text_.substr(name_start, pos_ - name_start));
            const bool duplicate = std::any_of(rule.arguments.begin(), rule.arguments.end(),
                                               [&](const ArgumentPattern& a) { return a.name == name; });
            if (duplicate) {
                pos_ = name_start;
                return fail("argument `" + name + "` appears twice; give each argument one pattern");
            }
            skip_spaces();
            if (pos_ >= text_.size() || text_[pos_] != '=') {
                return fail("expected `=` after argument name `" + name + "`");
            }
            ++pos_;
            skip_spaces();
            std::string pattern;
            if (pos_ < text_.size() && text_[pos_] == '"') {
                ++pos_;
                bool closed = false;
                while (pos_ < text_.size()) {
                    const char c = text_[pos_++];
                    if (c == '\\' && pos_ < text_.size()) {
                        pattern.push_back(text_[pos_++]);
                    } else if (c == '"') {
                        closed = true;
                        break;
                    } else {
                        pattern.push_back(c);
                    }
                }
                if (!closed) return fail("unterminated quoted pattern; close it with `\"`");
            } else {
                const std::size_t value_start = pos_;
                while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != ')') ++pos_;
                std::string_view raw = text_.substr(value_start, pos_ - value_start);
                while (!raw.empty() && is_space(raw.back())) raw.remove_suffix(1);
                pattern = std::string(raw);
            }
            rule.arguments.push_back({std::move(name), std::move(pattern)});
            skip_spaces();
            if (pos_ >= text_.size()) return fail("missing `)` to close the argument list");
            if (text_[pos_] == ')') {
                ++pos_;
                return std::nullopt;
            }
            if (text_[pos_] != ',') {
                return fail(std::string("unexpected `") + text_[pos_] + "`; separate arguments with `,`");
            }
            ++pos_;
        }
    }

    void skip_spaces() {
        while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
    }

    RuleSyntaxError fail(std::string message) const { return {pos_, std::move(message)}; }

    std::string_view text_;
    std::size_t pos_ = 0;
};

bool is_within(const std::filesystem::path& path, const std::filesystem::path& root) {
    auto p = path.begin();
    for (auto r = root.begin(); r != root.end(); ++r, ++p) {
        if (r->empty()) continue;  // trailing separator of the root
        if (p == path.end() || *p != *r) return false;
    }
    return true;
}

}  // namespace

std::optional<RuleSyntaxError> parse_rule_text(std::string_view text, Rule& rule) {
    return RuleTextParser(text).parse(rule);
}

std::string normalise_path_argument(std::string_view value, const std::filesystem::path& workspace) {
    std::filesystem::path path(value);
    if (workspace.empty()) {
        auto normal = path.lexically_normal();
        return normal.empty() ? std::string(value) : normal.string();
    }
    std::error_code ec;
    std::filesystem::path root = std::filesystem::weakly_canonical(workspace, ec);
    if (ec) root = workspace.lexically_normal();
    std::filesystem::path full = path.is_absolute() ? path : root / path;
    std::filesystem::path resolved = std::filesystem::weakly_canonical(full, ec);
    if (ec) resolved = full.lexically_normal();
    if (is_within(resolved, root)) {
        auto relative = resolved.lexically_relative(root);
        return relative.empty() ? std::string(".") : relative.string();
    }
    return resolved.string();
}

CallArguments::CallArguments(const boost::json::value& args, const manifest::SkillSpec& spec,
                             std::filesystem::path workspace)
    : args_(args), spec_(spec), workspace_(std::move(workspace)) {}

const std::optional<std::string>& CallArguments::string_form(const std::string& name) const {
    auto it = cache_.find(name);
    if (it == cache_.end()) it = cache_.emplace(name, compute(name)).first;
    return it->second;
}

std::optional<std::string> CallArguments::compute(const std::string& name) const {
    const auto* object = args_.if_object();
    if (object == nullptr) return std::nullopt;
    const auto* value = object->if_contains(name);
    if (value == nullptr) return std::nullopt;
    if (const auto* text = value->if_string()) {
        if (is_path(name)) return normalise_path_argument(std::string_view(text->data(), text->size()), workspace_);
        return std::string(text->data(), text->size());
    }
    return boost::json::serialize(*value);
}

bool CallArguments::is_path(std::string_view name) const {
    return std::find(spec_.path_inputs.begin(), spec_.path_inputs.end(), name) != spec_.path_inputs.end();
}

bool CallArguments::is_path_array(std::string_view name) const {
    return std::any_of(spec_.path_inputs.begin(), spec_.path_inputs.end(), [&](const std::string& input) {
        return input.size() == name.size() + 2 && input.starts_with(name) && input.ends_with("[]");
    });
}

std::optional<std::vector<std::string>> CallArguments::path_elements(std::string_view name) const {
    const auto* object = args_.if_object();
    const auto* value = object != nullptr ? object->if_contains(name) : nullptr;
    const auto* array = value != nullptr ? value->if_array() : nullptr;
    if (array == nullptr) return std::nullopt;
    std::vector<std::string> out;
    out.reserve(array->size());
    for (const auto& element : *array) {
        if (const auto* text = element.if_string()) {
            out.push_back(normalise_path_argument(std::string_view(text->data(), text->size()), workspace_));
        } else {
            out.push_back(boost::json::serialize(element));
        }
    }
    return out;
}

bool rule_matches_skill(const Rule& rule, std::string_view skill_id) {
    return glob_match(rule.skill_pattern, skill_id);
}

bool rule_matches(const Rule& rule, std::string_view skill_id, const CallArguments& args) {
    if (!rule_matches_skill(rule, skill_id)) return false;
    for (const auto& argument : rule.arguments) {
        if (args.is_path_array(argument.name)) {
            const auto elements = args.path_elements(argument.name);
            if (!elements || elements->empty()) return false;
            const auto one = [&](const std::string& path) {
                return glob_match(argument.pattern, path) || path_pattern_covers_directory(argument.pattern, path);
            };
            const bool matched = rule.kind == RuleKind::allow ? std::all_of(elements->begin(), elements->end(), one)
                                                              : std::any_of(elements->begin(), elements->end(), one);
            if (!matched) return false;
            continue;
        }
        const auto& form = args.string_form(argument.name);
        if (!form) return false;
        if (glob_match(argument.pattern, *form)) continue;
        if (!args.is_path(argument.name) || !path_pattern_covers_directory(argument.pattern, *form)) return false;
    }
    return true;
}

bool path_pattern_covers_directory(std::string_view pattern, std::string_view path) {
    // `secret/**` names everything inside secret/; listing or searching secret/ itself reveals
    // those very entries, so the rule covers the directory too.
    constexpr std::string_view inside = "/**";
    if (!pattern.ends_with(inside) || pattern.size() == inside.size()) return false;
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    return glob_match(pattern.substr(0, pattern.size() - inside.size()), path);
}

}  // namespace skillhost::policy
