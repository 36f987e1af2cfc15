// The host-services table (skillhost_host_services) a plugin receives at init.
#pragma once

#include "plugin/call_control.hpp"
#include "plugin/completion_service.hpp"
#include "plugin/storage_service.hpp"

#include <skillhost/skill_abi.h>

#include <memory>
#include <string>

namespace skillhost::plugin {

// What the service functions need to know about the plugin calling them; `host_context` points
// here. Lives as long as the loaded plugin, i.e. past the plugin's shutdown().
struct PluginHostContext {
    std::string plugin_name{};                         // attributes log lines
    std::shared_ptr<CompletionService> completions{};  // null: completions answer UNAVAILABLE
    std::shared_ptr<StorageService> storage{};         // null: storage answers STORAGE_UNAVAILABLE
    // False when the manifest declares permissions without `llm: true`: completions are refused.
    bool llm_allowed = true;
    // Set in a runner: the host answers the extensions it answers, for requests made outside any
    // call too (it refuses them there); empty: answered here.
    ExtensionForward forward{};
};

// A table whose functions all take `context` as host_context. The per-call services expect the
// call context's host_call to be a CallControl* (or null).
skillhost_host_services make_host_services(PluginHostContext& context);

// Writes a host service's answer (the answer JSON, or the error) to `writer` and returns the
// status the ABI documents for it (UNAVAILABLE for LLM_UNAVAILABLE and ELICITATION_UNAVAILABLE, ...).
skillhost_status answer_through(const skillhost_result_writer* writer, const Result<std::string>& answer);

// Writes a plugin's log line to the host's log and, when `control` is a call's, to that call's
// front end (at most 100 lines per call): the 1.0 log() member for the call running on the logging
// thread, and "skillhost.call_log/1" for the call it names.
void log_call_line(void* host_context, CallControl* control, skillhost_log_level level,
                   std::string_view message) noexcept;

// While it lives, log() lines written on this thread belong to `control`'s call too (its on_log).
// The ABI's log() takes no call, so the thread running invoke() is how a line finds its call.
class CallThreadScope {
public:
    explicit CallThreadScope(CallControl* control);
    ~CallThreadScope();
    CallThreadScope(const CallThreadScope&) = delete;
    CallThreadScope& operator=(const CallThreadScope&) = delete;

private:
    CallControl* previous_;
};

}  // namespace skillhost::plugin
