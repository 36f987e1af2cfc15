#include "operator/run_events.hpp"

#include <array>

namespace skillhost::op {

const char* to_string(RunEventType type) {
    static constexpr std::array<const char*, 8> names = {
        "thought", "action", "observation", "warning", "approval_required", "completion", "error", "input_required"};
    return names[static_cast<std::size_t>(type)];
}

boost::json::object RunEvent::to_json() const {
    return boost::json::object{
        {"type", to_string(type)}, {"run_id", run_id}, {"step", step}, {"text", text}, {"data", data}};
}

}  // namespace skillhost::op
