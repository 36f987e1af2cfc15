// A foreign MCP server's questions to the user (elicitation/create), put to the user of the call
// in flight on its instance exactly as a native skill's skillhost.elicit/1 is: the front end that
// started the call asks (an MCP client with the elicitation capability), or the host queues the
// question durably for the user and runs the call again once it is answered (exec's elicitation
// pause; the server is then told "cancel" and whatever the call returns is discarded). Each
// question waits on a thread of its own, at most kMaxQuestions at once per instance, so the
// session's reader goes on reading.
//
// Thread-safety: every member may be called from any thread; finish() must not run on one of the
// answering threads.
#pragma once

#include "base/owned_threads.hpp"
#include "plugin/call_services.hpp"
#include "upstream/rpc_channel.hpp"

#include <boost/json/value.hpp>

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <string>

namespace skillhost::plugin {

// A call in flight that may ask: its front end's services and its cancellation flag.
struct Asker {
    std::shared_ptr<CallServices> services;
    const std::atomic<bool>* cancelled = nullptr;
};

class ForeignElicitation {
public:
    static constexpr int kMaxQuestions = 4;

    explicit ForeignElicitation(std::string server) : server_(std::move(server)) {}

    // A call in flight on the instance, for as long as this lives: its questions go to its front end.
    class InFlight {
    public:
        InFlight(ForeignElicitation& owner, std::shared_ptr<CallServices> services, const std::atomic<bool>* cancelled);
        ~InFlight();
        InFlight(const InFlight&) = delete;
        InFlight& operator=(const InFlight&) = delete;

    private:
        ForeignElicitation& owner_;
        std::list<Asker>::iterator entry_;
    };

    // Answers one elicitation/create through `respond`: at once when no call can take it, else from
    // a thread of its own with the user's answer ({"action", "content"?}).
    void answer(const boost::json::value& params, upstream::Responder respond);
    // Waits for every question still open: call before the channel the responders write to goes.
    void finish() { threads_.join_all(); }

private:
    const std::string server_;
    std::mutex mutex_;
    std::list<Asker> calls_;  // oldest first: a question goes to the oldest call in flight
    std::atomic<int> running_{0};
    OwnedThreads threads_;
};

}  // namespace skillhost::plugin
