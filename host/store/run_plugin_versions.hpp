// A run's steps called particular plugin versions; its remaining steps (and a retried step) must
// run on the same ones. With several instances behind a load balancer during a rolling upgrade,
// the instance that resumes a run may have a different version loaded: it refuses instead of
// mixing two versions' behaviour in one run, and another instance (or the operator) resumes it.
#pragma once

#include "base/error.hpp"
#include "store/run_record.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::store {

// The version of `plugin` this instance has loaded, nullopt when it has none.
using LoadedPluginVersion = std::function<std::optional<std::string>(std::string_view plugin)>;

// RUN_PLUGIN_VERSION_MISSING (naming the plugin, the recorded and the loaded version) for the first
// plugin of `run.plugin_versions` that is not loaded at exactly the recorded version.
Status check_plugin_versions(const Run& run, const LoadedPluginVersion& loaded_version);

}  // namespace skillhost::store
