#include "policy/policy_config.hpp"
#include "policy/error_codes.hpp"

#include "base/guarded_yaml.hpp"
#include "base/config_problem.hpp"
#include "base/duration_text.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

namespace skillhost::policy {

const std::vector<Rule>& RuleSet::of(RuleKind kind) const {
    switch (kind) {
        case RuleKind::deny: return deny;
        case RuleKind::ask: return ask;
        case RuleKind::allow: return allow;
    }
    return deny;
}

const RuleSet* PolicyConfig::rules_for(std::string_view user_id) const {
    for (const auto& user : users) {
        if (user.user_id == user_id) return &user.rules;
    }
    return nullptr;
}

namespace {

class PolicyParser {
public:
    explicit PolicyParser(std::filesystem::path file) : file_(file.string()) { config_.file = std::move(file); }

    Result<PolicyConfig> parse(std::string_view text) {
        YAML::Node root;
        try {
            root = load_guarded_yaml(text);
        } catch (const YAML::ParserException& e) {
            problems_.push_back({file_, e.mark.line + 1, e.mark.column + 1, "", "YAML syntax error: " + e.msg});
            return fail();
        }
        if (root.IsNull()) return config_;  // an empty file: no rules
        if (!root.IsMap()) {
            add(root, "", "expected a mapping with global, users, approvals and audit");
            return fail();
        }
        for (const auto& entry : root) {
            const std::string key = entry.first.Scalar();
            if (key == "global")
                parse_rule_set(entry.second, "global", "global", config_.global);
            else if (key == "users")
                parse_users(entry.second);
            else if (key == "approvals")
                parse_approvals(entry.second);
            else if (key == "audit")
                parse_audit(entry.second);
            else
                add(entry.first, key, "unknown key `" + key + "`; known keys: global, users, approvals, audit");
        }
        if (!problems_.empty()) return fail();
        return config_;
    }

private:
    void parse_rule_set(const YAML::Node& node, const std::string& field, const std::string& scope, RuleSet& out) {
        if (node.IsNull()) return;
        if (!node.IsMap()) {
            add(node, field, "expected a mapping with deny, ask and/or allow lists");
            return;
        }
        for (const auto& entry : node) {
            const std::string key = entry.first.Scalar();
            std::vector<Rule>* list = nullptr;
            RuleKind kind = RuleKind::deny;
            if (key == "deny")
                list = &out.deny, kind = RuleKind::deny;
            else if (key == "ask")
                list = &out.ask, kind = RuleKind::ask;
            else if (key == "allow")
                list = &out.allow, kind = RuleKind::allow;
            else {
                add(entry.first, field + "." + key, "unknown key `" + key + "`; expected deny, ask or allow");
                continue;
            }
            parse_rules(entry.second, field + "." + key, scope, kind, *list);
        }
    }

    void parse_rules(const YAML::Node& node, const std::string& field, const std::string& scope, RuleKind kind,
                     std::vector<Rule>& out) {
        if (node.IsNull()) return;
        if (!node.IsSequence()) {
            add(node, field, "expected a list of rules such as [\"fs_write(path=notes/**)\", \"task_*\"]");
            return;
        }
        for (std::size_t i = 0; i < node.size(); ++i) {
            const YAML::Node item = node[i];
            const std::string item_field = field + "[" + std::to_string(i) + "]";
            if (!item.IsScalar()) {
                add(item, item_field, "expected a rule string such as \"fs_write(path=notes/**)\"");
                continue;
            }
            Rule rule;
            rule.kind = kind;
            rule.scope = scope;
            rule.file = file_;
            rule.line = item.Mark().line + 1;
            rule.column = item.Mark().column + 1;
            if (auto problem = parse_rule_text(item.Scalar(), rule)) {
                ConfigProblem p = problem_at(file_, item, item_field,
                                             "rule `" + item.Scalar() + "`: " + problem->message + " (at character " +
                                                 std::to_string(problem->offset + 1) + ")");
                // Point into an unquoted rule; a quoted one starts one column later.
                const bool quoted = item.Tag() == "!";
                p.column += static_cast<int>(problem->offset) + (quoted ? 1 : 0);
                problems_.push_back(std::move(p));
                continue;
            }
            out.push_back(std::move(rule));
        }
    }

    void parse_users(const YAML::Node& node) {
        if (node.IsNull()) return;
        if (!node.IsMap()) {
            add(node, "users", "expected a mapping from user id to that user's deny/ask/allow lists");
            return;
        }
        for (const auto& entry : node) {
            const std::string id = entry.first.Scalar();
            if (!is_valid_user_id(id)) {
                add(entry.first, "users." + id, "`" + id + "` is not a valid user id");
                continue;
            }
            if (config_.rules_for(id) != nullptr) {
                add(entry.first, "users." + id, "user `" + id + "` appears twice; merge the two entries");
                continue;
            }
            UserRules user;
            user.user_id = id;
            user.line = entry.first.Mark().line + 1;
            user.column = entry.first.Mark().column + 1;
            parse_rule_set(entry.second, "users." + id, id, user.rules);
            config_.users.push_back(std::move(user));
        }
    }

