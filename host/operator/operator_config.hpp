// etc/operator.yaml: how the operator plans, observes, answers and retries. Every key is optional;
// a missing file means the defaults below.
#pragma once

#include "base/error.hpp"
#include "store/run_record.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace skillhost::op {

struct OperatorConfig {
    int max_steps = 10;          // planner steps per attempt
    int max_goal_chars = 10000;  // longer goals are refused with GOAL_TOO_LONG before a run starts
    int trim_to_last_n = 5;      // scratchpad steps shown in full; older ones get one line each
    bool verbatim = true;        // single read-only retrievals answer with the tool output itself
    bool grounding = true;       // model answers (every style) are checked against the observations
    bool error_retry = true;     // failed runs are retried with a retry context
    int max_retries = 1;         // extra attempts after the first
    bool critic = false;         // the critic role reviews answers before they are accepted
    store::ObservationMode observation_mode = store::ObservationMode::narrative;
    std::size_t observation_max_chars = 4000;  // longer observation text is cut (raw payload kept)
    std::string default_style = "default";     // response style when the planner names none
    std::filesystem::path dump_dir;            // --debug dumps; empty: <home>/runs
    std::string source = "(defaults)";
};

// OPERATOR_CONFIG_INVALID with file:line:column for every problem (details.problems).
Result<OperatorConfig> parse_operator_config(std::string_view yaml_text, const std::filesystem::path& file);
// The defaults when the file does not exist.
Result<OperatorConfig> load_operator_config(const std::filesystem::path& file);

}  // namespace skillhost::op
