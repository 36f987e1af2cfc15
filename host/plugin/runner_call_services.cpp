// The host's side of what a runner forwards for one call: its content items and log lines, handed
// to the call's control as if the plugin ran here, and its requests for the host extensions the
// host answers, each answered by that extension's module (plugin/extensions/).
// The runner is untrusted: every frame is checked and bounded again on this side.
#include "plugin/runner_connection.hpp"
#include "plugin/error_codes.hpp"

#include "base/json_text.hpp"
#include "plugin/extensions/host_extension.hpp"
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

void RunnerConnection::answer_host_request(std::uint64_t request_id, std::string_view payload) {
    std::optional<wire::HostRequest> request = wire::decode_host_request(payload);
    const std::string& plugin = launch_.plugin_name;
    if (!request) {
        reply(request_id, outcome_of(Error{errors::kRunnerProtocolError,
                                           "the runner of plugin '" + plugin +
                                               "' sent an unreadable request; report this as a skillhost bug",
                                           {{"plugin", plugin}}}));
        return;
    }
    const HostExtension* extension = find_host_extension(request->kind);
    if (!extension || !extension->answered_by_host) {
        reply(request_id,
              outcome_of(Error{errors::kUnknownHostService,
                               "the runner of plugin '" + plugin + "' asked for host service '" + request->kind +
                                   "', which this host does not answer for it; install matching "
                                   "skillhost and skillhost-runner binaries",
                               {{"plugin", plugin}, {"kind", request->kind}}}));
        return;
    }
    std::optional<Admitted> admitted = admit_host_request(request_id, request->call_sequence);
    if (!admitted) return;
    auto respond = [extension, admitted = std::move(*admitted), plugin = answering_, channel = channel_, request_id,
                    body = std::move(request->body)] {
        // Without a call (asked outside any), every extension answers as it does in the host.
        const ExtensionScope scope = admitted.call
                                         ? ExtensionScope{*plugin, true, &admitted.call->control,
                                                          admitted.call->call.user_id, admitted.call->call.run_id}
                                         : ExtensionScope{*plugin, false, nullptr, {}, {}};
        channel->send(wire::FrameType::host_reply, request_id,
                      wire::encode(outcome_of(answer_extension(*extension, scope, body))));
    };
    // A model, a person or a database can take seconds: such answers go to the host-request pool,
    // never holding up the results of other calls; the rest is answered here on the reader.
    if (extension->blocks)
        answer_later(request_id, std::move(respond));
    else
        respond();
}

}  // namespace skillhost::plugin
