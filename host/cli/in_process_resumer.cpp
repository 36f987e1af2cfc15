#include "cli/in_process_resumer.hpp"

#include "cli/output.hpp"

#include <iostream>

namespace skillhost::cli {

Result<OperatorRuntime*> InProcessResumer::runtime() {
    if (!runtime_) {
        auto made = make_operator_runtime(ctx_);
        if (!made) return made.error();
        runtime_ = std::move(made.value());
    }
    return &*runtime_;
}

app::RunResumer InProcessResumer::callback() {
    return [this](const std::string& run_id) {
        app::RunResumption resumption{run_id, std::nullopt, {}};
        auto rt = runtime();
        Result<store::Run> run =
            rt ? ((*rt.value()->op).*resume_)(run_id, nullptr, nullptr) : Result<store::Run>(rt.error());
        if (!run) {
            resumption.error = run.error();
            return resumption;
        }
        resumption.details = run->to_json();
        resumed_ = std::move(run.value());
        return resumption;
    };
}

app::WaitingRun InProcessResumer::waiting_run() {
    return app::WaitingRun{[this](const std::string& run_id) -> Result<store::Run> {
                               auto rt = runtime();
                               if (!rt) return rt.error();
                               return rt.value()->runs->get(run_id);
                           },
                           callback()};
}

void InProcessResumer::print(const std::optional<app::RunResumption>& run) const {
    if (!run) return;
    if (run->error) {
        std::cout << "\nThe run " << run->run_id << " that asked for this could not resume:\n";
        print_error(*run->error);
    } else if (resumed_) {
        std::cout << "\nResumed run " << run->run_id << ":\n";
        print_run(*resumed_, false);
    }
}

}  // namespace skillhost::cli
