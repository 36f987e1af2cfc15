// "skillhost.idempotency/1": the key that stays the same when a call is retried. Answered where the
// plugin runs: the key is part of the call (plugin/call.hpp), which a runner receives whole.
#include "plugin/extensions/host_extension.hpp"

#include "plugin/abi_strings.hpp"

namespace skillhost::plugin {
namespace {

skillhost_string_view idempotency_key(void*, const skillhost_call_context* call) noexcept {
    const CallControl* control = control_of(call);
    if (!control) return to_abi(std::string_view());
    // A call made without the executor (a test harness) has no key of its own: it is never retried.
    if (!control->call || control->call->idempotency_key.empty()) return call->call_id;
    return to_abi(control->call->idempotency_key);
}

const skillhost_idempotency_v1 table{&idempotency_key};

}  // namespace

extern const HostExtension idempotency_extension{
    .id = SKILLHOST_EXT_IDEMPOTENCY,
    .table = &table,
};

}  // namespace skillhost::plugin
