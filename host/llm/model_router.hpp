// Sends each request to the model its role (and cognitive mode) is assigned in models.yaml.
// The operator and the plugins' completion service talk to models only through this.
#pragma once

#include "llm/chat_backend.hpp"
#include "llm/llm_call_observer.hpp"
#include "llm/model_config.hpp"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

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

// Makes the backend of a model whose kind the model layer does not serve itself (ollama, openai and
// scripted it does). Whoever assembles the host hands the router one per kind: app/ gives it the
// offline model's for "builtin", so this layer never links the offline model.
using ChatBackendFactory = std::function<Result<std::shared_ptr<ChatBackend>>(const ModelSpec& spec)>;
using ChatBackendFactories = std::map<std::string, ChatBackendFactory, std::less<>>;

class ModelRouter {
public:
    // A model of a kind with no factory answers LLM_UNAVAILABLE when it is used.
    explicit ModelRouter(ModelsConfig config, std::shared_ptr<LlmCallObserver> observer = nullptr,
                         ChatBackendFactories factories = {});

    // Reads models.yaml (the defaults when the file does not exist). Errors: MODELS_CONFIG_INVALID
    // with file:line:column, MODELS_CONFIG_UNREADABLE.
    static Result<std::shared_ptr<ModelRouter>> load(const std::filesystem::path& models_yaml,
                                                     std::shared_ptr<LlmCallObserver> observer = nullptr,
                                                     ChatBackendFactories factories = {});

    // LLM_NO_MODEL when neither the role nor `fallback` has a model (and for unknown roles).
    Result<RoleResolution> resolve(std::string_view role, std::string_view mode = {}) const;

    // Resolves the model for request.role / request.cognitive_mode, calls its backend and reports
    // the call to the observer. Backends are created on first use and reused.
    Result<ChatResponse> chat(const ChatRequest& request, const std::atomic<bool>* cancel = nullptr,
                              const StreamDeltaHandler& on_delta = {});

    // What the backend serving `role` in `mode` declares about itself (making it if need be); no
    // traits when that backend cannot be made (a call to it fails anyway). Errors: those of resolve().
    Result<ChatBackendTraits> traits(std::string_view role, std::string_view mode = {});

    // The answer attributions of the backends made so far: lines that say where an answer came from,
    // which checks of an answer leave out.
    std::vector<std::string> answer_attributions() const;

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
    ChatBackendFactories factories_;
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<ChatBackend>> backends_;
    mutable std::set<std::string> fallback_logged_;
};

}  // namespace skillhost::llm
