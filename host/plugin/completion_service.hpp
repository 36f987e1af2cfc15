// How a plugin's LLM completion request (host services `complete`) reaches the model layer.
// The plugin subsystem sits below the LLM layer, so it depends only on this interface; the LLM
// layer provides the implementation. Without one, completions answer UNAVAILABLE.
#pragma once

#include "base/error.hpp"

#include <string>
#include <string_view>

namespace skillhost::plugin {

class CompletionService {
public:
    virtual ~CompletionService() = default;
    // request_json is the ABI's completion request; on success returns the ABI's response JSON
    // ({"content","model","backend"}). Errors carry a code (e.g. LLM_UNAVAILABLE) and message.
    virtual Result<std::string> complete(std::string_view user_id, std::string_view role,
                                         std::string_view request_json) = 0;
};

}  // namespace skillhost::plugin
