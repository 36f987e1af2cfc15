// Sends each request to the model its role (and cognitive mode) is assigned in models.yaml.
// The operator and the plugins' completion service talk to models only through this.
#pragma once

#include "llm/chat_backend.hpp"
#include "llm/llm_call_observer.hpp"
#include "llm/model_config.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace skillhost::llm {

// Which model serves a role, and why.
struct RoleResolution {
    std::string role;
    std::string mode;
    std::string model_name;
    // "single_model", "mode" (modes.M.roles), "role" (roles), "mode_fallback", "fallback"
    std::string source;
    ModelSpec spec;
};

class ModelRouter {
public:
    explicit ModelRouter(ModelsConfig config, std::shared_ptr<LlmCallObserver> observer = nullptr);

    // Reads models.yaml (the defaults when the file does not exist). Errors: MODELS_CONFIG_INVALID
    // with file:line:column, MODELS_CONFIG_UNREADABLE.
    static Result<std::shared_ptr<ModelRouter>> load(const std::filesystem::path& models_yaml,
                                                     std::shared_ptr<LlmCallObserver> observer = nullptr);

    // LLM_NO_MODEL when neither the role nor `fallback` has a model (and for unknown roles).
    Result<RoleResolution> resolve(std::string_view role, std::string_view mode = {}) const;

    // Resolves the model for request.role / request.cognitive_mode, calls its backend and reports
    // the call to the observer. Backends are created on first use and reused.
    Result<ChatResponse> chat(const ChatRequest& request, const std::atomic<bool>* cancel = nullptr,
                              const StreamDeltaHandler& on_delta = {});

    // Every role's resolution for `mode` (what `skillhost models list` prints); roles without a
    // model appear with an empty model_name.
    std::vector<RoleResolution> describe(std::string_view mode = {}) const;

    // Serves the model `model_name` with this backend instead of the one its config describes
    // (tests and demos: a ScriptedBackend built in code). The model must exist in the config.
    Status set_backend(const std::string& model_name, std::shared_ptr<ChatBackend> backend);

    const ModelsConfig& config() const { return config_; }

private:
    Result<std::shared_ptr<ChatBackend>> backend_for(const ModelSpec& spec);

    ModelsConfig config_;
    std::shared_ptr<LlmCallObserver> observer_;
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<ChatBackend>> backends_;
    mutable std::set<std::string> fallback_logged_;
};

}  // namespace skillhost::llm
