#include "exec/plugin_error.hpp"

#include "exec/error_codes.hpp"
#include "oauth/error_codes.hpp"
#include "plugin/error_codes.hpp"
#include "upstream/error_codes.hpp"

namespace skillhost::exec {

Error error_from_plugin_call(std::string code, std::string message) {
    if (const auto host_code = find_error_code(code, errors::kPluginErrorCodes, errors::kExecErrorCodes,
                                               errors::kUpstreamErrorCodes, errors::kOauthErrorCodes))
        return Error::reported(std::move(code), host_code->kind, std::move(message));
    return Error::from_plugin(std::move(code), std::move(message));
}

}  // namespace skillhost::exec
