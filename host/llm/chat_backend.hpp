// One way of getting a chat completion: a remote server, a script, or the built-in rules.
#pragma once

#include "base/error.hpp"
#include "llm/chat_types.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <string_view>

namespace skillhost::llm {

// Receives each piece of generated text as it streams in. When a caller passes one, the backend
// streams; the final ChatResponse still carries the whole content.
using StreamDeltaHandler = std::function<void(std::string_view delta)>;

// What a backend declares about itself, so a caller adapts to it without knowing which backend it is.
struct ChatBackendTraits {
    // It reads the structured ChatRequest::context instead of the prose of the messages, so a caller
    // fills the context in (remote models ignore it and get the same in prose).
    bool reads_context = false;
    // A line it ends its free-text answers with, saying where the answer came from. It is not a claim
    // about the user's data: checks of an answer leave it out. Empty when there is none.
    std::string_view answer_attribution;
};

class ChatBackend {
public:
    virtual ~ChatBackend() = default;

    // Blocking. `cancel` (may be null) is polled while waiting; once it is true the call returns
    // LLM_CANCELLED promptly. Errors use the LLM_* codes of llm_errors.hpp.
    virtual Result<ChatResponse> chat(const ChatRequest& request, const std::atomic<bool>* cancel,
                                      const StreamDeltaHandler& on_delta) = 0;

    // "ollama", "openai", "scripted" or "builtin".
    virtual std::string_view kind() const = 0;

    virtual ChatBackendTraits traits() const { return {}; }
};

}  // namespace skillhost::llm
