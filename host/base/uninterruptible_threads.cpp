#include "base/uninterruptible_threads.hpp"

#include <spdlog/spdlog.h>

namespace skillhost {

OwnedThreads& uninterruptible_threads() {
    // Allocated once and never freed (see the header); reachable, so not a leak to a leak checker.
    static OwnedThreads* const threads = new OwnedThreads;
    return *threads;
}

std::size_t finish_uninterruptible_threads(std::chrono::milliseconds limit) {
    const std::size_t left = uninterruptible_threads().join_all_for(limit);
    if (left > 0)
        spdlog::warn(
            "{} thread(s) are still inside a plugin call or a name lookup after {} ms (an in-process plugin that "
            "ignores cancellation, or a DNS server that does not answer); exiting without them",
            left, limit.count());
    return left;
}

}  // namespace skillhost
