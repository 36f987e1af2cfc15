// One way of getting a chat completion: a remote server, a script, or the built-in rules.
#pragma once

#include "base/error.hpp"
#include "llm/chat_types.hpp"

#include <atomic>
#include <functional>
#include <string_view>

namespace skillhost::llm {

// Receives each piece of generated text as it streams in. When a caller passes one, the backend
// streams; the final ChatResponse still carries the whole content.
using StreamDeltaHandler = std::function<void(std::string_view delta)>;

class ChatBackend {
public:
    virtual ~ChatBackend() = default;

    // Blocking. `cancel` (may be null) is polled while waiting; once it is true the call returns
    // LLM_CANCELLED promptly. Errors use the LLM_* codes of llm_errors.hpp.
    virtual Result<ChatResponse> chat(const ChatRequest& request, const std::atomic<bool>* cancel,
                                      const StreamDeltaHandler& on_delta) = 0;

    // "ollama", "openai", "scripted" or "builtin".
    virtual std::string_view kind() const = 0;
};

}  // namespace skillhost::llm
