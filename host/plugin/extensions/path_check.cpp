// "skillhost.path_check/1": whether the call's path rules let the skill touch a path. Answered by
// the host, which holds the rules (the body is the path; the answer "true" or "false"), and only
// for a call that has rules: without them every path passes where the plugin runs. Fails closed:
// a path the host cannot judge is withheld.
#include "plugin/error_codes.hpp"
#include "plugin/extensions/host_extension.hpp"

#include "plugin/abi_strings.hpp"

namespace skillhost::plugin {

extern const HostExtension path_check_extension;

namespace {

// A path longer than this is withheld without asking anyone (PATH_MAX is 4096).
constexpr std::size_t max_checked_path = 32 * 1024;

Result<std::string> answer(const ExtensionScope& scope, std::string_view path) {
    const CallControl* control = scope.control;
    if (!control) return std::string("false");  // outside a call (or after it ended): nothing passes
    const bool allowed = !control->path_allowed || control->path_allowed(path);
    return std::string(allowed ? "true" : "false");
}

int32_t is_path_allowed(void* host_context, const skillhost_call_context* call, skillhost_string_view path,
                        int32_t /*operation: every operation is judged by the same rules*/) noexcept {
    if (!control_of(call)) return 0;
    if (path.size > 0 && path.data == nullptr) return 0;
    if (path.size > max_checked_path) return 0;
    const Result<std::string> allowed = ask_extension_with(
        path_check_extension, host_context, call, [&]() -> Result<std::string> { return std::string(from_abi(path)); });
    return allowed.ok() && allowed.value() == "true" ? 1 : 0;
}

const skillhost_path_check_v1 table{&is_path_allowed};

}  // namespace

extern const HostExtension path_check_extension{
    .id = SKILLHOST_EXT_PATH_CHECK,
    .table = &table,
    .answered_by_host = true,
    .blocks = false,  // the rules are in memory
    .unavailable = &errors::kRunnerProtocolError,
    .failed = &errors::kRunnerProtocolError,
    .failing = "checking the path",
    .answer = &answer,
    .worth_asking = [](const Call& call) { return call.has_path_rules; },
};

}  // namespace skillhost::plugin
