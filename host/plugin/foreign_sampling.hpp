// A foreign MCP server's sampling requests (sampling/createMessage), answered by the host's model
// router, only when the server's declaration grants `permissions: {llm: true}`; the completion is
// attributed to the user whose instance asked, and audited as every plugin completion is. Each runs
// on a thread of its own (a model may take long, and the session's reader must go on reading), at
// most kMaxSamplings at once per instance.
#pragma once

#include "base/error.hpp"
#include "base/owned_threads.hpp"
#include "plugin/completion_service.hpp"
#include "upstream/transport.hpp"

#include <boost/json/value.hpp>

#include <atomic>
#include <memory>
#include <string>

namespace skillhost::plugin {

// The ABI completion request ({"messages":[...], "max_tokens"}) for MCP sampling params: text
// messages of role user or assistant, the systemPrompt as a system message. CONTENT_INVALID for
// anything else (images, audio, tools).
Result<std::string> completion_request_from_sampling(const boost::json::value& params);

class ForeignSampling {
public:
    static constexpr int kMaxSamplings = 4;

    ForeignSampling(std::string server, bool allowed, std::shared_ptr<CompletionService> completions,
                    std::string user_id)
        : server_(std::move(server)),
          allowed_(allowed),
          completions_(std::move(completions)),
          user_id_(std::move(user_id)) {}

    // Answers one request through `respond`: at once when refused, else from a thread of its own.
    void answer(const boost::json::value& params, upstream::Responder respond);
    // Waits for every answer still being made: call before the channel the responders write to goes.
    void finish() { threads_.join_all(); }

private:
    const std::string server_;
    const bool allowed_;
    const std::shared_ptr<CompletionService> completions_;
    const std::string user_id_;
    std::atomic<int> running_{0};
    OwnedThreads threads_;
};

}  // namespace skillhost::plugin
