#include "exec/error_suggestions.hpp"

#include "exec/error_codes.hpp"
#include "llm/error_codes.hpp"
#include "plugin/error_codes.hpp"
#include "policy/error_codes.hpp"

#include <string_view>
#include <unordered_map>

namespace skillhost::exec {
namespace {

// Host codes by their constant; a plugin's own codes (FILE_NOT_FOUND, ...) as it spells them.
using Table = std::unordered_map<std::string_view, std::vector<std::string>>;

const Table& table() {
    static const Table hints = {
        {errors::kInvalidArgs.name,
         {"Check details.problems and call again with only the fields in details.accepted_fields, using the "
          "types and values the skill's input schema allows."}},
        {errors::kSkillNotFound.name,
         {"Use one of the skill ids in the catalog (`skillhost skills list`); check details.similar for close "
          "matches."}},
        {errors::kTimeout.name,
         {"Ask for less at once (a narrower path, fewer items, a smaller range), or call again with a larger "
          "timeout if the work really needs it."}},
        {errors::kCancelled.name, {"The call was cancelled on request; call again if the result is still needed."}},
        {errors::kPluginInvalidResult.name,
         {"The plugin broke its contract (its result is not valid JSON); report this to the plugin author "
          "with the call id."}},
        {errors::kPluginNoResult.name,
         {"The plugin returned without a result; report this to the plugin author with the call id."}},
        {errors::kPluginErrorUnspecified.name,
         {"The plugin failed without saying why; report this to the plugin author with the call id."}},
        {errors::kPluginException.name,
         {"The skill crashed with an exception; try different arguments, and report this to the plugin "
          "author with the call id."}},
        {"FILE_NOT_FOUND", {"Check the path: list the directory with fs_list or look for the file with fs_search."}},
        {errors::kPathNotAllowed.name,
         {"Stay inside the workspace: use a path relative to the workspace root (see fs_list)."}},
        {errors::kTrustTooLow.name,
         {"This skill needs a higher trust level than the user has; ask the user to raise it or choose a "
          "skill that needs less trust."}},
        {errors::kApprovalRequired.name,
         {"Wait for the user to approve the pending call, or choose a read-only skill."}},
        {errors::kPolicyDenied.name,
         {"A policy rule forbids this call; choose another skill or other arguments, or ask the user."}},
        {errors::kModeNotAllowed.name,
         {"The user's cognitive mode does not allow this skill (e.g. emulation allows read-only skills only)."}},
        {errors::kLlmUnavailable.name,
         {"No model is configured for this role; configure one in models.yaml or skip this step."}},
        {errors::kInvalidUserId.name,
         {"Use a user id as users.yaml defines them: 1-64 of a-z 0-9 . _ -, starting with a letter or digit."}},
        {errors::kExecutorUnavailable.name,
         {"The host could not start the call (out of threads or memory); wait a moment and call again."}},
    };
    return hints;
}

}  // namespace

const std::vector<std::string>& generic_suggestions(std::string_view code) {
    static const std::vector<std::string> none;
    const auto& hints = table();
    auto it = hints.find(code);
    return it == hints.end() ? none : it->second;
}

}  // namespace skillhost::exec
