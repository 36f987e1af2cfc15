// The host's side of what a runner forwards for one call: its content items, its log lines, and
// its sampling and elicitation requests, handed to the call's control as if the plugin ran here.
// The runner is untrusted: every frame is checked and bounded again on this side.
#include "plugin/runner_connection.hpp"
#include "plugin/error_codes.hpp"

#include "base/json_text.hpp"
#include "plugin/host_services.hpp"
#include "plugin/result_capture.hpp"
#include "store/error_codes.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

namespace skillhost::plugin {

namespace {

// The most log lines of one call passed on; the runner bounds them too (host_services.cpp).
constexpr int kMaxForwardedLogLines = 101;

// What the runner's waiting service receives: the answer as a writer would have captured it.
RawOutcome outcome_of(const Result<std::string>& answer) {
    ResultCapture capture;
    const skillhost_status status = answer_through(capture.writer(), answer);
    RawOutcome outcome = capture.take();
    outcome.status = status;
    return outcome;
}

}  // namespace

bool RunnerConnection::with_running_call(std::uint64_t sequence, const std::function<void(CallControl&)>& use) {
    CallControl* control = nullptr;
    {
        std::lock_guard lock(mutex_);
        auto found = pending_.find(sequence);
        if (found == pending_.end() || found->second->done) return false;
        control = found->second->control;
    }
    if (!control) return false;
    use(*control);
    return true;
}

void RunnerConnection::forward_call_service(const wire::Frame& frame) {
    using wire::FrameType;
    const auto type = static_cast<FrameType>(frame.header.type);
    if (type == FrameType::content) {
        boost::json::value items;
        std::string problem;
        if (!parse_json(frame.payload, items, problem) || !items.is_array()) return;
        with_running_call(frame.header.id, [&](CallControl& control) {
            for (const auto& item : items.get_array())
                if (Status added = control.content.add(boost::json::serialize(item)); !added)
                    logger_->warn("[plugin {}] a content item was refused: {}", launch_.plugin_name,
                                  added.error().message);
        });
        return;
    }
    if (type == FrameType::call_log) {
        wire::PayloadReader r(frame.payload);
        const auto level = static_cast<skillhost_log_level>(r.integer());
        const std::string_view message = r.text();
        if (!r.ok()) return;
        with_running_call(frame.header.id, [&](CallControl& control) {
            if (control.services && control.forwarded_log_lines.fetch_add(1) < kMaxForwardedLogLines)
                control.services->log(level, message);
        });
    }
}

bool RunnerConnection::answer_front_end_request(std::uint64_t request_id, const wire::HostRequest& request) {
    if (request.call_sequence == 0) return false;  // not bound to a call: the model router answers
    if (request.kind == SKILLHOST_EXT_LLM) {
        wire::PayloadReader r(request.body);
        std::string claimed_user(r.text()), role(r.text()), body(r.text());
        if (!r.ok()) return false;  // answer_completion reports the unreadable request
        std::shared_ptr<CallServices> services;
        with_running_call(request.call_sequence, [&](CallControl& control) { services = control.services; });
        // Without a sampling front end (or the permission) the model router answers, and a plugin
        // without `llm` is refused there, as before.
        if (!services || !services->samples() || !launch_.llm_allowed) return false;
        std::string user;
        std::optional<std::shared_ptr<void>> slot = admit_host_request(request_id, request.call_sequence, user);
        if (!slot) return true;
        // A client's answer can take minutes: on the host-request pool, never holding up other calls.
        answer_later(request_id, [slot = std::move(*slot), channel = channel_, request_id,
                                  services = std::move(services), role = std::move(role), body = std::move(body)] {
            static const std::atomic<bool> not_ended{false};  // the executor's gate says when the call ends
            Result<std::string> answer = Error{errors::kLlmFailed, "the completion request failed in the host"};
            try {
                answer = services->sample(role, body, not_ended);
            } catch (const std::exception& e) {
                answer =
                    Error{errors::kLlmFailed, std::string("the completion request failed in the host: ") + e.what()};
            }
            channel->send(wire::FrameType::host_reply, request_id, wire::encode(outcome_of(answer)));
        });
        return true;
    }
    if (request.kind == SKILLHOST_EXT_ELICIT) {
        std::shared_ptr<CallServices> services;
        with_running_call(request.call_sequence, [&](CallControl& control) { services = control.services; });
        if (!services) services = std::make_shared<CallServices>();  // nobody to ask: it says so
        std::string user;
        std::optional<std::shared_ptr<void>> slot = admit_host_request(request_id, request.call_sequence, user);
        if (!slot) return true;
        answer_later(request_id, [slot = std::move(*slot), channel = channel_, request_id,
                                  services = std::move(services), body = request.body] {
            static const std::atomic<bool> not_ended{false};
            Result<std::string> answer = Error{errors::kElicitationFailed, "asking the user failed in the host"};
            try {
                answer = services->elicit(body, not_ended);
            } catch (const std::exception& e) {
                answer =
                    Error{errors::kElicitationFailed, std::string("asking the user failed in the host: ") + e.what()};
            }
            channel->send(wire::FrameType::host_reply, request_id, wire::encode(outcome_of(answer)));
        });
        return true;
    }
    return false;
}

void RunnerConnection::answer_storage(std::uint64_t request_id, const wire::HostRequest& request) {
    wire::PayloadReader r(request.body);
    std::string operation(r.text()), body(r.text());
    if (!r.ok()) {
        reply(request_id, outcome_of(Error{errors::kRunnerProtocolError,
                                           "the runner sent an unreadable storage request; report this as a "
                                           "skillhost bug"}));
        return;
    }
    // The store is the host's record of the call in flight: its user, and this runner's plugin.
    std::string user;
    std::optional<std::shared_ptr<void>> slot = admit_host_request(request_id, request.call_sequence, user);
    if (!slot) return;
    // A database round trip: on the host-request pool, never holding up other calls' frames.
    answer_later(request_id, [slot = std::move(*slot), channel = channel_, request_id, storage = launch_.storage,
                              plugin = launch_.plugin_name, user = std::move(user), operation = std::move(operation),
                              body = std::move(body)] {
        Result<std::string> answer = Error{errors::kStorageUnavailable,
                                           "this host keeps no plugin storage; keep the data in the plugin's "
                                           "data directory instead"};
        try {
            if (storage) answer = storage->handle(StorageOrigin{plugin, user}, operation, body);
        } catch (const std::exception& e) {
            answer = Error{errors::kStorageUnavailable, std::string("plugin storage failed in the host: ") + e.what()};
        }
        channel->send(wire::FrameType::host_reply, request_id, wire::encode(outcome_of(answer)));
    });
}

}  // namespace skillhost::plugin
