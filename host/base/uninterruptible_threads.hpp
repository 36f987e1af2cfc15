// The threads that may be inside code the host cannot interrupt: a worker running an in-process
// plugin's invoke (a plugin can only be asked to stop, never stopped), a stdio reader handling a
// call on its own thread, a name lookup waiting for the system resolver. Whoever started such a
// thread may stop waiting for it (a pool destroyed while a plugin hangs, a caller past its
// deadline), so the process owns them: they are started here, each joined as soon as it has
// returned (by the next start) and, when a command ends, by finish_uninterruptible_threads().
// None is ever detached (docs/architecture.md, "Threads and lifetimes").
//
// Thread-safety: any thread; finish_uninterruptible_threads() not from one of these threads.
#pragma once

#include "base/owned_threads.hpp"

#include <chrono>
#include <cstddef>

namespace skillhost {

// The process's registry of such threads. Never destroyed: a thread still inside a plugin that
// does not return cannot be joined, and must not hold up the process's exit.
OwnedThreads& uninterruptible_threads();

// At the end of a command: waits up to `limit` for every such thread to return and joins them;
// logs a warning naming how many are still inside uninterruptible code (the process then ends
// without them). Returns that number.
std::size_t finish_uninterruptible_threads(std::chrono::milliseconds limit);

}  // namespace skillhost
