#include "app/per_instance_state_warning.hpp"

#include <spdlog/spdlog.h>

namespace skillhost::app {

std::string per_instance_state_message(const plugin::LoadedPlugin& plugin) {
    const manifest::Manifest& m = plugin.manifest();
    return "plugin '" + m.name + "' " + m.version +
           " keeps its state in files in each instance's data directory (its manifest says `state: files`, or "
           "nothing, which means files): behind several instances on one database, a user sees different data "
           "on each and a step approved on another instance acts on that instance's files. Route its users to "
           "one instance, or have its author keep its state in the host's storage (skillhost.storage/1, then "
           "`state: host_storage`) or declare `state: none` if it keeps nothing (docs/scaling.md)";
}

std::vector<std::string> PerInstanceStateWarning::warn_about(const catalog::CatalogSnapshot& snapshot) {
    std::vector<std::string> named;
    std::lock_guard lock(mutex_);
    for (const auto& plugin : snapshot.plugins()) {
        const manifest::Manifest& m = plugin->manifest();
        if (m.state != manifest::PluginState::files) continue;
        if (!warned_.insert(m.name + "@" + m.version).second) continue;
        spdlog::warn("serve: {}", per_instance_state_message(*plugin));
        named.push_back(m.name);
    }
    return named;
}

}  // namespace skillhost::app
