// One operator run as it is persisted: the goal, who asked, the structured scratchpad, what it cost
// and how it ended. A run paused for approval or guidance is resumed from this record alone.
#pragma once

#include "base/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::store {

// interrupted: the process driving it died (found at the next start); resumable from the last
// persisted step with `runs resume`. awaiting_input: a skill asked its user a question
// (elicitation_id); answering it runs the step again and resumes the run.
enum class RunStatus {
    running,
    completed,
    awaiting_approval,
    needs_guidance,
    failed,
    cancelled,
    interrupted,
    awaiting_input
};
const char* to_string(RunStatus);
std::optional<RunStatus> parse_run_status(std::string_view);

// narrative: sentences for the planner; structured: bullets/tables from the output schema;
// verbatim: the raw payload pretty-printed.
enum class ObservationMode { narrative, structured, verbatim };
const char* to_string(ObservationMode);
std::optional<ObservationMode> parse_observation_mode(std::string_view);

struct ObservationError {
    std::string code;
    std::string message;
    std::vector<std::string> suggestions;
};

struct Observation {
    ObservationMode mode = ObservationMode::narrative;
    std::string content;     // what the planner reads
    boost::json::value raw;  // the skill's output (or error object), always kept
    bool success = false;
    std::optional<ObservationError> error;
};

struct Action {
    std::string tool;
    boost::json::object args;
};

struct ScratchpadEntry {
    int step = 0;
    std::string thought;
    std::optional<Action> action;  // absent for a respond step
    std::optional<Observation> observation;
    std::vector<std::string> warnings;  // loop guard, auto-fix notes
    std::int64_t started_ms = 0;        // unix ms
    std::int64_t duration_us = 0;
};

struct TokenUsage {
    std::int64_t prompt = 0;
    std::int64_t completion = 0;
    int calls = 0;
};

struct GroundingResult {
    bool checked = false;
    bool passed = true;                              // the answer the user got is the model's, and it was supported
    std::vector<std::string> offending;              // items of the first answer not found in any observation
    std::vector<std::string> regenerated_offending;  // the same for the one regenerated answer
    std::string outcome;  // passed | passed_after_regeneration | withheld (empty: not checked)
};

struct Run {
    std::string id;  // "run-" + 16 hex digits
    std::string goal;
    std::string user_id;
    std::string mode;  // dual | agent | emulation
    // The credential the run was started with (auth::Credential as text), so its calls after a
    // resume are still requested by that token; both empty: the user at the terminal.
    std::string token_id;
    std::string token_scopes;  // "call,approve"
    RunStatus status = RunStatus::running;
    std::vector<ScratchpadEntry> steps;
    std::vector<std::string> history;  // earlier conversation turns and user guidance, in order
    std::int64_t created_ms = 0;
    std::int64_t updated_ms = 0;
    std::int64_t finished_ms = 0;
    std::map<std::string, TokenUsage> tokens;  // by model role
    std::string answer;
    std::string response_style;  // default | strict | summary | verbatim
    bool verbatim = false;
    GroundingResult grounding;
    std::optional<Error> error;  // failed / needs_guidance: what went wrong (type stuck, ...)
    std::string approval_id;     // while awaiting_approval
    std::string elicitation_id;  // while awaiting_input
    int attempt = 1;
    std::size_t attempt_first_step = 0;       // index in steps where the current attempt began
    std::string route;                        // react | factual | temporal | task | casual | refused
    std::vector<std::string> playbooks_used;  // playbook ids put into the prompt
    std::string guidance_id;                  // the guidance this run was last resumed with
    // The version of each plugin whose skill a step called (plugin name -> version): a run is
    // resumed only by an instance that has exactly these loaded (check_plugin_versions).
    std::map<std::string, std::string> plugin_versions;

    boost::json::object to_json() const;
    static Result<Run> from_json(const boost::json::value& json);
};

std::int64_t unix_ms_now();
std::string new_id(std::string_view prefix);  // prefix + "-" + 16 random hex digits

}  // namespace skillhost::store
