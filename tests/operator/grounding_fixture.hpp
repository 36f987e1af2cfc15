// The data the grounding suites answer from: the demo home of `skillhost demo seed` (tasks,
// memories, workspace files), with fixed dates so the answers can name them.
#pragma once

#include "operator/operator_host.hpp"

#include <string>

namespace skillhost::testing {

// Seeds host with the demo tasks (due 25 Nov - 3 Dec 2026), memories (16-24 Nov 2026, UTC) and
// files (modified 19 Nov 2026).
void seed_demo_data(OperatorHost& host);

// The plan that reads each kind of data: "tasks", "memories", or a workspace file path.
std::string read_action(const std::string& data);

// A goal for that data that is not a plain retrieval (so the answer model writes the answer).
std::string goal_for(const std::string& data);

}  // namespace skillhost::testing
