#include "plugin/extensions/host_extension.hpp"
#include "plugin/error_codes.hpp"

#include "plugin/abi_strings.hpp"

#include <array>

namespace skillhost::plugin {

// The modules, one per file in this folder.
extern const HostExtension llm_extension;
extern const HostExtension path_check_extension;
extern const HostExtension content_extension;
extern const HostExtension elicit_extension;
extern const HostExtension idempotency_extension;
extern const HostExtension storage_extension;
extern const HostExtension call_log_extension;

namespace {

const std::array<const HostExtension*, 7> all_extensions{
    &llm_extension,         &path_check_extension, &content_extension,  &elicit_extension,
    &idempotency_extension, &storage_extension,    &call_log_extension,
};

PluginHostContext& nobody() {
    static PluginHostContext context;  // a null host_context: no model, no storage, no forwarder
    return context;
}

}  // namespace

std::span<const HostExtension* const> host_extensions() {
    return all_extensions;
}

const HostExtension* find_host_extension(std::string_view id) {
    for (const HostExtension* extension : all_extensions)
        if (extension->id == id) return extension;
    return nullptr;
}

Error extension_failure(const HostExtension& extension) noexcept {
    const std::string what = std::string(extension.failing) + " failed in the host";
    try {
        throw;
    } catch (const std::exception& e) {
        return Error{*extension.failed, what + ": " + e.what()};
    } catch (...) {
        return Error{*extension.failed, what};
    }
}

Result<std::string> answer_extension(const HostExtension& extension, const ExtensionScope& scope,
                                     std::string_view body) noexcept {
    try {
        if (!extension.answer) return Error{*extension.failed, std::string(extension.failing) + " has no answer here"};
        return extension.answer(scope, body);
    } catch (...) {
        return extension_failure(extension);
    }
}

Result<std::string> ask_extension(const HostExtension& extension, void* host_context,
                                  const skillhost_call_context* call, Result<std::string> body) noexcept {
    if (!body) return body;
    const PluginHostContext& plugin = host_context ? *static_cast<PluginHostContext*>(host_context) : nobody();
    CallControl* control = control_of(call);
    if (extension.answered_by_host) {
        const bool worth_asking =
            !extension.worth_asking || (control && control->call && extension.worth_asking(*control->call));
        try {
            if (control && control->forward && worth_asking) return control->forward(extension, body.value());
            if (!control && plugin.forward) return plugin.forward(extension, body.value());
        } catch (...) {
            return extension_failure(extension);
        }
    }
    ExtensionScope scope{plugin, call != nullptr, control, {}, {}};
    if (call) scope.user_id = from_abi(call->user_id);
    if (control && control->call) scope.run_id = control->call->run_id;
    return answer_extension(extension, scope, body.value());
}

void write_error(const skillhost_result_writer* writer, std::string_view code, std::string_view message,
                 std::string_view details_json) {
    if (writer && writer->write_error)
        writer->write_error(writer->writer_context, to_abi(code), to_abi(message), to_abi(details_json));
}

}  // namespace skillhost::plugin
