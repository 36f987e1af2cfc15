// RawOutcome::from_error(): declared in loaded_plugin.hpp.
#include "plugin/loaded_plugin.hpp"

#include <boost/json/serialize.hpp>

namespace skillhost::plugin {

RawOutcome RawOutcome::from_error(const Error& error) {
    RawOutcome outcome;
    outcome.status = SKILLHOST_STATUS_ERROR;
    outcome.written = RawOutcome::Written::error;
    outcome.error_code = error.code.str();
    outcome.error_message = error.message;
    outcome.error_details_json = boost::json::serialize(error.details);
    return outcome;
}

}  // namespace skillhost::plugin
