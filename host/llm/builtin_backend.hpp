// The embedded default model: no language model at all. It reads the request's structured
// `context` (plan / classify / answer / probe) and answers by rules, deterministically, so the
// operator works offline out of the box. Free-text answers carry kBuiltinMarker.
#pragma once

#include "llm/chat_backend.hpp"

namespace skillhost::llm {

class BuiltinBackend final : public ChatBackend {
public:
    Result<ChatResponse> chat(const ChatRequest& request, const std::atomic<bool>* cancel,
                              const StreamDeltaHandler& on_delta) override;
    std::string_view kind() const override { return "builtin"; }
};

}  // namespace skillhost::llm
