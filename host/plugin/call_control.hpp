// The host side of one in-flight skill call: cancellation flag, shared between the executor (which
// may cancel on timeout) and the plugin (which polls it through host services), plus what the front
// end that started the call serves for it (plugin/call_services.hpp) and the content items the
// skill adds.
#pragma once

#include "base/error.hpp"
#include "plugin/call.hpp"
#include "plugin/call_content.hpp"
#include "plugin/call_services.hpp"

#include <skillhost/skill_abi.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace skillhost::plugin {

struct HostExtension;  // plugin/extensions/host_extension.hpp

// Sends a host extension's request (`body`: the extension module's encoding) to whoever answers it
// for this plugin, and returns their answer.
using ExtensionForward = std::function<Result<std::string>(const HostExtension& extension, std::string_view body)>;

struct CallControl {
    std::atomic<bool> cancelled{false};
    // What the front end serves for this call (progress, log lines, sampling, elicitation); null:
    // none of them. Shared: a runner's connection may hold it while a request is answered.
    std::shared_ptr<CallServices> services;
    // The "skillhost.path_check/1" answer for this call's rules; empty: no rule withholds a path.
    // Called from the plugin's threads, so it owns what it reads.
    std::function<bool(std::string_view path)> path_allowed;
    std::atomic<int> forwarded_log_lines{0};  // lines given to services->log (bounded in host_services.cpp)
    // Answers the host extensions answered by the host somewhere else: set by a runner for each
    // call (its requests go over the socket); empty: the plugin's host answers them itself.
    ExtensionForward forward;
    // "skillhost.content/1" items.
    CallContent content{SKILLHOST_CONTENT_MAX_ITEMS, SKILLHOST_CONTENT_MAX_BYTES};
    // The call this controls (its idempotency key and run, for the host services); set before the
    // call starts. Kept after the members above: a plugin scribbling over the start of its
    // host_call handle (the hostile fixture does) then hits flags and empty services, not this.
    const Call* call = nullptr;
};

}  // namespace skillhost::plugin
