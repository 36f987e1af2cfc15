// A temporary skillhost home for the MCP tests: etc/skillhost.yaml whose only plugin directory is
// <tmp>/plugins (no built-ins), users.yaml and policy.yaml as a test needs, and fixture plugins
// installed into the plugin directory the way an installer should (copy elsewhere, then rename).
#pragma once

#include "support/temp_dir.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace skillhost::testing {

inline constexpr std::string_view kDefaultUsers =
    "users:\n"
    "  - {id: owner, role: owner, trust: bounded_auto}\n"
    "  - {id: alice, role: standard, trust: supervised_auto}\n"
    "  - {id: eve, role: guest, trust: observe, default_mode: emulation}\n";

class McpFixtureHome {
public:
    // `config_yaml`: extra top-level lines of skillhost.yaml.
    explicit McpFixtureHome(std::string_view users_yaml = kDefaultUsers, std::string_view policy_yaml = "",
                            std::string_view config_yaml = "");

    std::filesystem::path plugins_dir() const { return dir_ / "plugins"; }
    std::string config_file() const { return (dir_ / "etc/skillhost.yaml").string(); }
    std::string home_dir() const { return (dir_ / "home").string(); }

    // Copies the built fixture's files into a staging directory, then renames the library and
    // last the manifest into the plugin directory (so a watcher never sees half a file).
    void install_fixture(std::string_view fixture) const;

private:
    TempDir dir_{"skillhost-mcp"};
};

}  // namespace skillhost::testing
