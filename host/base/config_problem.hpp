// One problem found in users.yaml or policy.yaml, located by file:line:column.
#pragma once

#include "base/error.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace YAML {
class Node;
}

namespace skillhost {

struct ConfigProblem {
    std::string file;
    int line = 0;         // 1-based; 0 when unknown
    int column = 0;       // 1-based
    std::string field;    // dotted path, e.g. "users[1].trust"
    std::string message;  // what is wrong and what was expected

    // "file:line:column: field: message"
    std::string to_string() const;
};

// A problem located at `node` (yaml-cpp marks are 0-based; ours are 1-based).
ConfigProblem problem_at(const std::string& file, const YAML::Node& node, std::string field, std::string message);

// The Error for a file with problems: `code`, the first problem plus `what_to_do` as the message,
// every problem under details.problems.
Error config_error(const ErrorCode& code, const std::vector<ConfigProblem>& problems, std::string_view what_to_do);

}  // namespace skillhost