    void parse_approvals(const YAML::Node& node) {
        if (!node.IsMap()) {
            add(node, "approvals", "expected a mapping, e.g. `approvals: {ttl: 24h}`");
            return;
        }
        for (const auto& entry : node) {
            const std::string key = entry.first.Scalar();
            if (key == "ttl") {
                if (auto d = duration(entry.second, "approvals.ttl")) config_.approval_ttl = *d;
            } else if (key == "require_approver") {
                if (auto b = boolean(entry.second, "approvals.require_approver")) config_.require_approver = *b;
            } else if (key == "stdio_elicitation_approves") {
                if (auto b = boolean(entry.second, "approvals.stdio_elicitation_approves"))
                    config_.stdio_elicitation_approves = *b;
            } else {
                add(entry.first, "approvals." + key,
                    "unknown key `" + key + "`; known keys: ttl, require_approver, stdio_elicitation_approves");
            }
        }
    }

    void parse_audit(const YAML::Node& node) {
        if (!node.IsMap()) {
            add(node, "audit", "expected a mapping, e.g. `audit: {fsync: interval, fsync_interval: 1s}`");
            return;
        }
        for (const auto& entry : node) {
            const std::string key = entry.first.Scalar();
            const YAML::Node value = entry.second;
            if (key == "fsync") {
                auto policy = value.IsScalar() ? audit::parse_fsync_policy(value.Scalar()) : std::nullopt;
                if (policy)
                    config_.audit.fsync = *policy;
                else
                    add(value, "audit.fsync", "expected never, always or interval");
            } else if (key == "fsync_interval") {
                if (auto d = duration(value, "audit.fsync_interval")) config_.audit.fsync_interval = *d;
            } else if (key == "max_value_chars") {
                long long n = 0;
                const bool ok =
                    value.IsScalar() && YAML::convert<long long>::decode(value, n) && n >= 16 && n <= 1'000'000;
                if (ok)
                    config_.audit.max_value_chars = static_cast<std::size_t>(n);
                else
                    add(value, "audit.max_value_chars", "expected a whole number between 16 and 1000000");
            } else {
                add(entry.first, "audit." + key,
                    "unknown key `" + key + "`; known keys: fsync, fsync_interval, max_value_chars");
            }
        }
    }

    std::optional<bool> boolean(const YAML::Node& node, const std::string& field) {
        bool value = false;
        if (node.IsScalar() && YAML::convert<bool>::decode(node, value)) return value;
        add(node, field, "expected true or false");
        return std::nullopt;
    }

    std::optional<std::chrono::milliseconds> duration(const YAML::Node& node, const std::string& field) {
        auto parsed = node.IsScalar() ? parse_duration_text(node.Scalar()) : std::nullopt;
        if (!parsed) add(node, field, "expected a duration such as 500ms, 90s, 15m, 24h or 7d");
        return parsed;
    }

    void add(const YAML::Node& node, std::string field, std::string message) {
        problems_.push_back(problem_at(file_, node, std::move(field), std::move(message)));
    }

    Error fail() const { return config_error(errors::kPolicyInvalid, problems_, "fix policy.yaml and retry"); }

    std::string file_;
    PolicyConfig config_;
    std::vector<ConfigProblem> problems_;
};

}  // namespace

Result<PolicyConfig> parse_policy_config(std::string_view yaml_text, const std::filesystem::path& file) {
    // Whatever shape the file has, it is refused with a place, never a crash.
    try {
        return PolicyParser(file).parse(yaml_text);
    } catch (const YAML::Exception& e) {
        const std::vector<ConfigProblem> problems{
            ConfigProblem{file.string(), e.mark.line + 1, e.mark.column + 1, "", e.msg}};
        return config_error(errors::kPolicyInvalid, problems, "fix policy.yaml and retry");
    }
}

std::string_view default_policy_yaml() {
    // Keep equal to the rules etc/policy.yaml ships (a test compares them): a fresh home without a
    // policy file must not be more open than the file a new user would read.
    return "global:\n"
           "  deny:\n"
           "    - \"fs_*(path=**/.ssh/**)\"\n"
           "    - \"fs_*(path=**/*.pem)\"\n";
}

Result<PolicyConfig> default_policy_config() {
    auto config = parse_policy_config(default_policy_yaml(), "(built-in default policy)");
    if (config) config->file.clear();
    return config;
}

Result<PolicyConfig> load_policy_config(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) return default_policy_config();
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        Error error{
            errors::kPolicyInvalid, "cannot read " + file.string() + "; check that the file is readable", {}, {}};
        error.details["file"] = file.string();
        return error;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse_policy_config(text.str(), file);
}

Status check_policy_users(const PolicyConfig& config, const auth::UserDirectory& users) {
    std::vector<ConfigProblem> problems;
    for (const auto& user : config.users) {
        if (users.find(user.user_id) == nullptr) {
            problems.push_back({config.file.string(), user.line, user.column, "users." + user.user_id,
                                "rules for unknown user `" + user.user_id + "`; known users: " + users.ids_text()});
        }
    }
    if (problems.empty()) return {};
    return config_error(errors::kPolicyInvalid, problems, "add the user to users.yaml or remove their rules");
}

}  // namespace skillhost::policy
