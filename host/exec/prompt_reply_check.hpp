// Checks what a plugin's "skillhost.prompts/1" functions answered before anything of it reaches a
// client: the shape skill_prompts.h promises and the host's limits. Keeps only the members MCP
// defines (plus an argument's "enum", which the host uses for completion and never shows).
#pragma once

#include "base/error.hpp"

#include <skillhost/skill_prompts.h>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstddef>
#include <string_view>

namespace skillhost::exec {

inline constexpr std::size_t kMaxPromptsPerPlugin = SKILLHOST_PROMPTS_MAX_PROMPTS;
inline constexpr std::size_t kMaxPromptArguments = SKILLHOST_PROMPTS_MAX_ARGUMENTS;
inline constexpr std::size_t kMaxPromptMessages = SKILLHOST_PROMPTS_MAX_MESSAGES;
inline constexpr std::size_t kMaxPromptNameBytes = SKILLHOST_PROMPTS_MAX_NAME_BYTES;
inline constexpr std::size_t kMaxPromptAnswerBytes = SKILLHOST_PROMPTS_MAX_ANSWER_BYTES;
inline constexpr std::size_t kMaxCompletionValues = SKILLHOST_COMPLETION_MAX_VALUES;
inline constexpr std::size_t kMaxCompletionValueBytes = SKILLHOST_COMPLETION_MAX_VALUE_BYTES;
// Titles and descriptions of prompts and arguments.
inline constexpr std::size_t kMaxPromptTextBytes = 16 * 1024;

// Which plugin answered and which function ("list()", "get()", "complete()").
struct PromptReplySource {
    std::string_view plugin;
    std::string_view function;
};

// {"prompts":[...]} → the prompts (names unique), or PLUGIN_INVALID_RESULT naming the member at fault.
Result<boost::json::array> check_prompt_list(const PromptReplySource& source, std::string_view reply_json);
// {"description"?,"messages":[...]} → that object, each message's content a valid content item.
Result<boost::json::object> check_prompt_messages(const PromptReplySource& source, std::string_view reply_json);
// {"values":[...],"total"?,"hasMore"?} → that object.
Result<boost::json::object> check_completion(const PromptReplySource& source, std::string_view reply_json);

}  // namespace skillhost::exec
