#include "mcp_fixture_home.hpp"

#include <stdexcept>
#include <vector>

namespace skillhost::testing {

McpFixtureHome::McpFixtureHome(std::string_view users_yaml, std::string_view policy_yaml,
                               std::string_view config_yaml) {
    std::filesystem::create_directories(plugins_dir());
    write_file(dir_ / "etc/skillhost.yaml", "plugin_dirs: [" + plugins_dir().string() +
                                                "]\ninclude_builtin_plugins: false\nreload_debounce_ms: 20\n" +
                                                std::string(config_yaml));
    write_file(dir_ / "etc/users.yaml", std::string(users_yaml));
    write_file(dir_ / "etc/policy.yaml", std::string(policy_yaml));
}

void McpFixtureHome::install_fixture(std::string_view fixture) const {
    const auto source = std::filesystem::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / fixture;
    const auto staging = dir_ / "staging" / fixture;
    std::filesystem::create_directories(staging);
    std::vector<std::filesystem::path> manifests;
    for (const auto& entry : std::filesystem::directory_iterator(source)) {
        if (!entry.is_regular_file()) continue;
        std::filesystem::copy_file(entry.path(), staging / entry.path().filename(),
                                   std::filesystem::copy_options::overwrite_existing);
    }
    for (const auto& entry : std::filesystem::directory_iterator(staging)) {
        if (entry.path().extension() == ".yaml") {
            manifests.push_back(entry.path());
            continue;
        }
        std::filesystem::rename(entry.path(), plugins_dir() / entry.path().filename());
    }
    if (manifests.empty())
        throw std::runtime_error("fixture " + std::string(fixture) + " has no manifest; build skillhost_test_fixtures");
    for (const auto& m : manifests) std::filesystem::rename(m, plugins_dir() / m.filename());
}

}  // namespace skillhost::testing
