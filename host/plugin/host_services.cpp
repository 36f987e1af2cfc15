// Every function here is called by plugin code through a C function pointer: none may throw, and
// each must survive whatever a buggy plugin passes (null pointers, null data with a size). The
// extensions are modules of their own (plugin/extensions/).
#include "plugin/host_services.hpp"
#include "db/error_codes.hpp"
#include "llm/error_codes.hpp"
#include "plugin/error_codes.hpp"
#include "store/error_codes.hpp"

#include "plugin/abi_strings.hpp"
#include "plugin/call_control.hpp"
#include "plugin/extensions/host_extension.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <string>

namespace skillhost::plugin {
namespace {

// The call running on this thread, for the 1.0 log() member, which takes no call: ABI 1.0 promises
// that a line logged on the thread running invoke() is that call's. Nothing else reads it; a call's
// state otherwise travels in the call ("skillhost.call_log/1" takes the call).
thread_local CallControl* thread_call = nullptr;

// The most log lines of one call a front end receives: a plugin logging in a loop must not flood
// the client (the host log still gets every line).
constexpr int kMaxForwardedLogLines = 100;

spdlog::level::level_enum to_spdlog(skillhost_log_level level) {
    switch (level) {
        case SKILLHOST_LOG_DEBUG: return spdlog::level::debug;
        case SKILLHOST_LOG_INFO: return spdlog::level::info;
        case SKILLHOST_LOG_WARN: return spdlog::level::warn;
        case SKILLHOST_LOG_ERROR: return spdlog::level::err;
        default: return spdlog::level::info;  // a level from a newer ABI minor
    }
}

void log_line(void* host_context, skillhost_log_level level, skillhost_string_view message) noexcept {
    log_call_line(host_context, thread_call, level, from_abi(message));
}

void report_progress(void*, const skillhost_call_context* call, double progress, double total,
                     skillhost_string_view message) noexcept {
    CallControl* control = control_of(call);
    if (!control || !control->services) return;
    try {
        control->services->progress(progress, total, from_abi(message));
    } catch (const std::exception& e) {
        spdlog::warn("progress listener failed: {}", e.what());
    } catch (...) {
        spdlog::warn("progress listener failed with an unknown exception");
    }
}

int32_t is_cancelled(void*, const skillhost_call_context* call) noexcept {
    if (!call) return 0;
    if (const CallControl* control = control_of(call); control && control->cancelled.load()) return 1;
    // The deadline counts even when the executor has not yet noticed it passed.
    if (call->deadline_unix_ms > 0) {
        const auto now_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        if (now_ms >= call->deadline_unix_ms) return 1;
    }
    return 0;
}

const void* get_extension(void*, const char* id) noexcept {
    if (id == nullptr) return nullptr;
    const HostExtension* extension = find_host_extension(id);
    return extension ? extension->table : nullptr;
}

}  // namespace

void log_call_line(void* host_context, CallControl* control, skillhost_log_level level,
                   std::string_view message) noexcept {
    try {
        const auto* context = static_cast<const PluginHostContext*>(host_context);
        const std::string_view name = context ? std::string_view(context->plugin_name) : "?";
        spdlog::log(to_spdlog(level), "[plugin {}] {}", name, message);
        if (!control || !control->services) return;
        const int sent = control->forwarded_log_lines.fetch_add(1);
        if (sent < kMaxForwardedLogLines)
            control->services->log(level, message);
        else if (sent == kMaxForwardedLogLines)
            control->services->log(SKILLHOST_LOG_WARN, "further log lines of this call are not forwarded (limit " +
                                                           std::to_string(kMaxForwardedLogLines) + ")");
    } catch (...) {
        // Logging must never take the plugin's call down.
    }
}

skillhost_status answer_through(const skillhost_result_writer* writer, const Result<std::string>& answer) {
    if (answer.ok()) {
        if (writer && writer->write_result) writer->write_result(writer->writer_context, to_abi(answer.value()));
        return SKILLHOST_STATUS_OK;
    }
    const Error& error = answer.error();
    write_error(writer, error.code.str(), error.message, boost::json::serialize(error.details));
    if (error.is(errors::kLlmUnavailable) || error.is(errors::kElicitationUnavailable) ||
        error.is(errors::kContentUnavailable))
        return SKILLHOST_STATUS_UNAVAILABLE;
    if (error.is(errors::kStorageUnavailable) || error.is(errors::kDatabaseUnavailable))
        return SKILLHOST_STATUS_UNAVAILABLE;
    if (error.is(errors::kElicitationInvalid) || error.is(errors::kStorageInvalid) ||
        error.is(errors::kStorageTooLarge) || error.is(errors::kContentInvalid) || error.is(errors::kContentTooLarge))
        return SKILLHOST_STATUS_INVALID_ARGS;
    // A question queued for later (exec/elicitation_pause.hpp): the skill must stop as if cancelled.
    if (error.is(errors::kCancelled) || error.is(errors::kElicitationPending)) return SKILLHOST_STATUS_CANCELLED;
    return SKILLHOST_STATUS_ERROR;
}

skillhost_host_services make_host_services(PluginHostContext& context) {
    skillhost_host_services services{};
    services.struct_size = sizeof(skillhost_host_services);
    services.host_abi_version = SKILLHOST_ABI_VERSION_INIT;
    services.host_context = &context;
    services.log = &log_line;
    services.report_progress = &report_progress;
    services.is_cancelled = &is_cancelled;
    // The 1.0 member is the "skillhost.llm/1" extension's function.
    services.complete = static_cast<const skillhost_llm_v1*>(find_host_extension(SKILLHOST_EXT_LLM)->table)->complete;
    services.get_extension = &get_extension;
    return services;
}

CallThreadScope::CallThreadScope(CallControl* control) : previous_(thread_call) {
    thread_call = control;
}

CallThreadScope::~CallThreadScope() {
    thread_call = previous_;
}

}  // namespace skillhost::plugin
