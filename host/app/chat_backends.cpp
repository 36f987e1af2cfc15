#include "app/chat_backends.hpp"

#include "offline_model/builtin_backend_factory.hpp"

namespace skillhost::app {

llm::ChatBackendFactories chat_backend_factories() {
    llm::ChatBackendFactories factories;
    factories.emplace(offline_model::kBackendKind, &offline_model::make_builtin_backend);
    return factories;
}

}  // namespace skillhost::app
