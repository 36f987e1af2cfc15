// What an MCP client serves for one tools/call while the skill runs: its progress as
// notifications/progress (when the call asked), the skill's log lines as notifications/message, its
// completion requests as sampling/createMessage, its questions to the user as elicitation/create.
// Every message but progress names the call, so that the HTTP transport sends it on that call's
// stream.
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

// One tools/call's services, answered by the session's client.
class McpSession::ClientCallServices final : public plugin::CallServices {
public:
    ClientCallServices(McpSession& session, const manifest::Manifest& manifest, std::string call_key,
                       json::value progress_token, std::function<void()> hand_reader_over)
        : session_(session),
          plugin_(manifest.name),
          llm_allowed_(!manifest.permissions.declared || manifest.permissions.llm),
          samples_(session.client_samples_.load() && session.options_.client_sampling),
          call_key_(std::move(call_key)),
          progress_token_(std::move(progress_token)),
          hand_reader_over_(std::move(hand_reader_over)) {}

    // A call run on the stdio reader's thread hands the reading on when it runs long.
    std::optional<std::chrono::milliseconds> running_long_after() const override {
        if (!hand_reader_over_) return std::nullopt;
        return std::chrono::milliseconds(5);
    }
    void running_long() override {
        if (hand_reader_over_) hand_reader_over_();
    }

    void progress(double progress, double total, std::string_view message) override {
        if (progress_token_.is_null()) return;
        json::object note{{"progressToken", progress_token_}, {"progress", progress}};
        if (total > 0) note["total"] = total;
        if (!message.empty()) note["message"] = message;
        session_.send(make_notification("notifications/progress", std::move(note)));
    }

    void log(skillhost_log_level level, std::string_view message) override {
        const LogLevel mapped = mcp_level(level);
        if (!session_.initialize_answered_.load() || mapped < session_.log_level_.load()) return;
        session_.send(
            make_notification("notifications/message",
                              json::object{{"level", to_string(mapped)}, {"logger", plugin_}, {"data", message}}),
            call_key_);
    }

    bool samples() const override { return samples_; }

    Result<std::string> sample(std::string_view role, std::string_view request_json,
                               const std::atomic<bool>& ended) override {
        if (!llm_allowed_)
            return Error{errors::kLlmNotPermitted,
                         "plugin '" + plugin_ +
                             "' asked for a completion but its manifest does not declare "
                             "`permissions: {llm: true}`; the plugin author must declare it",
                         {{"plugin", plugin_}, {"role", role}}};
        auto params = sampling_params(role, request_json);
        if (!params) return params.error();
        const auto started = std::chrono::steady_clock::now();
        auto response = session_.ask_client("sampling/createMessage", std::move(*params), ended,
                                            session_.options_.elicitation_timeout, call_key_);
        Result<SampledAnswer> answer =
            response       ? read_sampling_answer(*response)
            : ended.load() ? Result<SampledAnswer>(Error{errors::kCancelled,
                                                         "the call ended while the "
                                                         "MCP client was sampling"})
                           : Result<SampledAnswer>(Error{errors::kLlmFailed,
                                                         "the MCP client did not answer the sampling request "
                                                         "in time; retry the call"});
        if (audit::AuditLog* audit = session_.pipeline_.parts().audit) {
            audit::LlmCallAudit record;
            record.user_id = session_.user_.user_id;
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
    }

    Result<std::string> elicit(std::string_view request_json, const std::atomic<bool>& ended) override {
        if (!session_.client_elicits_.load())
            return Error{errors::kElicitationUnavailable,
                         "the MCP client did not declare the elicitation capability, so the user cannot be asked; "
                         "continue without the input or ask the caller to pass it as an argument"};
        auto params = elicitation_params(request_json);
        if (!params) return params.error();
        const json::object schema = params->at("requestedSchema").get_object();
        auto response = session_.ask_client("elicitation/create", std::move(*params), ended,
                                            session_.options_.elicitation_timeout, call_key_);
        if (!response) {
            if (ended.load()) return Error{errors::kCancelled, "the call ended while waiting for the user's answer"};
            return Error{errors::kElicitationFailed,
                         "the user did not answer in time; ask again or continue without it"};
        }
        return read_elicitation_answer(*response, schema);
    }

private:
    McpSession& session_;
    const std::string plugin_;
    const bool llm_allowed_;
    const bool samples_;
    const std::string call_key_;
    const json::value progress_token_;
    const std::function<void()> hand_reader_over_;
};

void McpSession::attach_call_services(exec::CallRequest& request, const catalog::CatalogEntry& entry,
                                      const std::string& call_key, json::value progress_token,
                                      std::function<void()> hand_reader_over) {
    request.options.services = std::make_shared<ClientCallServices>(
        *this, entry.plugin->manifest(), call_key, std::move(progress_token), std::move(hand_reader_over));
}

}  // namespace skillhost::mcp
