// discover_plugins(): declared in plugin_loader.hpp.
#include "plugin/plugin_loader.hpp"
#include "plugin/error_codes.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <variant>
#include <system_error>

namespace skillhost::plugin {
namespace {

bool is_manifest_file(const std::filesystem::directory_entry& entry) {
    std::error_code ec;
    if (!entry.is_regular_file(ec)) return false;
    const std::string extension = entry.path().extension().string();
    return extension == ".yaml" || extension == ".yml";
}

PluginFailure directory_failure(const std::filesystem::path& dir, const ErrorCode& code, std::string message) {
    Error error{code, std::move(message)};
    error.details["directory"] = dir.string();
    return PluginFailure{dir, "", std::move(error)};
}

// The manifests of one directory, sorted by file name so discovery order is reproducible.
std::vector<std::filesystem::path> manifests_in(const std::filesystem::path& dir, DiscoveryReport& report) {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
        report.failures.push_back(directory_failure(
            dir, errors::kDirNotFound,
            "plugin directory " + dir.string() +
                " does not exist or is not a directory; create it or remove it from the configured plugin "
                "directories"));
        return files;
    }
    std::filesystem::directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec))
        if (is_manifest_file(*it)) files.push_back(it->path());
    if (ec) {
        report.failures.push_back(directory_failure(
            dir, errors::kDirUnreadable,
            "cannot list plugin directory " + dir.string() + ": " + ec.message() + "; check its permissions"));
    }
    std::sort(files.begin(), files.end());
    return files;
}

void discover_one(const PluginLoader& loader, const std::filesystem::path& file, std::set<std::string>& names,
                  DiscoveryReport& report) {
    Result<manifest::PluginDeclaration> declaration = manifest::load_plugin_declaration(file);
    if (!declaration) {
        Error error = std::move(declaration.error());
        if (!error.details.contains("manifest")) error.details["manifest"] = file.string();
        report.failures.push_back(PluginFailure{file, "", std::move(error)});
        return;
    }
    const manifest::ForeignServer* foreign = std::get_if<manifest::ForeignServer>(&declaration.value());
    const std::string name =
        foreign != nullptr ? foreign->name : std::get<manifest::Manifest>(declaration.value()).name;
    if (names.count(name) != 0) {
        Error error{errors::kDuplicatePlugin, "plugin '" + name + "' in " + file.string() +
                                                  " has the same name as a plugin already loaded from an earlier "
                                                  "manifest; remove one of them or rename it"};
        error.details["manifest"] = file.string();
        error.details["plugin"] = name;
        report.failures.push_back(PluginFailure{file, name, std::move(error)});
        return;
    }
    if (foreign != nullptr) {
        Result<std::shared_ptr<LoadedPlugin>> started = loader.load_foreign(*foreign);
        if (!started) {
            report.failures.push_back(PluginFailure{file, name, std::move(started.error())});
            return;
        }
        names.insert(name);
        report.plugins.push_back(std::move(started.value()));
        return;
    }
    const auto& native = std::get<manifest::Manifest>(declaration.value());
    Result<std::shared_ptr<LoadedPlugin>> loaded = loader.load(native);
    if (!loaded) {
        Error error = std::move(loaded.error());
        note_declared_skills(error, native);
        report.failures.push_back(PluginFailure{file, name, std::move(error)});
        return;
    }
    names.insert(name);
    report.plugins.push_back(std::move(loaded.value()));
}

}  // namespace

DiscoveryReport discover_plugins(const PluginLoader& loader, const std::vector<std::filesystem::path>& manifest_dirs) {
    DiscoveryReport report;
    std::set<std::string> names;
    for (const auto& dir : manifest_dirs) {
        for (const auto& file : manifests_in(dir, report)) {
            try {
                discover_one(loader, file, names, report);
            } catch (const std::exception& e) {
                // Only resource exhaustion gets here; one plugin's failure must not stop discovery.
                Error error{errors::kPluginLoadException,
                            "loading " + file.string() + " failed unexpectedly: " + e.what() + "; retry the reload"};
                error.details["manifest"] = file.string();
                report.failures.push_back(PluginFailure{file, "", std::move(error)});
            }
        }
    }
    for (const auto& failure : report.failures)
        spdlog::warn("plugin not loaded: {}: {}", failure.error.code, failure.error.message);
    return report;
}

}  // namespace skillhost::plugin
