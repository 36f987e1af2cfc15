#include "llm/chat_types.hpp"

#include <algorithm>

namespace skillhost::llm {

bool is_known_role(std::string_view role) {
    return std::find(kRoles.begin(), kRoles.end(), role) != kRoles.end();
}

bool is_known_mode(std::string_view mode) {
    return std::find(kModes.begin(), kModes.end(), mode) != kModes.end();
}

int estimate_tokens(std::string_view text) {
    return static_cast<int>((text.size() + 3) / 4);
}

int estimate_prompt_tokens(const ChatRequest& request) {
    int total = 0;
    for (const auto& message : request.messages) {
        total += estimate_tokens(message.content);
    }
    return total;
}

}  // namespace skillhost::llm
