// The errors a call to a server ends with whatever transport carried it, worded once: too many in
// flight, an answer over the size limit, and a call that ended unanswered (timed out or cancelled).
#pragma once

#include "base/error.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace skillhost::upstream {

// UPSTREAM_BUSY: `in_flight` calls already wait (the limit; details.limit).
Error busy_error(const std::string& label, std::size_t in_flight, std::size_t limit);
// UPSTREAM_MESSAGE_TOO_LARGE naming max_message_bytes (details.limit).
Error too_large_error(const std::string& label, std::size_t limit);
// UPSTREAM_CANCELLED or UPSTREAM_TIMEOUT (details.method), for a call cancelled upstream.
Error unanswered_error(const std::string& label, std::string_view method, bool cancelled);

}  // namespace skillhost::upstream
