// One plugin manifest: the YAML file that describes one plugin library and its skills.
#pragma once

#include "base/error.hpp"
#include "manifest/skill_spec.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace skillhost::manifest {

struct AbiVersion {
    std::uint32_t major = 0;
    std::uint32_t minor = 0;
};

// What a plugin may touch when it runs isolated (`permissions:` in the manifest). Without the block
// a plugin gets nothing beyond its own library and its per-user data directory.
struct Permissions {
    enum class Workspace { none, read, read_write };
    Workspace workspace = Workspace::none;
    bool network = false;
    bool llm = false;
    bool declared = false;  // the manifest has a `permissions:` block
};

std::string_view to_string(Permissions::Workspace workspace);

// Where a plugin keeps what it remembers between calls (`state:` in the manifest). The host cannot
// see it, so the plugin says: a scaled-out host warns about plugins whose state stays per instance.
enum class PluginState {
    files,         // files in its per-user data directory, on each instance's disk (the default)
    host_storage,  // records in the host's storage (skillhost.storage/1), shared by every instance
    none,          // nothing between calls
};

std::string_view to_string(PluginState state);

struct Manifest {
    std::string name;     // plugin name; must equal the library's skillhost_plugin.name
    std::string version;  // plugin version
    std::string description;
    std::string library;  // library file name, relative to the manifest's directory
    AbiVersion abi;       // the ABI version the plugin was written for
    std::vector<SkillSpec> skills;
    Permissions permissions;
    PluginState state = PluginState::files;
    std::filesystem::path file;  // the manifest file this was read from

    std::filesystem::path library_path() const { return file.parent_path() / library; }
    const SkillSpec* skill(std::string_view id) const;
};

// One problem found in a manifest: where, which field, what was expected.
struct ManifestProblem {
    std::string file;
    int line = 0;
    int column = 0;
    std::string field;    // dotted path, e.g. "skills[2].inputs.properties.path.type"
    std::string message;  // what is wrong and what was expected

    // "file:line:column: field: message"
    std::string to_string() const;
};

// Parses and validates a manifest file. On failure the Error has code MANIFEST_INVALID, a message
// that is the first problem's to_string(), and details.problems listing every problem found.
Result<Manifest> load_manifest(const std::filesystem::path& file);

// Same, from text (for tests and `plugin check`); `file` is used in messages only.
Result<Manifest> parse_manifest(std::string_view yaml_text, const std::filesystem::path& file);

}  // namespace skillhost::manifest
