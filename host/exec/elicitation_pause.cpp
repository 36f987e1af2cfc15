#include "exec/elicitation_pause.hpp"
#include "exec/error_codes.hpp"
#include "plugin/error_codes.hpp"

#include <boost/json/serialize.hpp>

namespace skillhost::exec {

namespace json = boost::json;

ElicitationPause::ElicitationPause(decisions::ElicitationQueue& queue, decisions::ElicitationAsk ask,
                                   json::array answered)
    : queue_(queue), ask_(std::move(ask)), answered_(std::move(answered)) {}

namespace {

class PausingServices final : public plugin::ForwardedCallServices {
public:
    PausingServices(std::shared_ptr<ElicitationPause> pause, std::shared_ptr<plugin::CallServices> front_end)
        : ForwardedCallServices(std::move(front_end)), pause_(std::move(pause)) {}

    Result<std::string> elicit(std::string_view request_json, const std::atomic<bool>& call_ended) override {
        return pause_->answer(request_json, call_ended, inner().get());
    }

private:
    const std::shared_ptr<ElicitationPause> pause_;
};

}  // namespace

std::shared_ptr<plugin::CallServices> with_pause(std::shared_ptr<ElicitationPause> pause,
                                                 std::shared_ptr<plugin::CallServices> front_end) {
    return std::make_shared<PausingServices>(std::move(pause), std::move(front_end));
}

std::optional<decisions::ElicitationRecord> ElicitationPause::queued() const {
    std::lock_guard lock(mutex_);
    return queued_;
}

Result<std::string> ElicitationPause::answer(std::string_view request_json, const std::atomic<bool>& call_ended,
                                             plugin::CallServices* front_end) {
    auto request = decisions::parse_elicitation_request(request_json);
    if (!request) return request.error();
    std::size_t position = 0;
    {
        std::lock_guard lock(mutex_);
        if (queued_) {
            // The skill was told to stop and asks again: the same answer, it must return.
            return Error{errors::kElicitationPending, "this call already waits for the answer to " + queued_->id +
                                                          "; return now, the call runs again when it comes"};
        }
        position = asked_++;
    }
    if (position >= kMaxElicitationsPerCall) {
        return Error{errors::kElicitationFailed, "a call may ask at most " + std::to_string(kMaxElicitationsPerCall) +
                                                     " questions; ask for several fields in one form instead"};
    }
    // An answer an earlier run of this call got, for the same question in the same place.
    if (position < answered_.size()) {
        const json::object* earlier = answered_[position].if_object();
        const json::value* asked = earlier ? earlier->if_contains("request") : nullptr;
        const json::value* given = earlier ? earlier->if_contains("answer") : nullptr;
        if (asked && given && *asked == json::value(request->to_json())) return json::serialize(*given);
    }
    if (front_end) {
        auto direct = front_end->elicit(request_json, call_ended);
        if (direct || !direct.error().is(errors::kElicitationUnavailable)) return direct;
    }
    decisions::ElicitationAsk ask = ask_;
    ask.request = std::move(request.value());
    // The answers that still hold: those before the first question that changed.
    for (std::size_t i = 0; i < position && i < answered_.size(); ++i) ask.prior_answers.push_back(answered_[i]);
    auto record = queue_.enqueue(ask);
    if (!record) {
        return Error{errors::kElicitationUnavailable, "the question could not be queued for the user (" +
                                                          record.error().message +
                                                          "); continue without it or ask for it as an argument"};
    }
    std::lock_guard lock(mutex_);
    queued_ = std::move(record.value());
    return Error{errors::kElicitationPending, "the user is asked later (" + queued_->id +
                                                  "); return now: the call runs again from the start with the answer"};
}

Error elicitation_required(const decisions::ElicitationRecord& record) {
    Error e{errors::kElicitationRequired,
            "skill " + record.skill_id + " asks: " + record.message + " (elicitation " + record.id +
                "; it runs again once you answer)",
            {},
            {"answer with `skillhost elicitations answer " + record.id +
                 " --field NAME=VALUE` (see `skillhost elicitations show " + record.id + "` for the fields)",
             "or POST /v1/elicitations/" + record.id + " with {\"action\":\"accept\",\"content\":{...}}",
             "or decline: `skillhost elicitations answer " + record.id + " --decline`"}};
    e.details["elicitation_id"] = record.id;
    e.details["message"] = record.message;
    e.details["requestedSchema"] = record.requested_schema;
    e.details["expires_at"] = format_utc_timestamp(record.expires_at);
    return e;
}

}  // namespace skillhost::exec
