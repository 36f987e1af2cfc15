#include "plugin/plugin_loader.hpp"
#include "plugin/error_codes.hpp"

#include "plugin/abi_plugin.hpp"
#include "plugin/descriptor_check.hpp"
#include "plugin/private_copy.hpp"
#include "plugin/process_plugin.hpp"

#include <boost/dll/shared_library.hpp>
#include <boost/json/array.hpp>

#include <dlfcn.h>

#include <system_error>
#include <utility>

namespace skillhost::plugin {

void note_declared_skills(Error& error, const manifest::Manifest& manifest) {
    boost::json::array ids;
    for (const auto& skill : manifest.skills) ids.emplace_back(skill.id);
    error.details["skills"] = std::move(ids);
}
namespace {

// Every load error names the manifest and the library, so `skills list` and logs say which file.
Error with_paths(Error error, const manifest::Manifest& manifest) {
    error.details["manifest"] = manifest.file.string();
    error.details["library"] = manifest.library_path().string();
    if (!manifest.name.empty() && !error.details.contains("plugin")) error.details["plugin"] = manifest.name;
    return error;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    if (from.empty()) return text;
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// Boost.DLL reports only "bad file descriptor"; the dynamic linker's own text (e.g. "undefined
// symbol: foo") is what tells an author what to fix. It mentions the private copy, which the
// author never sees, so it is rewritten to name the original file.
std::string load_failure_text(const boost::dll::fs::error_code& ec, const std::filesystem::path& copy,
                              const std::filesystem::path& original) {
    const char* text = ::dlerror();
    std::string reason = text ? std::string(text) : ec.message();
    return replace_all(std::move(reason), copy.string(), original.string());
}

}  // namespace

PluginLoader::PluginLoader(LoaderOptions options) : options_(std::move(options)) {
    if (options_.cache_dir.empty()) {
        std::error_code ec;
        std::filesystem::path temp = std::filesystem::temp_directory_path(ec);
        options_.cache_dir = (ec ? std::filesystem::path("/tmp") : temp) / "skillhost-plugin-cache";
    }
}

Result<std::shared_ptr<LoadedPlugin>> PluginLoader::load(const manifest::Manifest& manifest) const {
    const std::filesystem::path library_path = manifest.library_path();
    const std::string& name = manifest.name;

    std::error_code ec;
    if (!std::filesystem::is_regular_file(library_path, ec)) {
        Error error{errors::kLibraryNotFound, "plugin '" + name + "': the library " + library_path.string() +
                                                  " named by manifest " + manifest.file.string() +
                                                  " does not exist; build and install the plugin, or fix `library:` in "
                                                  "the manifest"};
        return with_paths(std::move(error), manifest);
    }

    // In `process` mode the plugin's code never runs in this process: a runner loads it.
    if (options_.isolation.mode_for(name, manifest.file) == IsolationMode::process) {
        Result<std::shared_ptr<LoadedPlugin>> started = ProcessPlugin::start(manifest, options_);
        if (!started) return with_paths(std::move(started.error()), manifest);
        return started;
    }

    Result<std::filesystem::path> copy = options_.private_copy
                                             ? make_private_copy(library_path, options_.cache_dir, name)
                                             : Result<std::filesystem::path>(library_path);
    if (!copy) return with_paths(std::move(copy.error()), manifest);

    boost::dll::fs::error_code load_ec;
    boost::dll::shared_library library(copy.value(), load_ec,
                                       boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    std::string failure = load_ec ? load_failure_text(load_ec, copy.value(), library_path) : std::string();
    // The mapping keeps the code alive; removing the file at once leaves nothing behind on a crash.
    if (options_.private_copy) std::filesystem::remove(copy.value(), ec);
    if (load_ec) {
        Error error{errors::kLibraryLoadFailed, "plugin '" + name + "': cannot load " + library_path.string() + ": " +
                                                    failure +
                                                    "; rebuild the plugin against this host's SDK with all its "
                                                    "dependencies installed"};
        error.details["reason"] = failure;
        return with_paths(std::move(error), manifest);
    }

    if (!library.has(SKILLHOST_ENTRY_SYMBOL)) {
        Error error{errors::kEntryMissing,
                    "plugin '" + name + "': " + library_path.string() + " exports no `" + SKILLHOST_ENTRY_SYMBOL +
                        "` symbol; a plugin must export it, e.g. with SKILLHOST_PLUGIN(...) in C++ "
                        "or SKILLHOST_EXPORT const skillhost_plugin* skillhost_plugin_entry(void) "
                        "in C"};
        return with_paths(std::move(error), manifest);
    }
    auto& entry = library.get<const skillhost_plugin*()>(SKILLHOST_ENTRY_SYMBOL);
    const skillhost_plugin* descriptor = nullptr;
    bool entry_threw = false;
    try {
        descriptor = entry();
    } catch (...) {
        entry_threw = true;  // forbidden by the ABI; reported like a missing descriptor
    }
    if (descriptor == nullptr) {
        Error error{errors::kEntryReturnedNull,
                    "plugin '" + name + "': " + std::string(SKILLHOST_ENTRY_SYMBOL) + "() " +
                        (entry_threw ? "threw an exception" : "returned NULL") +
                        "; it must return a pointer to the plugin's static skillhost_plugin "
                        "descriptor"};
        return with_paths(std::move(error), manifest);
    }

    // Only abi_version may be read before the version is accepted: the rest of the layout belongs
    // to that version.
    if (Status status = check_abi_version(descriptor->abi_version, name); !status)
        return with_paths(status.error(), manifest);
    if (Status status = check_descriptor(*descriptor, manifest); !status) return with_paths(status.error(), manifest);

    Result<std::shared_ptr<LoadedPlugin>> started =
        AbiPlugin::start(std::move(library), descriptor, manifest, std::move(copy.value()),
                         PluginHostContext{{}, options_.completions, options_.storage, true, options_.forward},
                         options_.isolation.max_result_bytes);
    if (!started) return with_paths(std::move(started.error()), manifest);
    return started;
}

Result<std::shared_ptr<LoadedPlugin>> PluginLoader::load_file(const std::filesystem::path& manifest_file) const {
    Result<manifest::Manifest> manifest = manifest::load_manifest(manifest_file);
    if (!manifest) {
        Error error = std::move(manifest.error());
        if (!error.details.contains("manifest")) error.details["manifest"] = manifest_file.string();
        return error;
    }
    return load(manifest.value());
}

}  // namespace skillhost::plugin
