// Who hears about every skill call the pipeline ran (the daemon's metrics). Refusals and calls
// queued for approval are not calls: only executions are reported.
#pragma once

#include "base/observer_list.hpp"
#include "exec/executor.hpp"

#include <string_view>

namespace skillhost::exec {

class CallObserver {
public:
    virtual ~CallObserver() = default;
    // Called after the call finished, ok or not, on the thread that answered it (the caller's, a
    // worker or the deadline watcher). Must not throw.
    virtual void on_call(std::string_view skill_id, const SkillResult& result) = 0;
};

using CallObserverList = ObserverList<CallObserver>;

}  // namespace skillhost::exec
