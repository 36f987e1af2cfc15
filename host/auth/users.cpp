#include "auth/users.hpp"
#include "auth/error_codes.hpp"

#include "base/guarded_yaml.hpp"
#include "auth/api_token.hpp"
#include "base/config_problem.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace skillhost::auth {

const char* to_string(Role role) {
    switch (role) {
        case Role::owner: return "owner";
        case Role::standard: return "standard";
        case Role::guest: return "guest";
    }
    return "standard";
}

const char* to_string(CognitiveMode mode) {
    switch (mode) {
        case CognitiveMode::dual: return "dual";
        case CognitiveMode::agent: return "agent";
        case CognitiveMode::emulation: return "emulation";
    }
    return "agent";
}

std::optional<Role> parse_role(std::string_view text) {
    if (text == "owner") return Role::owner;
    if (text == "standard") return Role::standard;
    if (text == "guest") return Role::guest;
    return std::nullopt;
}

std::optional<CognitiveMode> parse_cognitive_mode(std::string_view text) {
    if (text == "dual") return CognitiveMode::dual;
    if (text == "agent") return CognitiveMode::agent;
    if (text == "emulation") return CognitiveMode::emulation;
    return std::nullopt;
}

UserDirectory::UserDirectory(std::vector<User> users, std::filesystem::path file)
    : users_(std::move(users)), file_(std::move(file)) {}

const User* UserDirectory::find(std::string_view id) const {
    for (const auto& user : users_) {
        if (user.id == id) return &user;
    }
    return nullptr;
}

const User& UserDirectory::first_owner() const {
    for (const auto& user : users_) {
        if (user.role == Role::owner) return user;
    }
    // Loading guarantees an owner; a hand-built directory without one falls back to its first user.
    return users_.front();
}

const User* UserDirectory::authenticate(std::string_view token) const {
    const User* found = nullptr;
    for (const auto& user : users_) {
        // No early exit: every user costs the same, so timing does not tell which one matched.
        if (verify_api_token(token, user.api_token_sha256) && found == nullptr) found = &user;
    }
    return found;
}

std::string UserDirectory::ids_text() const {
    std::string out;
    for (const auto& user : users_) {
        if (!out.empty()) out += ", ";
        out += user.id;
    }
    return out;
}

UserDirectory builtin_users(const std::filesystem::path& workspace_base) {
    User owner;
    owner.id = "owner";
    owner.display_name = "Owner";
    owner.role = Role::owner;
    owner.trust = manifest::TrustLevel::supervised_auto;
    owner.default_mode = CognitiveMode::agent;
    owner.workspace = workspace_base / "owner";
    return UserDirectory({std::move(owner)}, {});
}

namespace {

std::filesystem::path expand_workspace(const std::string& text, const std::filesystem::path& file) {
    if (text == "~" || text.rfind("~/", 0) == 0) {
        const char* home = std::getenv("HOME");
        std::filesystem::path base = home != nullptr ? home : "/";
        return (text.size() <= 2 ? base : base / text.substr(2)).lexically_normal();
    }
    std::filesystem::path path(text);
    if (path.is_relative()) path = std::filesystem::absolute(file).parent_path() / path;
    return path.lexically_normal();
}

class UsersParser {
public:
    UsersParser(std::string file, std::filesystem::path path, std::filesystem::path workspace_base)
        : file_(std::move(file)), path_(std::move(path)), workspace_base_(std::move(workspace_base)) {}

