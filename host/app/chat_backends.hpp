// The chat backends the assembled host gives its model router beyond the model layer's own (ollama,
// openai, scripted): the offline model, for models whose backend is `builtin`.
#pragma once

#include "llm/model_router.hpp"

namespace skillhost::app {

llm::ChatBackendFactories chat_backend_factories();

}  // namespace skillhost::app
