// The people (and service accounts) the host acts for, from etc/users.yaml.
#pragma once

#include "base/error.hpp"
#include "base/user_id.hpp"
#include "manifest/skill_spec.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::auth {

enum class Role { owner, standard, guest };
// dual and agent run the full operator; emulation sees and calls only read-only skills.
enum class CognitiveMode { dual, agent, emulation };

const char* to_string(Role);
const char* to_string(CognitiveMode);
std::optional<Role> parse_role(std::string_view);
std::optional<CognitiveMode> parse_cognitive_mode(std::string_view);

struct User {
    std::string id;
    std::string display_name;
    Role role = Role::standard;
    manifest::TrustLevel trust = manifest::TrustLevel::suggest;
    std::filesystem::path workspace;                    // absolute
    CognitiveMode default_mode = CognitiveMode::agent;  // `skillhost mode set` overrides it (ModeStore)
    std::string api_token_sha256;                       // lowercase hex; empty when the user has no API token
    int line = 0;                                       // where the user is declared; 0 for the built-in user
};

class UserDirectory {
public:
    UserDirectory(std::vector<User> users, std::filesystem::path file);

    const User* find(std::string_view id) const;
    const std::vector<User>& users() const { return users_; }
    // The users.yaml the users came from; empty for the built-in default.
    const std::filesystem::path& file() const { return file_; }
    // The first owner in file order (there is always at least one).
    const User& first_owner() const;
    // The user whose api_token_sha256 matches `token`, checking every user in constant time each.
    const User* authenticate(std::string_view token) const;
    // "alice, bob, owner" — for messages about an unknown user.
    std::string ids_text() const;

private:
    std::vector<User> users_;
    std::filesystem::path file_;
};

// The single user used when users.yaml does not exist: id "owner", role owner, trust
// supervised_auto, mode agent, workspace <workspace_base>/owner.
UserDirectory builtin_users(const std::filesystem::path& workspace_base);

// Reads users.yaml. A missing file gives builtin_users(); any other problem is USERS_INVALID with
// file:line:column for each problem. Relative workspaces are relative to the file's directory,
// `~` expands to $HOME, and a user without one gets <workspace_base>/<id>.
Result<UserDirectory> load_users(const std::filesystem::path& file, const std::filesystem::path& workspace_base);

// Same from text; `file` locates relative workspaces and names the file in messages.
Result<UserDirectory> parse_users(std::string_view yaml_text, const std::filesystem::path& file,
                                  const std::filesystem::path& workspace_base);

}  // namespace skillhost::auth
