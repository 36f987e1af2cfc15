// "skillhost.call_log/1": a log line that belongs to a call, from whichever thread the plugin
// writes it. Answered where the plugin runs, as the 1.0 log() member's lines are: to the host's log
// (a runner's log reaches the host's) and to the call's front end (CallServices::log, which a
// runner forwards one way).
#include "plugin/extensions/host_extension.hpp"

#include "plugin/abi_strings.hpp"

namespace skillhost::plugin {
namespace {

void log_line(void* host_context, const skillhost_call_context* call, skillhost_log_level level,
              skillhost_string_view message) noexcept {
    log_call_line(host_context, control_of(call), level, from_abi(message));
}

const skillhost_call_log_v1 table{&log_line};

}  // namespace

extern const HostExtension call_log_extension{
    .id = SKILLHOST_EXT_CALL_LOG,
    .table = &table,
};

}  // namespace skillhost::plugin
