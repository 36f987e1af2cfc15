// One skill call as the plugin side knows it: who asks, for which skill, where its data lives, until
// when, and under which intent. The same value goes from the executor to a plugin loaded in-process
// (it becomes skillhost_call_context) and across a runner's socket to an isolated one (the CALL
// frame encodes it, plugin/runner_protocol.hpp), where the runner's CallServer rebuilds it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace skillhost::plugin {

struct CallControl;

struct Call {
    std::string skill_id;
    std::string call_id;
    std::string user_id = "owner";
    std::string cognitive_mode = "agent";
    std::filesystem::path data_dir;  // created by invoke() before the call if missing
    bool data_dir_ready = false;     // the caller already made data_dir: invoke() skips the syscalls (not sent)
    std::filesystem::path workspace_root;
    std::int64_t deadline_unix_ms = 0;  // 0: none
    // "skillhost.idempotency/1": the same for every attempt of one intent (run:step, approval id);
    // the executor fills it (the call id when the caller gives none). At most
    // SKILLHOST_IDEMPOTENCY_KEY_MAX_BYTES bytes.
    std::string idempotency_key;
    // The operator run that asked for this call ("" otherwise): the run its completions are audited
    // under. Not sent to a runner: the host answers its completions.
    std::string run_id;
    // The caller has path rules for this call ("skillhost.path_check/1" asks them); false: no rule
    // withholds a path, and a runner answers a path check without asking the host. Set from the
    // control's path_allowed when the call is sent to a runner.
    bool has_path_rules = false;
    // A foreign MCP tool's call that was approved: the hash of the definition it was approved against
    // (decisions::ApprovalRecord::definition_hash); the call is refused rather than run against
    // another. Empty: whichever definition is pinned. Not sent to a runner (foreign tools run in the host).
    std::string definition_hash;
    // The call's control block (cancellation, the front end's services, content); may be null (no
    // cancellation, no services). Not sent: each side of a runner's socket has its own.
    CallControl* control = nullptr;
};

}  // namespace skillhost::plugin
