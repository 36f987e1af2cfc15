// On a shared backend (several daemons on one PostgreSQL), the plugins whose state stays on each
// instance's disk (manifest `state: files`, the default) are named in the server log once each, when
// they are loaded at start or by a reload: behind a load balancer their users see different data
// on each instance (docs/scaling.md).
#pragma once

#include "catalog/catalog_snapshot.hpp"
#include "plugin/loaded_plugin.hpp"

#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace skillhost::app {

class PerInstanceStateWarning {
public:
    // Warns about every plugin of `snapshot` with per-instance files not warned about before (by
    // name and version). Returns the names warned about now. Thread-safe.
    std::vector<std::string> warn_about(const catalog::CatalogSnapshot& snapshot);

private:
    std::mutex mutex_;
    std::set<std::string> warned_;  // "<name>@<version>"
};

// The warning's text for `plugin` (one line, for the server log).
std::string per_instance_state_message(const plugin::LoadedPlugin& plugin);

}  // namespace skillhost::app
