// The host's side of what a runner forwards for one call: its content items, its log lines, and
// its sampling and elicitation requests, handed to the call's control as if the plugin ran here.
// The runner is untrusted: every frame is checked and bounded again on this side.
#include "plugin/runner_connection.hpp"

#include "base/json_text.hpp"
#include "plugin/host_services.hpp"
#include "plugin/result_capture.hpp"

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
    std::shared_ptr<Pending> pending;
    {
        std::lock_guard lock(mutex_);
        auto found = pending_.find(sequence);
        if (found == pending_.end()) return false;
        pending = found->second;
    }
    // Under the call's lock: the call cannot return (and its control go away) meanwhile.
    std::lock_guard lock(pending->mutex);
    if (pending->done || !pending->control) return false;
    use(*pending->control);
    return true;
}

void RunnerConnection::forward_call_service(const wire::Frame& frame) {
    using wire::FrameType;
    const auto type = static_cast<FrameType>(frame.header.type);
    wire::PayloadReader r(frame.payload);
    if (type == FrameType::content) {
        boost::json::value items;
        std::string problem;
        if (!parse_json(frame.payload, items, problem) || !items.is_array()) return;
        with_running_call(frame.header.id, [&](CallControl& control) {
            for (const auto& item : items.get_array())
                if (Status added = control.content.add(boost::json::serialize(item)); !added)
                    spdlog::warn("[plugin {}] a content item was refused: {}", launch_.plugin_name,
                                 added.error().message);
        });
        return;
    }
    if (type == FrameType::call_log) {
        const auto level = static_cast<skillhost_log_level>(r.integer());
        const std::string_view message = r.text();
        if (!r.ok()) return;
        with_running_call(frame.header.id, [&](CallControl& control) {
            if (control.on_log && control.forwarded_log_lines.fetch_add(1) < kMaxForwardedLogLines)
                control.on_log(level, message);
        });
        return;
    }
    const std::uint64_t request_id = frame.header.id;
    const auto sequence = static_cast<std::uint64_t>(r.integer());
    if (type == FrameType::call_completion_request) {
        std::string user(r.text()), role(r.text()), request(r.text());
        if (!r.ok()) return;
        decltype(CallControl::sample) sample;
        with_running_call(sequence, [&](CallControl& control) { sample = control.sample; });
        if (!sample || !launch_.llm_allowed) {
            // The model router answers (and a plugin without the permission is refused) as before.
            wire::PayloadWriter w;
            w.text(user).text(role).text(request);
            answer_completion(request_id, w.bytes());
            return;
        }
        std::thread([channel = channel_, request_id, sample = std::move(sample), role = std::move(role),
                     request = std::move(request)] {
            static const std::atomic<bool> not_ended{false};  // the executor's gate says when the call ends
            Result<std::string> answer = Error{"LLM_FAILED", "the completion request failed in the host"};
            try {
                answer = sample(role, request, not_ended);
            } catch (const std::exception& e) {
                answer = Error{"LLM_FAILED", std::string("the completion request failed in the host: ") + e.what()};
            }
            channel->send(wire::FrameType::completion_reply, request_id, wire::encode(outcome_of(answer)));
        }).detach();
        return;
    }
    if (type == FrameType::elicit_request) {
        std::string request(r.text());
        if (!r.ok()) return;
        plugin::FrontEndRequest elicit;
        with_running_call(sequence, [&](CallControl& control) { elicit = control.elicit; });
        if (!elicit) {
            channel_->send(FrameType::completion_reply, request_id,
                           wire::encode(outcome_of(Error{"ELICITATION_UNAVAILABLE",
                                                         "this call's front end cannot ask the user for input (only "
                                                         "MCP clients that declare elicitation can); continue without "
                                                         "it or ask the caller to pass it as an argument"})));
            return;
        }
        std::thread([channel = channel_, request_id, elicit = std::move(elicit), request = std::move(request)] {
            static const std::atomic<bool> not_ended{false};
            Result<std::string> answer = Error{"ELICITATION_FAILED", "asking the user failed in the host"};
            try {
                answer = elicit(request, not_ended);
            } catch (const std::exception& e) {
                answer = Error{"ELICITATION_FAILED", std::string("asking the user failed in the host: ") + e.what()};
            }
            channel->send(wire::FrameType::completion_reply, request_id, wire::encode(outcome_of(answer)));
        }).detach();
    }
}

}  // namespace skillhost::plugin
