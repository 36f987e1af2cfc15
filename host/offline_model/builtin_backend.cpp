#include "offline_model/builtin_backend.hpp"

#include "llm/error_codes.hpp"

#include "offline_model/builtin_backend_factory.hpp"

#include "offline_model/builtin_answer.hpp"
#include "language/intent_rules.hpp"
#include "offline_model/builtin_critic.hpp"
#include "offline_model/builtin_planner.hpp"

#include <boost/json.hpp>

namespace skillhost::offline_model {
namespace {

namespace json = boost::json;
using llm::ChatRequest;
using llm::ChatResponse;

std::string last_user_message(const ChatRequest& request) {
    for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it) {
        if (it->role == "user") return it->content;
    }
    return request.messages.empty() ? std::string() : request.messages.back().content;
}

std::string context_string(const json::object& context, std::string_view key) {
    const auto* value = context.if_contains(key);
    return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

}  // namespace

Result<ChatResponse> BuiltinBackend::chat(const ChatRequest& request, const std::atomic<bool>* cancel,
                                          const llm::StreamDeltaHandler& on_delta) {
    const auto started = std::chrono::steady_clock::now();
    if (cancel && cancel->load()) {
        return Error{errors::kLlmCancelled, "the request to the built-in model was cancelled", {}, {}};
    }
    std::string task = context_string(request.context, "task");
    if (task.empty()) {
        // Without a context (a plugin's completion request, say), the role says what is wanted.
        task = request.role == "classifier"     ? "classify"
               : request.role == "orchestrator" ? "plan"
               : request.role == "critic"       ? "critic"
                                                : "chat";
    }

    std::string content;
    if (task == "plan") {
        json::object context = request.context;
        if (!context.contains("goal")) context["goal"] = last_user_message(request);
        content = json::serialize(plan_next_step(context));
    } else if (task == "classify") {
        std::string message = context_string(request.context, "message");
        if (message.empty()) message = last_user_message(request);
        content = json::serialize(language::classify_intent(message));
    } else if (task == "answer") {
        content = render_answer(request.context);
    } else if (task == "critic") {
        content = json::serialize(critique(last_user_message(request)));
    } else if (task == "probe") {
        // `models test`: show that structured output works end to end.
        content = request.json_schema ? R"({"ok":true})" : "ok";
    } else if (task == "chat") {
        content = casual_reply(last_user_message(request));
    } else {
        Error error{errors::kLlmBadRequest,
                    "the built-in model does not know the task '" + task +
                        "' — use plan, classify, answer, critic, probe or chat in the request context",
                    {},
                    {}};
        error.details["task"] = task;
        return error;
    }
    if (on_delta) on_delta(content);

    ChatResponse response;
    response.content = std::move(content);
    response.model = "builtin";
    response.backend = "builtin";
    response.prompt_tokens = llm::estimate_prompt_tokens(request);
    response.completion_tokens = llm::estimate_tokens(response.content);
    response.tokens_estimated = true;
    response.latency =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    return response;
}

llm::ChatBackendTraits BuiltinBackend::traits() const {
    return {.reads_context = true, .answer_attribution = kBuiltinMarker};
}

Result<std::shared_ptr<llm::ChatBackend>> make_builtin_backend(const llm::ModelSpec&) {
    return std::shared_ptr<llm::ChatBackend>(std::make_shared<BuiltinBackend>());
}

}  // namespace skillhost::offline_model
