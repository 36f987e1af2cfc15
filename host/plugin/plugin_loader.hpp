// Loads plugin libraries (Boost.DLL) and finds the plugins in configured directories.
#pragma once

#include "base/error.hpp"
#include "manifest/foreign_server.hpp"
#include "manifest/manifest.hpp"
#include "plugin/call_control.hpp"
#include "plugin/completion_service.hpp"
#include "plugin/definition_pins.hpp"
#include "plugin/foreign_oauth.hpp"
#include "plugin/foreign_secrets.hpp"
#include "plugin/isolation_options.hpp"
#include "plugin/loaded_plugin.hpp"
#include "plugin/storage_service.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace skillhost::plugin {

struct LoaderOptions {
    LoaderOptions() = default;
    explicit LoaderOptions(std::filesystem::path cache, std::shared_ptr<CompletionService> completion_service = {})
        : cache_dir(std::move(cache)), completions(std::move(completion_service)) {}

    // Where private copies of loaded libraries go (one file per load, deleted as soon as it is
    // mapped, so nothing is left behind even after a crash). Created if missing; empty means
    // <system temp dir>/skillhost-plugin-cache.
    std::filesystem::path cache_dir;
    // Optional: serves the host-services `complete` function. Null: completions are UNAVAILABLE.
    std::shared_ptr<CompletionService> completions;
    // Optional: serves "skillhost.storage/1" (the host's records, per plugin and user). Null:
    // storage answers STORAGE_UNAVAILABLE.
    std::shared_ptr<StorageService> storage;
    // Optional: where foreign MCP servers' tool definitions are pinned (definition_pins.hpp). Null:
    // each load pins its server's first listing in memory, and a change is refused until it reloads.
    std::shared_ptr<DefinitionPins> pins;
    // Optional: users' secrets for foreign MCP servers (foreign_secrets.hpp), and whose the process
    // that lists a server's tools at load gets (the first owner).
    std::shared_ptr<SecretSource> secrets;
    std::string listing_user;
    // Optional: users' OAuth grants for foreign servers that declare `oauth:` (foreign_oauth.hpp).
    std::shared_ptr<GrantStore> grants;
    // Where the npm packages that foreign server declarations pin are installed (`packages_dir` in
    // skillhost.yaml; plugin/foreign_package.hpp). Empty: a declaration with `package:` fails to load.
    std::filesystem::path packages_dir;
    // Set in a plugin runner: the host answers the extensions it answers (model, storage, ...),
    // asked over the runner's socket (plugin/extensions/host_extension.hpp).
    ExtensionForward forward;
    // False in a plugin runner: a process of its own maps the library only once.
    bool private_copy = true;
    // In-process or in runner processes, limits and supervision (isolation_options.hpp).
    IsolationOptions isolation;
};

// A plugin that could not be loaded, kept so `skills list` and the audit log can say why.
struct PluginFailure {
    std::filesystem::path manifest_file;
    std::string plugin_name;  // empty when the manifest could not be read
    Error error;              // MANIFEST_INVALID / MANIFEST_UNREADABLE, DIR_NOT_FOUND, DIR_UNREADABLE,
                              // DUPLICATE_PLUGIN, or any load() error below
};

// Puts the ids of the skills `manifest` declares in error.details.skills: a call to one of them
// can then say that its plugin failed to load, and why, instead of that no such skill exists.
void note_declared_skills(Error& error, const manifest::Manifest& manifest);

class PluginLoader {
public:
    explicit PluginLoader(LoaderOptions options);

    // Validates and loads the library a manifest names: copies it privately, checks the entry
    // symbol, the ABI version (same major, minor up to ours), that name and skills match the
    // manifest exactly (naming missing and extra ones), then calls init().
    // Error codes: LIBRARY_NOT_FOUND, PRIVATE_COPY_FAILED, LIBRARY_LOAD_FAILED (with the dynamic
    // linker's reason), ENTRY_MISSING, ENTRY_RETURNED_NULL, ABI_INCOMPATIBLE, STRUCT_TOO_SMALL,
    // ABI_MISMATCH (manifest abi_version differs from the library's), NAME_MISMATCH,
    // INVALID_DESCRIPTOR, DUPLICATE_SKILL_ID, INVOKE_MISSING, SKILLS_MISMATCH (details.missing,
    // details.extra), PLUGIN_INIT_FAILED (details.plugin_code/plugin_message/plugin_details).
    // Every error has details.manifest and details.library.
    Result<std::shared_ptr<LoadedPlugin>> load(const manifest::Manifest& manifest) const;

    // Starts a foreign MCP server and lists its tools (plugin/foreign_plugin.hpp, where it is
    // defined: a program that loads only native plugins, like the SDK's test kit, links none of it).
    Result<std::shared_ptr<LoadedPlugin>> load_foreign(const manifest::ForeignServer& server) const;

    // Reads a native plugin's manifest file, then load(). Errors keep the manifest path in details.
    Result<std::shared_ptr<LoadedPlugin>> load_file(const std::filesystem::path& manifest_file) const;

    const LoaderOptions& options() const { return options_; }

private:
    LoaderOptions options_;
};

struct DiscoveryReport {
    std::vector<std::shared_ptr<LoadedPlugin>> plugins;
    std::vector<PluginFailure> failures;
};

// Every *.yaml / *.yml manifest or foreign server declaration in the given directories (not recursive, sorted by file name),
// loaded; failures are collected, never thrown. Missing directories are reported as failures with
// code DIR_NOT_FOUND. A second manifest with an already loaded plugin name is DUPLICATE_PLUGIN.
DiscoveryReport discover_plugins(const PluginLoader& loader, const std::vector<std::filesystem::path>& manifest_dirs);

}  // namespace skillhost::plugin
