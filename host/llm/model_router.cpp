#include "llm/model_router.hpp"
#include "llm/error_codes.hpp"

#include "llm/ollama_backend.hpp"
#include "llm/openai_backend.hpp"
#include "llm/scripted_backend.hpp"

#include <boost/json/parse.hpp>
#include <algorithm>
#include <spdlog/spdlog.h>

namespace skillhost::llm {
namespace {

using Clock = std::chrono::steady_clock;

const std::string* find_role(const std::map<std::string, std::string>& roles, std::string_view role) {
    const auto it = roles.find(std::string(role));
    return it == roles.end() ? nullptr : &it->second;
}

}  // namespace

ModelRouter::ModelRouter(ModelsConfig config, std::shared_ptr<LlmCallObserver> observer, ChatBackendFactories factories)
    : config_(std::move(config)), observer_(std::move(observer)), factories_(std::move(factories)) {
    if (!observer_) observer_ = std::make_shared<NoopLlmCallObserver>();
}

Result<std::shared_ptr<ModelRouter>> ModelRouter::load(const std::filesystem::path& models_yaml,
                                                       std::shared_ptr<LlmCallObserver> observer,
                                                       ChatBackendFactories factories) {
    auto config = load_models_config(models_yaml);
    if (!config) return config.error();
    return std::make_shared<ModelRouter>(std::move(*config), std::move(observer), std::move(factories));
}

Result<RoleResolution> ModelRouter::resolve(std::string_view role, std::string_view mode) const {
    if (!is_known_role(role)) {
        Error error{errors::kLlmNoModel,
                    "'" + std::string(role) +
                        "' is not a model role — use orchestrator, persona, classifier, critic, summarizer or fallback",
                    {},
                    {}};
        error.details["role"] = std::string(role);
        return error;
    }
    RoleResolution resolution;
    resolution.role = std::string(role);
    resolution.mode = std::string(mode);
    const std::map<std::string, std::string>* mode_roles = nullptr;
    if (const auto it = config_.mode_roles.find(std::string(mode)); it != config_.mode_roles.end()) {
        mode_roles = &it->second;
    }
    if (config_.single_model) {
        resolution.model_name = *config_.single_model;
        resolution.source = "single_model";
    } else if (const std::string* name = mode_roles ? find_role(*mode_roles, role) : nullptr) {
        resolution.model_name = *name;
        resolution.source = "mode";
    } else if (const std::string* by_role = find_role(config_.roles, role)) {
        resolution.model_name = *by_role;
        resolution.source = "role";
    } else if (const std::string* mode_fallback = mode_roles ? find_role(*mode_roles, "fallback") : nullptr) {
        resolution.model_name = *mode_fallback;
        resolution.source = "mode_fallback";
    } else if (const std::string* fallback = find_role(config_.roles, "fallback")) {
        resolution.model_name = *fallback;
        resolution.source = "fallback";
    } else {
        Error error{errors::kLlmNoModel,
                    "role " + std::string(role) + " has no model and no fallback is set in " + config_.source +
                        " — add `roles: {" + std::string(role) + ": MODEL}` or `roles: {fallback: MODEL}`",
                    {},
                    {}};
        error.details["role"] = std::string(role);
        error.details["mode"] = std::string(mode);
        error.details["config"] = config_.source;
        return error;
    }
    if (resolution.source == "fallback" || resolution.source == "mode_fallback") {
        std::lock_guard lock(mutex_);
        if (fallback_logged_.insert(resolution.role + "/" + resolution.mode).second) {
            spdlog::info("role {} has no model; using fallback '{}'", resolution.role, resolution.model_name);
        }
    }
    resolution.spec = config_.models.at(resolution.model_name);
    return resolution;
}

std::vector<RoleResolution> ModelRouter::describe(std::string_view mode) const {
    std::vector<RoleResolution> all;
    for (auto role : kRoles) {
        auto resolution = resolve(role, mode);
        if (resolution) {
            all.push_back(std::move(*resolution));
        } else {
            RoleResolution missing;
            missing.role = std::string(role);
            missing.mode = std::string(mode);
            all.push_back(std::move(missing));
        }
    }
    return all;
}

Status ModelRouter::set_backend(const std::string& model_name, std::shared_ptr<ChatBackend> backend) {
    if (!config_.models.contains(model_name)) {
        return Error{errors::kLlmNoModel, "model '" + model_name + "' is not defined in " + config_.source, {}, {}};
    }
    std::lock_guard lock(mutex_);
    backends_[model_name] = std::move(backend);
    return {};
}

Result<std::shared_ptr<ChatBackend>> ModelRouter::backend_for(const ModelSpec& spec) {
    std::lock_guard lock(mutex_);
    if (const auto it = backends_.find(spec.name); it != backends_.end()) return it->second;
    std::shared_ptr<ChatBackend> backend;
    if (spec.backend == "ollama") {
        backend = std::make_shared<OllamaBackend>(spec);
    } else if (spec.backend == "openai") {
        backend = std::make_shared<OpenAiBackend>(spec);
    } else if (spec.backend == "scripted") {
        auto loaded = ScriptedBackend::load(spec.script);
        if (!loaded) return loaded.error();
        backend = std::move(*loaded);
    } else if (const auto factory = factories_.find(spec.backend); factory != factories_.end()) {
        auto made = factory->second(spec);
        if (!made) return made.error();
        backend = std::move(*made);
    } else {
        Error error{errors::kLlmUnavailable,
                    "model '" + spec.name + "' uses the " + spec.backend +
                        " backend, which this host was assembled without — assign the role another model in " +
                        config_.source,
                    {},
                    {}};
        error.details["backend"] = spec.backend;
        return error;
    }
    backends_[spec.name] = backend;
    return backend;
}

Result<ChatBackendTraits> ModelRouter::traits(std::string_view role, std::string_view mode) {
    auto resolution = resolve(role, mode);
    if (!resolution) return resolution.error();
    auto backend = backend_for(resolution->spec);
    return backend ? (*backend)->traits() : ChatBackendTraits{};
}

std::vector<std::string> ModelRouter::answer_attributions() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [name, backend] : backends_) {
        if (!backend) continue;
        const auto attribution = backend->traits().answer_attribution;
        if (!attribution.empty() && std::find(out.begin(), out.end(), attribution) == out.end()) {
            out.emplace_back(attribution);
        }
    }
    return out;
}

