// The offline model as the rest of the host sees it: a chat backend, made for the models whose
// backend is `builtin`. Whoever assembles the host hands this factory to the model router.
#pragma once

#include "llm/model_router.hpp"

#include <string_view>

namespace skillhost::offline_model {

// The model kind (models.yaml `backend:`) the offline model serves.
inline constexpr std::string_view kBackendKind = "builtin";

Result<std::shared_ptr<llm::ChatBackend>> make_builtin_backend(const llm::ModelSpec& spec);

}  // namespace skillhost::offline_model
