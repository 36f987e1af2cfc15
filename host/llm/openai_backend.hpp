// Any OpenAI-compatible chat server (OpenAI, llama.cpp server, vLLM, LM Studio):
// POST {base_url}/v1/chat/completions, server-sent events when streaming.
#pragma once

#include "llm/chat_backend.hpp"
#include "llm/model_config.hpp"

namespace skillhost::llm {

class OpenAiBackend final : public ChatBackend {
public:
    explicit OpenAiBackend(ModelSpec spec);

    Result<ChatResponse> chat(const ChatRequest& request, const std::atomic<bool>* cancel,
                              const StreamDeltaHandler& on_delta) override;
    std::string_view kind() const override { return "openai"; }

    std::string request_body(const ChatRequest& request, bool stream) const;
    // base_url may or may not end in /v1 (both spellings are common in other tools' configs).
    std::string endpoint() const;

private:
    ModelSpec spec_;
};

}  // namespace skillhost::llm
