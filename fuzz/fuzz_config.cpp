// libFuzzer target: every configuration file an administrator writes, each input read as each of
// them: skillhost.yaml (through the real loader, from a file), operator.yaml, policy.yaml,
// users.yaml and models.yaml. A damaged file must end in the loaded settings or an Error with its
// location, never a crash, a hang or unbounded memory (a damaged operator.yaml once crashed
// `skillhost serve`).
#include "config/host_config.hpp"
#include "llm/model_config.hpp"
#include "operator/operator_config.hpp"
#include "policy/policy_config.hpp"
#include "auth/users.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <unistd.h>

namespace {

template <typename T>
void settle(const skillhost::Result<T>& result) {
    // The error's text is what a user reads: building it must be safe too.
    if (!result) (void)result.error().to_json();
}

// skillhost.yaml is only read from a file: one per process, rewritten for each input, removed
// (with its directory) when the process exits.
struct ScratchDir {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("skillhost-fuzz-config-" + std::to_string(::getpid()));
    ScratchDir() { std::filesystem::create_directories(dir); }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

const std::filesystem::path& host_config_file() {
    static const ScratchDir scratch;
    static const std::filesystem::path file = scratch.dir / "skillhost.yaml";
    return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::filesystem::path etc = "/nonexistent-skillhost-etc";
    settle(skillhost::op::parse_operator_config(text, etc / "operator.yaml"));
    settle(skillhost::policy::parse_policy_config(text, etc / "policy.yaml"));
    settle(skillhost::auth::parse_users(text, etc / "users.yaml", "/nonexistent-skillhost-workspaces"));
    settle(skillhost::llm::parse_models_config(text, "models.yaml", etc));

    const std::filesystem::path& file = host_config_file();
    if (std::FILE* out = std::fopen(file.c_str(), "wb")) {
        const bool written = std::fwrite(data, 1, size, out) == size;
        if (std::fclose(out) == 0 && written) {
            skillhost::config::ConfigSources sources;
            sources.config_file = file;
            sources.home = file.parent_path() / "home";
            sources.executable = file.parent_path() / "bin" / "skillhost";
            settle(skillhost::config::load_host_config(sources));
        }
    }
    return 0;
}
