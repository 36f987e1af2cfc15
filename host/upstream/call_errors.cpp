#include "upstream/call_errors.hpp"

#include "upstream/error_codes.hpp"

namespace skillhost::upstream {

Error busy_error(const std::string& label, std::size_t in_flight, std::size_t limit) {
    Error error{errors::kUpstreamBusy, label + " already has " + std::to_string(in_flight) +
                                           " calls in flight (the limit); retry when some have finished"};
    error.details["limit"] = limit;
    return error;
}

Error too_large_error(const std::string& label, std::size_t limit) {
    Error error{errors::kUpstreamMessageTooLarge,
                label + " answered with a message over max_message_bytes (" + std::to_string(limit) +
                    " bytes); ask for less (a smaller range or page), or raise limits.max_message_bytes in its "
                    "declaration"};
    error.details["limit"] = limit;
    return error;
}

Error unanswered_error(const std::string& label, std::string_view method, bool cancelled) {
    if (cancelled) return Error{errors::kUpstreamCancelled, "the call to " + label + " was cancelled"};
    Error error{errors::kUpstreamTimeout,
                label + " did not answer '" + std::string(method) + "' in time; the call was cancelled upstream"};
    error.details["method"] = std::string(method);
    return error;
}

}  // namespace skillhost::upstream
