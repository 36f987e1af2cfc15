// `skillhost models test ROLE`: a tiny request to the role's model that shows whether it answers,
// how fast, and whether structured (JSON Schema) output works.
#pragma once

#include "llm/model_router.hpp"

#include <optional>

namespace skillhost::llm {

struct RoleTestResult {
    std::string role;
    std::string mode;
    std::string model_name;  // key in models.yaml
    std::string backend;
    std::string model;
    std::chrono::milliseconds latency{0};
    bool ok = false;                    // the model answered
    bool structured_output_ok = false;  // and the answer was the JSON object asked for
    std::string content;                // what it answered (for display)
    std::optional<Error> error;
};

RoleTestResult test_role(ModelRouter& router, std::string_view role, std::string_view mode = {},
                         const std::atomic<bool>* cancel = nullptr);

}  // namespace skillhost::llm
