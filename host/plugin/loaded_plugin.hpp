// One loaded version of a plugin library, owned through shared_ptr: the catalog snapshot and every
// in-flight call hold a reference, and the library is shut down and unloaded when the last goes.
#pragma once

#include "base/error.hpp"
#include "manifest/manifest.hpp"
#include "plugin/call.hpp"
#include "plugin/call_control.hpp"
#include "plugin/error_codes.hpp"

#include <skillhost/skill_abi.h>
#include <skillhost/skill_prompts.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::plugin {

// What came back over the ABI, before the executor interprets it.
struct RawOutcome {
    skillhost_status status = SKILLHOST_STATUS_ERROR;
    enum class Written { nothing, result, error } written = Written::nothing;
    std::string result_json;  // when written == result
    std::string error_code;   // when written == error
    std::string error_message;
    std::string error_details_json;
    int extra_writes = 0;  // writes after the first (a contract violation, logged)

    // The host's own error, written as the outcome a plugin's error would be.
    static RawOutcome from_error(const Error& error);
};

// One request of the "skillhost.resources/1" plugin extension.
enum class ResourceRequest { list, list_templates, read };
// One request of the "skillhost.prompts/1" plugin extension.
enum class PromptRequest { list, get, complete };

class LoadedPlugin {
public:
    virtual ~LoadedPlugin() = default;
    virtual const manifest::Manifest& manifest() const = 0;
    // The plugin's self-reported version (skillhost_plugin.version).
    virtual std::string_view version() const = 0;
    virtual manifest::AbiVersion abi_version() const = 0;
    // The private copy the library was loaded from. The file itself is already deleted (the
    // mapping stays); the path identifies this load, e.g. in /proc/self/maps.
    virtual const std::filesystem::path& loaded_from() const = 0;
    // Runs one skill over the C ABI. Thread-safe per the ABI rules; the executor serialises skills
    // whose manifest says `concurrency: serial`. The host itself writes an error outcome only when
    // the skill id is unknown (SKILL_NOT_FOUND) or data_dir cannot be created (DATA_DIR_UNAVAILABLE).
    virtual RawOutcome invoke(const Call& context, std::string_view args_json) const = 0;
    // The plugin's table for an ABI extension id (e.g. SKILLHOST_EXT_PLUGIN_INFO), or null when the
    // plugin does not offer it. Valid as long as this object.
    virtual const void* extension(std::string_view id) const {
        (void)id;
        return nullptr;
    }
    // Runs one request of the plugin's resources extension (`uri` only for read), with the same call
    // context a skill call gets; an answer over `max_bytes` is a RESULT_TOO_LARGE error. A plugin
    // without the extension, or running isolated (the runner protocol does not carry it yet),
    // answers RESOURCES_UNSUPPORTED.
    virtual RawOutcome request_resources(ResourceRequest request, const Call& context, std::string_view uri,
                                         std::size_t max_bytes) const {
        (void)request, (void)context, (void)uri, (void)max_bytes;
        RawOutcome out;
        out.written = RawOutcome::Written::error;
        out.error_code = std::string(errors::kResourcesUnsupported.name);
        out.error_message = "plugin '" + manifest().name + "' publishes no resources in this host";
        out.error_details_json = "{}";
        return out;
    }
    // Runs one request of the plugin's prompts extension, like request_resources: `name` and
    // `json` (the arguments object) for get, `json` (the completion request) for complete. A
    // plugin without the extension or that function, or running isolated, answers
    // PROMPTS_UNSUPPORTED.
    virtual RawOutcome request_prompts(PromptRequest request, const Call& context, std::string_view name,
                                       std::string_view json, std::size_t max_bytes) const {
        (void)request, (void)context, (void)name, (void)json, (void)max_bytes;
        RawOutcome out;
        out.written = RawOutcome::Written::error;
        out.error_code = std::string(errors::kPromptsUnsupported.name);
        out.error_message = "plugin '" + manifest().name + "' publishes no prompts in this host";
        out.error_details_json = "{}";
        return out;
    }
    // True when the plugin runs in supervised runner processes rather than in the host.
    virtual bool isolated() const { return false; }
    // Why the plugin is quarantined (PLUGIN_QUARANTINED, naming its crashes), or nullopt. A
    // quarantined plugin answers every call with that error until a new version is loaded.
    virtual std::optional<Error> quarantine() const { return std::nullopt; }
    // A newer version of this plugin it made itself, for the catalog to serve instead, or null when
    // there is none: a foreign MCP server that said its tools changed lists them again and offers
    // what it lists now, from the same running instances. May ask the server (up to its start-up
    // limit), so never called under a catalog lock.
    virtual std::shared_ptr<LoadedPlugin> relisted() const { return nullptr; }
    // What the runner's sandbox enforces (empty for in-process plugins).
    virtual boost::json::object sandbox() const { return {}; }
    // How its runners fare, for operators: {crashes (within the quarantine window), crash_limit,
    // window_s, runners (alive now)}; empty for in-process plugins.
    virtual boost::json::object supervision() const { return {}; }
};

}  // namespace skillhost::plugin
