// LoadedPlugin over the C ABI: owns the library mapping, the descriptor and the plugin's state.
// Internal to the plugin subsystem; others see it as a LoadedPlugin.
#pragma once

#include "base/error.hpp"
#include "plugin/completion_service.hpp"
#include "plugin/host_services.hpp"
#include "plugin/loaded_plugin.hpp"
#include "plugin/result_capture.hpp"

#include <boost/dll/shared_library.hpp>

#include <map>
#include <memory>
#include <string>

namespace skillhost::plugin {

class AbiPlugin final : public LoadedPlugin {
public:
    // Takes a library whose descriptor passed check_descriptor() and calls the plugin's init().
    // `host_context` is what its host services use (its plugin_name is set here).
    // Error PLUGIN_INIT_FAILED carries what the plugin wrote to the error writer.
    static Result<std::shared_ptr<LoadedPlugin>> start(boost::dll::shared_library library,
                                                       const skillhost_plugin* descriptor, manifest::Manifest manifest,
                                                       std::filesystem::path loaded_from,
                                                       PluginHostContext host_context,
                                                       std::size_t max_result_bytes = kDefaultMaxResultBytes);

    // Calls shutdown() (if init succeeded), then unloads the library.
    ~AbiPlugin() override;

    AbiPlugin(const AbiPlugin&) = delete;
    AbiPlugin& operator=(const AbiPlugin&) = delete;

    const manifest::Manifest& manifest() const override { return manifest_; }
    std::string_view version() const override { return version_; }
    manifest::AbiVersion abi_version() const override;
    const std::filesystem::path& loaded_from() const override { return loaded_from_; }
    RawOutcome invoke(const Call& context, std::string_view args_json) const override;
    const void* extension(std::string_view id) const override;
    RawOutcome request_resources(ResourceRequest request, const Call& context, std::string_view uri,
                                 std::size_t max_bytes) const override;
    RawOutcome request_prompts(PromptRequest request, const Call& context, std::string_view name, std::string_view json,
                               std::size_t max_bytes) const override;

private:
    void query_extensions();
    // Builds the ABI call context for `context` (creating data_dir when needed) and runs
    // `run(call, writer)` with a capture limited to `max_bytes`. `entry` names the entry point in
    // errors ("resources read()"); empty for a skill, named by its id.
    template <typename Run>
    RawOutcome with_call_context(const Call& context, std::size_t max_bytes, std::string_view entry, Run&& run) const;

    AbiPlugin(boost::dll::shared_library library, const skillhost_plugin* descriptor, manifest::Manifest manifest,
              std::filesystem::path loaded_from, PluginHostContext host_context, std::size_t max_result_bytes);

    // Declared first so it is destroyed last: everything below may point into the library.
    boost::dll::shared_library library_;
    const skillhost_plugin* descriptor_;
    manifest::Manifest manifest_;
    std::filesystem::path loaded_from_;
    std::string version_;
    std::map<std::string, skillhost_invoke_fn, std::less<>> skills_;
    // The plugin-side extensions this host knows, as the plugin answered after init().
    std::map<std::string, const void*, std::less<>> extensions_;
    // The plugin keeps pointers to both until shutdown(); they live inside this object, which is
    // never moved (it is only handed out through shared_ptr).
    PluginHostContext host_context_;
    skillhost_host_services services_;
    std::size_t max_result_bytes_;
    void* state_ = nullptr;
    bool initialized_ = false;
};

}  // namespace skillhost::plugin
