#include "app/declared_servers.hpp"

#include "reload/plugin_file_names.hpp"

#include <variant>

namespace skillhost::app {

std::vector<manifest::ForeignServer> declared_foreign_servers(const std::vector<std::filesystem::path>& plugin_dirs) {
    std::vector<manifest::ForeignServer> servers;
    for (const auto& dir : plugin_dirs) {
        for (const auto& file : reload::list_manifests(dir)) {
            auto declaration = manifest::load_plugin_declaration(file);
            if (!declaration) continue;
            if (auto* server = std::get_if<manifest::ForeignServer>(&declaration.value()))
                servers.push_back(std::move(*server));
        }
    }
    return servers;
}

}  // namespace skillhost::app
