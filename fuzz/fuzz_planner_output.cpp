// libFuzzer target: what a model answers the planner (any text: JSON, JSON in prose or fences,
// garbage). Parsing must end in a plan or an Error.
#include "operator/planner_output.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)skillhost::op::extract_json_object(text);
    auto plan = skillhost::op::parse_planner_output(text);
    if (!plan) (void)plan.error().to_json();
    return 0;
}
