// The host side of one in-flight skill call: cancellation flag and progress sink, shared between
// the executor (which may cancel on timeout) and the plugin (which polls it through host services).
#pragma once

#include <atomic>
#include <functional>
#include <string_view>

namespace skillhost::plugin {

struct CallControl {
    std::atomic<bool> cancelled{false};
    // Called from the plugin's thread for each progress report; may be empty.
    std::function<void(double progress, double total, std::string_view message)> on_progress;
    // The "skillhost.path_check/1" answer for this call's rules; empty: no rule withholds a path.
    // Called from the plugin's threads, so it owns what it reads.
    std::function<bool(std::string_view path)> path_allowed;
};

}  // namespace skillhost::plugin
