// "skillhost.elicit/1": asks the call's user for input, through the call's front end (an MCP
// client's elicitation, or the question queue). Answered by the host; the body is the request.
#include "plugin/error_codes.hpp"
#include "plugin/extensions/host_extension.hpp"

#include "plugin/abi_strings.hpp"

namespace skillhost::plugin {

extern const HostExtension elicit_extension;

namespace {

Result<std::string> answer(const ExtensionScope& scope, std::string_view request_json) {
    static const std::atomic<bool> never_ended{false};
    CallControl* control = scope.control;
    if (!control || !control->services) return CallServices().elicit(request_json, never_ended);  // says nobody asks
    return control->services->elicit(request_json, control->cancelled);
}

skillhost_status elicit(void* host_context, const skillhost_call_context* call, skillhost_string_view request_json,
                        const skillhost_result_writer* writer) noexcept {
    return answer_through(
        writer, ask_extension_with(elicit_extension, host_context, call,
                                   [&]() -> Result<std::string> { return std::string(from_abi(request_json)); }));
}

const skillhost_elicit_v1 table{&elicit};

}  // namespace

extern const HostExtension elicit_extension{
    .id = SKILLHOST_EXT_ELICIT,
    .table = &table,
    .answered_by_host = true,
    .blocks = true,  // a person answers
    .unavailable = &errors::kElicitationUnavailable,
    .failed = &errors::kElicitationFailed,
    .failing = "asking the user",
    .answer = &answer,
};

}  // namespace skillhost::plugin
