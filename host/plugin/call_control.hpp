// The host side of one in-flight skill call: cancellation flag and progress sink, shared between
// the executor (which may cancel on timeout) and the plugin (which polls it through host services),
// plus what the front end that started the call serves for it (logs, sampling, elicitation) and the
// content items the skill adds.
#pragma once

#include "base/error.hpp"
#include "plugin/call_content.hpp"

#include <skillhost/skill_abi.h>

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

namespace skillhost::plugin {

// A request the front end answers for the running call (sampling, elicitation): the ABI request
// JSON in, the ABI answer JSON or an error out. Blocking; `call_ended` turns true when the call is
// answered or cancelled, and the service must then return soon.
using FrontEndRequest =
    std::function<Result<std::string>(std::string_view request_json, const std::atomic<bool>& call_ended)>;

struct CallControl {
    std::atomic<bool> cancelled{false};
    // Called from the plugin's thread for each progress report; may be empty.
    std::function<void(double progress, double total, std::string_view message)> on_progress;
    // The "skillhost.path_check/1" answer for this call's rules; empty: no rule withholds a path.
    // Called from the plugin's threads, so it owns what it reads.
    std::function<bool(std::string_view path)> path_allowed;
    // log() lines written on the call's thread; may be empty.
    std::function<void(skillhost_log_level level, std::string_view message)> on_log;
    std::atomic<int> forwarded_log_lines{0};  // lines given to on_log (bounded in host_services.cpp)
    // Answers complete() instead of the model router (MCP sampling); empty: the router answers.
    // Takes the role, then as FrontEndRequest.
    std::function<Result<std::string>(std::string_view role, std::string_view request_json,
                                      const std::atomic<bool>& call_ended)>
        sample;
    // Answers "skillhost.elicit/1"; empty: ELICITATION_UNAVAILABLE.
    FrontEndRequest elicit;
    // Answers "skillhost.storage/1" somewhere else (a runner forwards to the host, which knows the
    // call's user); empty: the plugin's own host context answers. Takes the operation and its
    // request as plugin/storage_service.hpp describes them.
    std::function<Result<std::string>(std::string_view operation, std::string_view request_json)> storage;
    // "skillhost.idempotency/1": the same for every attempt of one intent (run:step, approval id);
    // the executor fills it (the call id when the caller gives none).
    std::string idempotency_key;
    // "skillhost.content/1" items.
    CallContent content{SKILLHOST_CONTENT_MAX_ITEMS, SKILLHOST_CONTENT_MAX_BYTES};
    // The operator run that asked for this call ("" otherwise): the run the call's completions are
    // audited under. Set before the call starts, read-only afterwards. Kept after
    // the members above: a plugin scribbling over the start of its host_call handle (the hostile
    // fixture does) then hits flags and empty callbacks, not this string's heap pointer.
    std::string run_id;
};

}  // namespace skillhost::plugin
