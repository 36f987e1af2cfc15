#include "app/run_ownership.hpp"

#include "decisions/process_identity.hpp"

#include <charconv>
#include <string>

namespace skillhost::app {
namespace {

bool owner_is_alive(std::string_view text) {
    const auto last = text.rfind('/');
    if (last == std::string_view::npos || last == 0) return true;  // unreadable: assume alive
    const auto middle = text.rfind('/', last - 1);
    if (middle == std::string_view::npos) return true;
    decisions::ProcessIdentity id;
    id.host = std::string(text.substr(0, middle));
    const auto pid = text.substr(middle + 1, last - middle - 1);
    const auto ticks = text.substr(last + 1);
    if (std::from_chars(pid.data(), pid.data() + pid.size(), id.pid).ec != std::errc() ||
        std::from_chars(ticks.data(), ticks.data() + ticks.size(), id.start_ticks).ec != std::errc())
        return true;
    return decisions::process_is_alive(id);
}

}  // namespace

// Host names hold no '/'.
std::string process_owner_text(const decisions::ProcessIdentity& id) {
    return id.host + "/" + std::to_string(id.pid) + "/" + std::to_string(id.start_ticks);
}

store::RunOwnership this_process_run_ownership() {
    return store::RunOwnership{process_owner_text(decisions::current_process_identity()), &owner_is_alive};
}

}  // namespace skillhost::app
