#include "plugin/foreign_elicitation.hpp"

#include "plugin/error_codes.hpp"
#include "upstream/error_codes.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace skillhost::plugin {
namespace json = boost::json;

ForeignElicitation::InFlight::InFlight(ForeignElicitation& owner, std::shared_ptr<CallServices> services,
                                       const std::atomic<bool>* cancelled)
    : owner_(owner) {
    std::lock_guard lock(owner_.mutex_);
    entry_ = owner_.calls_.insert(owner_.calls_.end(), Asker{std::move(services), cancelled});
}

ForeignElicitation::InFlight::~InFlight() {
    std::lock_guard lock(owner_.mutex_);
    owner_.calls_.erase(entry_);
}

void ForeignElicitation::answer(const json::value& params, upstream::Responder respond) {
    Asker asker;
    {
        std::lock_guard lock(mutex_);
        for (const Asker& call : calls_) {
            if (call.services) {
                asker = call;
                break;
            }
        }
    }
    if (!asker.services) {
        return respond(Error{errors::kElicitationUnavailable,
                             "MCP server '" + server_ +
                                 "' asked the user a question outside any call that can ask one; skillhost puts a "
                                 "server's questions to the user of the call in flight"});
    }
    if (running_.fetch_add(1) >= kMaxQuestions) {
        running_.fetch_sub(1);
        return respond(Error{errors::kTooManyHostRequests, "MCP server '" + server_ + "' already has " +
                                                               std::to_string(kMaxQuestions) +
                                                               " questions open; wait for one to be answered"});
    }
    static const std::atomic<bool> never_cancelled{false};
    const std::atomic<bool>* cancelled = asker.cancelled != nullptr ? asker.cancelled : &never_cancelled;
    try {
        threads_.start([this, respond, services = std::move(asker.services), cancelled,
                        request = json::serialize(params)] {
            Result<std::string> answered = services->elicit(request, *cancelled);
            running_.fetch_sub(1);
            if (!answered) {
                // Queued for later: the call stops (the host runs it again once the user answers),
                // so the server is told the question was cancelled.
                if (answered.error().is(errors::kElicitationPending))
                    return respond(json::value(json::object{{"action", "cancel"}}));
                return respond(answered.error());
            }
            std::error_code ec;
            json::value answer = json::parse(answered.value(), ec);
            if (ec || !answer.is_object())
                return respond(Error{errors::kElicitationFailed, "the answer to the question was not a JSON object"});
            respond(std::move(answer));
        });
    } catch (const std::system_error& e) {
        running_.fetch_sub(1);
        respond(Error{errors::kElicitationFailed, std::string("no thread for the question: ") + e.what()});
    }
}

}  // namespace skillhost::plugin
