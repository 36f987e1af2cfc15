// The embedded default model: no language model at all. It reads the request's structured
// `context` (plan / classify / answer / probe) and answers by rules, deterministically, so the
// operator works offline out of the box. Free-text answers carry kBuiltinMarker, which it declares
// as its answer attribution. The rest of the host makes it through builtin_backend_factory.hpp.
#pragma once

#include "llm/chat_backend.hpp"

namespace skillhost::offline_model {

class BuiltinBackend final : public llm::ChatBackend {
public:
    Result<llm::ChatResponse> chat(const llm::ChatRequest& request, const std::atomic<bool>* cancel,
                                   const llm::StreamDeltaHandler& on_delta) override;
    std::string_view kind() const override { return "builtin"; }
    llm::ChatBackendTraits traits() const override;
};

}  // namespace skillhost::offline_model
