// Loads plugin libraries (Boost.DLL) and finds the plugins in configured directories.
#pragma once

#include "base/error.hpp"
#include "manifest/manifest.hpp"
#include "plugin/completion_service.hpp"
#include "plugin/loaded_plugin.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace skillhost::plugin {

struct LoaderOptions {
    // Where private copies of loaded libraries go (one file per load; removed on unload).
    std::filesystem::path cache_dir;
    // Optional: serves the host-services `complete` function. Null: completions are UNAVAILABLE.
    std::shared_ptr<CompletionService> completions;
};

// A plugin that could not be loaded, kept so `skills list` and the audit log can say why.
struct PluginFailure {
    std::filesystem::path manifest_file;
    std::string plugin_name;  // empty when the manifest could not be read
    Error error;              // MANIFEST_INVALID, LIBRARY_NOT_FOUND, ENTRY_MISSING,
                              // ABI_INCOMPATIBLE, SKILLS_MISMATCH, PLUGIN_INIT_FAILED, ...
};

class PluginLoader {
public:
    explicit PluginLoader(LoaderOptions options);

    // Validates and loads the library a manifest names: copies it privately, checks the entry
    // symbol, the ABI version (same major, minor up to ours), that name and skills match the
    // manifest exactly (naming missing and extra ones), then calls init().
    Result<std::shared_ptr<LoadedPlugin>> load(const manifest::Manifest& manifest) const;

    // Reads the manifest file, then load(). Errors keep the manifest path in details.
    Result<std::shared_ptr<LoadedPlugin>> load_file(const std::filesystem::path& manifest_file) const;

private:
    LoaderOptions options_;
};

struct DiscoveryReport {
    std::vector<std::shared_ptr<LoadedPlugin>> plugins;
    std::vector<PluginFailure> failures;
};

// Every *.yaml / *.yml manifest in the given directories (not recursive), loaded; failures are
// collected, never thrown. Missing directories are reported as failures with code DIR_NOT_FOUND.
DiscoveryReport discover_plugins(const PluginLoader& loader,
                                 const std::vector<std::filesystem::path>& manifest_dirs);

}  // namespace skillhost::plugin