    Result<UserDirectory> parse(std::string_view text) {
        YAML::Node root;
        try {
            root = load_guarded_yaml(text);
        } catch (const YAML::ParserException& e) {
            problems_.push_back({file_, e.mark.line + 1, e.mark.column + 1, "", "YAML syntax error: " + e.msg});
            return fail();
        }
        if (!root.IsMap()) {
            add(root, "", "expected a mapping with a `users` list at the top level");
            return fail();
        }
        for (const auto& entry : root) {
            const std::string key = entry.first.Scalar();
            if (key != "users") add(entry.first, key, "unknown key `" + key + "`; the only top-level key is `users`");
        }
        const YAML::Node list = root["users"];
        if (!list) {
            add(root, "users",
                "missing; list the users, e.g. `users: [{id: owner, role: owner, trust: supervised_auto}]`");
            return fail();
        }
        if (!list.IsSequence() || list.size() == 0) {
            add(list, "users", "expected a non-empty list of users");
            return fail();
        }
        std::vector<User> users;
        std::set<std::string> seen;
        for (std::size_t i = 0; i < list.size(); ++i) {
            auto user = parse_user(list[i], "users[" + std::to_string(i) + "]");
            if (!user) continue;
            if (!seen.insert(user->id).second) {
                add(list[i]["id"], "users[" + std::to_string(i) + "].id",
                    "duplicate user id `" + user->id + "`; each id must be unique");
                continue;
            }
            users.push_back(std::move(*user));
        }
        if (problems_.empty() &&
            std::none_of(users.begin(), users.end(), [](const User& u) { return u.role == Role::owner; })) {
            add(list, "users",
                "no user has role owner; at least one owner is required to resolve approvals and administer the host");
        }
        if (!problems_.empty()) return fail();
        return UserDirectory(std::move(users), path_);
    }

private:
    std::optional<User> parse_user(const YAML::Node& node, const std::string& field) {
        if (!node.IsMap()) {
            add(node, field, "expected a mapping with id, role, trust, ...");
            return std::nullopt;
        }
        static const std::set<std::string> known = {"id",           "display_name",    "role", "trust", "workspace",
                                                    "default_mode", "api_token_sha256"};
        const std::size_t before = problems_.size();
        for (const auto& entry : node) {
            const std::string key = entry.first.Scalar();
            if (known.count(key) == 0) {
                add(entry.first, field + "." + key,
                    "unknown key `" + key +
                        "`; known keys: id, display_name, role, trust, workspace, "
                        "default_mode, api_token_sha256");
            }
        }
        User user;
        user.line = node.Mark().line + 1;
        const auto id = scalar(node, "id", field, true);
        if (id) {
            if (!is_valid_user_id(*id)) {
                add(node["id"], field + ".id",
                    "`" + *id + "` is not a valid user id; use 1-64 of a-z 0-9 . _ - starting with a letter or digit");
            }
            user.id = *id;
        }
        user.display_name = scalar(node, "display_name", field, false).value_or(user.id);
        if (auto role = scalar(node, "role", field, true)) {
            if (auto parsed = parse_role(*role))
                user.role = *parsed;
            else
                add(node["role"], field + ".role", "`" + *role + "` is not a role; expected owner, standard or guest");
        }
        if (auto trust = scalar(node, "trust", field, true)) {
            if (auto parsed = manifest::parse_trust_level(*trust))
                user.trust = *parsed;
            else
                add(node["trust"], field + ".trust",
                    "`" + *trust +
                        "` is not a trust level; expected observe, suggest, supervised_auto, bounded_auto or "
                        "adaptive_auto");
        }
        if (auto mode = scalar(node, "default_mode", field, false)) {
            if (auto parsed = parse_cognitive_mode(*mode))
                user.default_mode = *parsed;
            else
                add(node["default_mode"], field + ".default_mode",
                    "`" + *mode + "` is not a cognitive mode; expected dual, agent or emulation");
        }
        if (auto workspace = scalar(node, "workspace", field, false)) {
            if (workspace->empty())
                add(node["workspace"], field + ".workspace", "must not be empty; omit it for the default");
            else
                user.workspace = expand_workspace(*workspace, path_);
        } else {
            user.workspace = (workspace_base_ / user.id).lexically_normal();
        }
        if (auto hash = scalar(node, "api_token_sha256", field, false)) {
            if (!is_sha256_hex(*hash)) {
                add(node["api_token_sha256"], field + ".api_token_sha256",
                    "expected 64 hex digits (the SHA-256 of the token, e.g. `printf %s TOKEN | sha256sum`), never the "
                    "token itself");
            } else {
                user.api_token_sha256 = *hash;
                std::transform(user.api_token_sha256.begin(), user.api_token_sha256.end(),
                               user.api_token_sha256.begin(),
                               [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            }
        }
        if (problems_.size() != before) return std::nullopt;
        return user;
    }

    std::optional<std::string> scalar(const YAML::Node& map, const char* key, const std::string& field, bool required) {
        const YAML::Node value = map[key];
        if (!value) {
            if (required) add(map, field + "." + key, std::string("missing; every user needs `") + key + "`");
            return std::nullopt;
        }
        if (!value.IsScalar()) {
            add(value, field + "." + key, "expected a single value (a string)");
            return std::nullopt;
        }
        return value.Scalar();
    }

    void add(const YAML::Node& node, std::string field, std::string message) {
        problems_.push_back(problem_at(file_, node, std::move(field), std::move(message)));
    }

    Error fail() const { return config_error(errors::kUsersInvalid, problems_, "fix users.yaml and retry"); }

    std::string file_;
    std::filesystem::path path_;
    std::filesystem::path workspace_base_;
    std::vector<ConfigProblem> problems_;
};

}  // namespace

Result<UserDirectory> parse_users(std::string_view yaml_text, const std::filesystem::path& file,
                                  const std::filesystem::path& workspace_base) {
    // Whatever shape the file has, it is refused with a place, never a crash.
    try {
        return UsersParser(file.string(), file, workspace_base).parse(yaml_text);
    } catch (const YAML::Exception& e) {
        const std::vector<ConfigProblem> problems{
            ConfigProblem{file.string(), e.mark.line + 1, e.mark.column + 1, "", e.msg}};
        return config_error(errors::kUsersInvalid, problems, "fix users.yaml and retry");
    }
}

Result<UserDirectory> load_users(const std::filesystem::path& file, const std::filesystem::path& workspace_base) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) return builtin_users(workspace_base);
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        Error error{
            errors::kUsersInvalid, "cannot read " + file.string() + "; check that the file is readable", {}, {}};
        error.details["file"] = file.string();
        return error;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse_users(text.str(), file, workspace_base);
}

}  // namespace skillhost::auth
