// Ollama's native chat API (POST /api/chat), streaming as NDJSON or not.
#pragma once

#include "llm/chat_backend.hpp"
#include "llm/model_config.hpp"

namespace skillhost::llm {

class OllamaBackend final : public ChatBackend {
public:
    explicit OllamaBackend(ModelSpec spec);

    Result<ChatResponse> chat(const ChatRequest& request, const std::atomic<bool>* cancel,
                              const StreamDeltaHandler& on_delta) override;
    std::string_view kind() const override { return "ollama"; }

    // The JSON body sent for `request` (exposed so tests and --debug can show it).
    std::string request_body(const ChatRequest& request, bool stream) const;

private:
    ModelSpec spec_;
};

}  // namespace skillhost::llm
