// The threads that answer runners' host requests (completions, sampling, questions to the user):
// one pool for every runner of the host, bounded in threads and in queued requests. A request can
// take seconds (a model) or minutes (a person), so it never runs on the thread that reads a runner's
// socket; and a runner cannot make the host start a thread per frame it writes.
#pragma once

#include <cstddef>
#include <functional>

namespace skillhost::plugin {

inline constexpr std::size_t host_request_workers = 64;
inline constexpr std::size_t host_request_queue = 1024;

// Runs `answer` on a host-request worker, or queues it while every worker is busy. Returns false,
// without running it, when host_request_queue requests already wait (or no thread can be started):
// the caller then answers the runner that the host is busy.
[[nodiscard]] bool answer_host_request_later(std::function<void()> answer);

}  // namespace skillhost::plugin
