// skillhost.yaml's `isolation:` settings as the loader's isolation options.
#pragma once

#include "config/host_config.hpp"
#include "plugin/isolation_options.hpp"

namespace skillhost::plugin {

IsolationOptions isolation_options(const config::HostConfig& config);

}  // namespace skillhost::plugin
