// The Error for a code a plugin call answered with: the plugin's own (kind plugin), or one the host
// answered in its place (PLUGIN_CRASHED, RESOURCES_UNSUPPORTED, TIMEOUT, ...), which keeps its kind.
#pragma once

#include "base/error.hpp"

#include <string>

namespace skillhost::exec {

Error error_from_plugin_call(std::string code, std::string message);

}  // namespace skillhost::exec
