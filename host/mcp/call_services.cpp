// What an MCP client serves for one tools/call while the skill runs: the skill's log lines as
// notifications/message, its completion requests as sampling/createMessage, its questions to the
// user as elicitation/create. Every message names the call, so that the HTTP transport sends it on
// that call's stream.
#include "mcp/client_sampling.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/mcp_session.hpp"
#include "mcp/skill_elicitation.hpp"
#include "plugin/error_codes.hpp"

#include <boost/json/parse.hpp>

namespace skillhost::mcp {

namespace json = boost::json;

namespace {

LogLevel mcp_level(skillhost_log_level level) {
    switch (level) {
        case SKILLHOST_LOG_DEBUG: return LogLevel::debug;
        case SKILLHOST_LOG_WARN: return LogLevel::warning;
        case SKILLHOST_LOG_ERROR: return LogLevel::error;
        default: return LogLevel::info;
    }
}

}  // namespace

void McpSession::attach_call_services(exec::CallRequest& request, const catalog::CatalogEntry& entry,
                                      const std::string& call_key) {
    const manifest::Manifest& manifest = entry.plugin->manifest();
    request.options.on_log = [this, call_key, logger = manifest.name](skillhost_log_level level,
                                                                      std::string_view message) {
        const LogLevel mapped = mcp_level(level);
        if (!initialize_answered_.load() || mapped < log_level_.load()) return;
        send(make_notification("notifications/message",
                               json::object{{"level", to_string(mapped)}, {"logger", logger}, {"data", message}}),
             call_key);
    };

    if (client_samples_.load() && options_.client_sampling) {
        const bool llm_allowed = !manifest.permissions.declared || manifest.permissions.llm;
        request.options.sample = [this, call_key, llm_allowed, plugin = manifest.name](
                                     std::string_view role, std::string_view request_json,
                                     const std::atomic<bool>& ended) -> Result<std::string> {
            if (!llm_allowed)
                return Error{errors::kLlmNotPermitted,
                             "plugin '" + plugin +
                                 "' asked for a completion but its manifest does not declare "
                                 "`permissions: {llm: true}`; the plugin author must declare it",
                             {{"plugin", plugin}, {"role", role}}};
            auto params = sampling_params(role, request_json);
            if (!params) return params.error();
            const auto started = std::chrono::steady_clock::now();
            auto response =
                ask_client("sampling/createMessage", std::move(*params), ended, options_.elicitation_timeout, call_key);
            Result<SampledAnswer> answer =
                response       ? read_sampling_answer(*response)
                : ended.load() ? Result<SampledAnswer>(Error{errors::kCancelled,
                                                             "the call ended while the "
                                                             "MCP client was sampling"})
                               : Result<SampledAnswer>(Error{errors::kLlmFailed,
                                                             "the MCP client did not answer the sampling request "
                                                             "in time; retry the call"});
            if (audit::AuditLog* audit = pipeline_.parts().audit) {
                audit::LlmCallAudit record;
                record.user_id = user_.user_id;
                record.role = std::string(role);
                record.backend = "mcp-client";
                record.sampled_by = "client";
                record.model = answer ? answer->model : std::string();
                record.duration =
                    std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
                record.ok = answer.ok();
                if (!answer) record.error_code = answer.error().code;
                (void)audit->record_llm_call(record);
            }
            if (!answer) return answer.error();
            return std::move(answer->abi_json);
        };
    }

    request.options.elicit = [this, call_key](std::string_view request_json,
                                              const std::atomic<bool>& ended) -> Result<std::string> {
        if (!client_elicits_.load())
            return Error{errors::kElicitationUnavailable,
                         "the MCP client did not declare the elicitation capability, so the user cannot be asked; "
                         "continue without the input or ask the caller to pass it as an argument"};
        auto params = elicitation_params(request_json);
        if (!params) return params.error();
        const json::object schema = params->at("requestedSchema").get_object();
        auto response =
            ask_client("elicitation/create", std::move(*params), ended, options_.elicitation_timeout, call_key);
        if (!response) {
            if (ended.load()) return Error{errors::kCancelled, "the call ended while waiting for the user's answer"};
            return Error{errors::kElicitationFailed,
                         "the user did not answer in time; ask again or continue without it"};
        }
        return read_elicitation_answer(*response, schema);
    };
}

}  // namespace skillhost::mcp
