// A run that waited on an approval or on its user's answer resumes in the CLI's own process, with
// the real outcome (the result, the rejection, the step run again with the answer), so it continues
// without a separate `runs resume`. The resumed run is kept for printing after the resolution.
#pragma once

#include "app/approval_actions.hpp"
#include "app/elicitation_actions.hpp"
#include "cli/operator_commands.hpp"

#include <optional>
#include <string>

namespace skillhost::cli {

class InProcessResumer {
public:
    // How the operator continues the run: resume_after_approval or resume_after_input.
    using Resume = Result<store::Run> (op::Operator::*)(std::string_view, op::RunEventSubscriber*,
                                                        std::shared_ptr<std::atomic<bool>>);

    InProcessResumer(CliContext& ctx, Resume resume) : ctx_(ctx), resume_(resume) {}

    app::RunResumer callback();
    // The run as the store has it (for answers to questions a run asked).
    app::WaitingRun waiting_run();
    // What became of the run, after the resolution itself was printed.
    void print(const std::optional<app::RunResumption>& run) const;

private:
    Result<OperatorRuntime*> runtime();

    CliContext& ctx_;
    Resume resume_;
    std::optional<OperatorRuntime> runtime_;
    std::optional<store::Run> resumed_;
};

}  // namespace skillhost::cli
