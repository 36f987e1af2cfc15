// How a plugin's LLM completion request (host services `complete`) reaches the model layer.
// The plugin subsystem sits below the LLM layer, so it depends only on this interface; the LLM
// layer provides the implementation. Without one, completions answer UNAVAILABLE.
#pragma once

#include "base/error.hpp"

#include <string>
#include <string_view>

namespace skillhost::plugin {

// Who a completion is for, as the host knows it (never as the plugin says): the calling user, and
// the operator run that asked for the skill call ("" for a direct call). Both go on the llm_call
// audit record.
struct CompletionOrigin {
    std::string_view user_id;
    std::string_view run_id;
};

class CompletionService {
public:
    virtual ~CompletionService() = default;
    // request_json is the ABI's completion request; on success returns the ABI's response JSON
    // ({"content","model","backend"}). Errors carry a code (e.g. LLM_UNAVAILABLE) and message.
    virtual Result<std::string> complete(const CompletionOrigin& origin, std::string_view role,
                                         std::string_view request_json) = 0;
};

}  // namespace skillhost::plugin
