// Serves the plugins' host-services completion (skill_abi.h `complete`) from the model router,
// so a plugin asking for the "persona" role gets the persona model.
#pragma once

#include "llm/model_router.hpp"
#include "plugin/completion_service.hpp"

#include <memory>

namespace skillhost::app {

class RouterCompletionService final : public plugin::CompletionService {
public:
    explicit RouterCompletionService(std::shared_ptr<llm::ModelRouter> router);

    // request_json: the ABI's {"messages", "temperature"?, "max_tokens"?, "json_schema"?}, plus two
    // optional host extensions: "cognitive_mode" (string) and "context" (object, see llm::ChatRequest).
    // Errors: LLM_BAD_REQUEST for a malformed request, LLM_UNAVAILABLE when no model serves the role
    // (the plugin layer turns that into SKILLHOST_STATUS_UNAVAILABLE), otherwise the router's error.
    Result<std::string> complete(const plugin::CompletionOrigin& origin, std::string_view role,
                                 std::string_view request_json) override;

private:
    std::shared_ptr<llm::ModelRouter> router_;
};

// Parses the ABI completion request into a llm::ChatRequest for `role` (exposed for tests).
Result<llm::ChatRequest> chat_request_from_abi(std::string_view role, std::string_view request_json);

}  // namespace skillhost::app
