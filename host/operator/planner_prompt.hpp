// The planner's request: rules, the tool catalog, playbooks, the goal, history, retry context and
// the scratchpad trimmed to the last N steps (older steps condensed to one line each), plus the same
// data as a structured context for the builtin backend.
#pragma once

#include "llm/chat_types.hpp"
#include "store/run_record.hpp"

#include <boost/json/array.hpp>

#include <span>
#include <string>
#include <vector>

namespace skillhost::op {

struct PlannerPromptInput {
    const std::string* goal = nullptr;
    const std::string* catalog_text = nullptr;
    const boost::json::array* catalog_tools = nullptr;
    std::span<const store::ScratchpadEntry> steps;  // this attempt's steps
    const std::vector<std::string>* history = nullptr;
    std::string playbooks;              // rendered playbooks, may be empty
    std::string retry_context;          // rendered retry context, may be empty
    std::vector<std::string> warnings;  // loop-guard and progress warnings for this step
    // condensed_step() of each step when the caller already has them (same length as steps); empty:
    // computed here.
    std::span<const std::string> condensed;
    // The structured context only a backend that declares it reads it (the offline model) gets; other
    // backends get the same in prose.
    bool with_builtin_context = true;
    int trim_to_last_n = 5;
    int step_number = 1;
    int max_steps = 10;
    std::string cognitive_mode;
};

llm::ChatRequest build_planner_request(const PlannerPromptInput& input);

// "Step 3: fs_read {"path":"x"} → FILE_NOT_FOUND" — the condensed form of an older step.
std::string condensed_step(const store::ScratchpadEntry& entry);

// Tool + arguments with keys sorted, so equal actions compare equal however the model ordered them.
std::string action_key(const store::Action& action);

}  // namespace skillhost::op
