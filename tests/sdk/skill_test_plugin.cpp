// A plugin written with skill.hpp's macros, built as its own shared library like an author's
// plugin; skill_boundary_test.cpp loads it with dlopen and drives it through the C ABI exactly as
// the host would.
#include "skill_test_plugin.hpp"

#include <skillhost/skill.hpp>

#include <stdexcept>
#include <string>

namespace {

using skillhost::Call;
using skillhost::Json;

PluginHookCounters counters;

Json echo_context(const Call& call, const Json& args) {
    Json out = Json::object({{"skill_id", call.skill_id()},
                             {"call_id", call.call_id()},
                             {"user_id", call.user_id()},
                             {"cognitive_mode", call.cognitive_mode()},
                             {"data_dir", call.data_dir()},
                             {"workspace_root", call.workspace_root()},
                             {"args", args}});
    auto deadline = call.deadline();
    out["deadline_ms"] =
        deadline ? Json(std::chrono::duration_cast<std::chrono::milliseconds>(deadline->time_since_epoch()).count())
                 : Json();
    return out;
}

Json fail_with_code(const Call&, const Json& args) {
    throw skillhost::SkillError(
        "NOTE_MISSING",
        "no note with id " + std::to_string(args["id"].as_int()) + "; list the notes to find a valid id",
        Json::object({{"id", args["id"]}}));
}

Json fail_with_scalar_details(const Call&, const Json&) {
    throw skillhost::SkillError("ODD_DETAILS", "details given as a plain string", Json("just text"));
}

Json read_integer(const Call&, const Json& args) {
    return Json::object({{"n", args["n"].as_int()}});
}

Json throw_std_exception(const Call&, const Json&) {
    throw std::runtime_error("disk on fire");
}

Json throw_non_exception(const Call&, const Json&) {
    throw 42;
}

Json wait_for_cancel(const Call& call, const Json& args) {
    std::int64_t polls = args.int_or("max_polls", 1000);
    for (std::int64_t i = 0; i < polls; ++i) {
        call.progress(static_cast<double>(i), static_cast<double>(polls), "polling");
        if (call.cancelled()) throw skillhost::Cancelled{};
    }
    return Json::object({{"finished", true}});
}

Json ask_model(const Call& call, const Json& args) {
    Json request =
        Json::object({{"messages", Json::array({Json::object({{"role", "user"}, {"content", args["prompt"]}})})}});
    return Json::object({{"answer", call.complete("summarizer", request)}});
}

Json log_line(const Call& call, const Json& args) {
    call.log(skillhost::LogLevel::warn, args["text"].as_string());
    return Json::object();
}

void on_init(const skillhost_host_services*) {
    ++counters.init_calls;
    if (counters.refuse_init) throw skillhost::SkillError("CONFIG_MISSING", "set the plugin's config first");
}
void on_shutdown() {
    ++counters.shutdown_calls;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) PluginHookCounters* skillhost_test_plugin_hook_counters(void) {
    return &counters;
}

SKILLHOST_PLUGIN_HOOKS(on_init, on_shutdown)

SKILLHOST_PLUGIN("sdk_test_plugin", "2.3.4", SKILLHOST_SKILL("echo_context", echo_context),
                 SKILLHOST_SKILL("fail_with_code", fail_with_code),
                 SKILLHOST_SKILL("fail_with_scalar_details", fail_with_scalar_details),
                 SKILLHOST_SKILL("read_integer", read_integer),
                 SKILLHOST_SKILL("throw_std_exception", throw_std_exception),
                 SKILLHOST_SKILL("throw_non_exception", throw_non_exception),
                 SKILLHOST_SKILL("wait_for_cancel", wait_for_cancel), SKILLHOST_SKILL("ask_model", ask_model),
                 SKILLHOST_SKILL("log_line", log_line))
