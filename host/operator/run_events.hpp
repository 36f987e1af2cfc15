// What a run reports while it works. The CLI prints these with --stream; the daemon streams them.
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>

namespace skillhost::op {

// input_required: a skill asked the run's user a question (data: elicitation_id, tool, args,
// message, requestedSchema); the run waits until it is answered.
enum class RunEventType { thought, action, observation, warning, approval_required, completion, error, input_required };
const char* to_string(RunEventType);

struct RunEvent {
    RunEventType type = RunEventType::thought;
    std::string run_id;
    int step = 0;
    std::string text;          // one human line
    boost::json::object data;  // the structured payload (action, observation, error, ...)
    // The fencing epoch of the lease the run was driven under when it emitted the event (0: no
    // lease). The shared event log refuses an event whose epoch is no longer the run's.
    std::int64_t lease_epoch = 0;

    boost::json::object to_json() const;
};

// Called on the thread running the operator, in order. Must not throw.
class RunEventSubscriber {
public:
    virtual ~RunEventSubscriber() = default;
    virtual void on_event(const RunEvent& event) = 0;
};

}  // namespace skillhost::op
