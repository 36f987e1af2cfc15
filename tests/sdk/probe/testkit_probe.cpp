// A plugin for the test kit's own tests: one skill per behaviour the kit must pass through from
// the host's executor (results, defaults, plugin errors with hints, progress, cancellation,
// timeouts, the call context).
#include <skillhost/skill.hpp>

#include <chrono>
#include <thread>

namespace {

using skillhost::Call;
using skillhost::Json;

Json echo(const Call&, const Json& args) {
    return Json::object({{"message", args["message"]}, {"times", args["times"]}});
}

Json fail(const Call&, const Json& args) {
    throw skillhost::SkillError("PROBE_FAILED", "the probe failed on purpose; pass ok=true",
                                Json::object({{"reason", args.string_or("reason", "")}}));
}

Json context(const Call& call, const Json&) {
    return Json::object({{"user_id", call.user_id()},
                         {"cognitive_mode", call.cognitive_mode()},
                         {"data_dir", call.data_dir()},
                         {"workspace_root", call.workspace_root()},
                         {"has_deadline", call.deadline().has_value()}});
}

// Reports progress and polls for cancellation until the host asks it to stop.
Json wait(const Call& call, const Json& args) {
    const std::int64_t max_ms = args.int_or("max_ms", 10000);
    for (std::int64_t waited = 0; waited < max_ms; waited += 5) {
        call.progress(static_cast<double>(waited), static_cast<double>(max_ms), "waiting");
        if (call.cancelled()) throw skillhost::Cancelled{};
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return Json::object({{"waited_ms", max_ms}});
}

// Sleeps without polling for cancellation, like a skill stuck in a blocking call: only the
// executor's own deadline can end the call on time.
Json sleep(const Call&, const Json& args) {
    std::this_thread::sleep_for(std::chrono::milliseconds(args.int_or("ms", 1500)));
    return Json::object({{"slept_ms", args["ms"]}});
}

}  // namespace

SKILLHOST_PLUGIN("testkit_probe", "0.4.2", SKILLHOST_SKILL("echo", echo), SKILLHOST_SKILL("fail", fail),
                 SKILLHOST_SKILL("context", context), SKILLHOST_SKILL("wait", wait), SKILLHOST_SKILL("sleep", sleep))
