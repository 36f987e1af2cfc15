#include "store/run_plugin_versions.hpp"
#include "store/error_codes.hpp"

namespace skillhost::store {

Status check_plugin_versions(const Run& run, const LoadedPluginVersion& loaded_version) {
    for (const auto& [plugin, recorded] : run.plugin_versions) {
        const std::optional<std::string> loaded = loaded_version(plugin);
        if (loaded && *loaded == recorded) continue;
        Error error{errors::kRunPluginVersionMissing,
                    "run " + run.id + " called plugin " + plugin + " " + recorded + ", but this instance has " +
                        (loaded ? "version " + *loaded : std::string("no such plugin")) +
                        " loaded; it does not resume the run so that one run never mixes two versions of a plugin",
                    {},
                    {"resume it on an instance that has " + plugin + " " + recorded +
                     " loaded, or install that version here and resume again"}};
        error.details["run_id"] = run.id;
        error.details["plugin"] = plugin;
        error.details["recorded_version"] = recorded;
        if (loaded) error.details["loaded_version"] = *loaded;
        return error;
    }
    return {};
}

}  // namespace skillhost::store
