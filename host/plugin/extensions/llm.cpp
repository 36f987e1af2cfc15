// "skillhost.llm/1" (and the 1.0 `complete` member, the same function): a completion for the call,
// answered by the call's front end when it samples (an MCP client), else by the host's model router.
// Answered by the host; the body is the role and the request.
#include "llm/error_codes.hpp"
#include "plugin/error_codes.hpp"
#include "plugin/extensions/host_extension.hpp"

#include "plugin/abi_strings.hpp"
#include "plugin/runner_protocol.hpp"

namespace skillhost::plugin {

extern const HostExtension llm_extension;

namespace {

Result<std::string> answer(const ExtensionScope& scope, std::string_view body) {
    wire::PayloadReader r(body);
    const std::string role(r.text());
    const std::string_view request = r.text();
    if (!r.ok()) return Error{errors::kRunnerProtocolError, "the completion request is unreadable"};
    const std::string& plugin = scope.plugin.plugin_name;
    if (!scope.plugin.llm_allowed)
        return Error{errors::kLlmNotPermitted,
                     "plugin '" + plugin +
                         "' asked for a completion but its manifest does not declare `permissions: {llm: true}`; "
                         "the plugin author must declare it",
                     {{"plugin", plugin}, {"role", role}}};
    // Answered for a call's user only: a plugin's threads outside any call get no model.
    if (!scope.in_call)
        return Error{errors::kLlmUnavailable,
                     "plugin '" + plugin +
                         "' asked for a completion outside any call; completions are answered only during a "
                         "call, for that call's user",
                     {{"plugin", plugin}, {"role", role}}};
    if (CallControl* control = scope.control; control && control->services && control->services->samples())
        return control->services->sample(role, request, control->cancelled);
    if (!scope.plugin.completions)
        return Error{errors::kLlmUnavailable,
                     "no model is configured for role '" + role +
                         "'; configure one in models.yaml or continue without a completion",
                     {{"role", role}}};
    return scope.plugin.completions->complete(CompletionOrigin{scope.user_id, scope.run_id}, role, request);
}

skillhost_status complete(void* host_context, const skillhost_call_context* call, skillhost_string_view role,
                          skillhost_string_view request_json, const skillhost_result_writer* writer) noexcept {
    return answer_through(writer, ask_extension_with(llm_extension, host_context, call, [&]() -> Result<std::string> {
                              wire::PayloadWriter w;
                              w.text(from_abi(role)).text(from_abi(request_json));
                              return std::move(w.bytes());
                          }));
}

const skillhost_llm_v1 table{&complete};

}  // namespace

extern const HostExtension llm_extension{
    .id = SKILLHOST_EXT_LLM,
    .table = &table,
    .answered_by_host = true,
    .blocks = true,
    .unavailable = &errors::kLlmUnavailable,
    .failed = &errors::kLlmFailed,
    .failing = "the completion request",
    .answer = &answer,
};

}  // namespace skillhost::plugin