Result<ChatResponse> ModelRouter::chat(const ChatRequest& request, const std::atomic<bool>* cancel,
                                       const StreamDeltaHandler& on_delta) {
    const auto started = Clock::now();
    LlmCallRecord record;
    record.role = request.role;
    record.cognitive_mode = request.cognitive_mode;
    record.user_id = request.user_id;
    record.run_id = request.run_id;
    record.streamed = static_cast<bool>(on_delta);
    record.structured_output_requested = request.json_schema.has_value();

    const auto report_failure = [&](const Error& error) {
        record.ok = false;
        record.error_code = error.code;
        record.latency = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
        record.prompt_tokens = estimate_prompt_tokens(request);
        record.tokens_estimated = true;
        observer_->on_llm_call(record);
    };

    auto resolution = resolve(request.role, request.cognitive_mode);
    if (!resolution) {
        report_failure(resolution.error());
        return resolution.error();
    }
    record.model_name = resolution->model_name;
    record.backend = resolution->spec.backend;
    record.model = resolution->spec.model;
    auto backend = backend_for(resolution->spec);
    if (!backend) {
        Error error = backend.error();
        error.details["role"] = request.role;
        error.details["model_name"] = resolution->model_name;
        report_failure(error);
        return error;
    }
    auto response = (*backend)->chat(request, cancel, on_delta);
    if (!response) {
        Error error = response.error();
        error.details["role"] = request.role;
        error.details["model_name"] = resolution->model_name;
        report_failure(error);
        return error;
    }
    if (response->latency.count() == 0) {
        response->latency = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
    }
    record.model = response->model;
    record.backend = response->backend;
    record.latency = response->latency;
    record.prompt_tokens = response->prompt_tokens;
    record.completion_tokens = response->completion_tokens;
    record.tokens_estimated = response->tokens_estimated;
    if (request.json_schema) {
        boost::system::error_code ec;
        const auto parsed = boost::json::parse(response->content, ec);
        record.structured_output_parse_failed = ec || !parsed.is_object();
    }
    observer_->on_llm_call(record);
    return response;
}

}  // namespace skillhost::llm
