// What changed between two catalog snapshots, for subscribers and for `skillhost watch`.
#pragma once

#include "catalog/catalog_snapshot.hpp"
#include "plugin/plugin_loader.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace skillhost::reload {

struct PluginChange {
    std::string name;
    std::string old_version;  // empty for an added plugin
    std::string new_version;  // empty for a removed plugin
    std::filesystem::path manifest_file;
};

struct CatalogChange {
    std::uint64_t old_version = 0;
    std::uint64_t new_version = 0;
    std::string trigger;  // "rescan", "unit" or "list_changed"
    // Manifest files whose unit was rebuilt (loaded, updated, removed or newly failing) by this
    // change; a subscriber interested in one plugin filters on these.
    std::vector<std::filesystem::path> units;

    std::vector<std::string> added_skills;  // sorted skill ids
    std::vector<std::string> removed_skills;
    // Same id, now served by another LoadedPlugin whose description of it or whose code differs. A
    // reload that changed nothing an agent or client could see (same manifest content for the
    // skill, same library bytes) is not an update.
    std::vector<std::string> updated_skills;
    std::vector<PluginChange> added_plugins;
    std::vector<PluginChange> removed_plugins;
    std::vector<PluginChange> updated_plugins;            // reloaded with another version, manifest or library
    std::vector<plugin::PluginFailure> new_failures;      // not in the old snapshot
    std::vector<std::filesystem::path> cleared_failures;  // manifests whose failure went away

    bool touches_unit(const std::filesystem::path& manifest_file) const;
    bool empty() const;
};

// Everything a subscriber gets after a swap.
struct CatalogUpdate {
    std::shared_ptr<const catalog::CatalogSnapshot> old_snapshot;
    std::shared_ptr<const catalog::CatalogSnapshot> new_snapshot;
    CatalogChange change;
};

// What identifies the code a loaded plugin runs (a hash of its library's bytes), or nullopt when
// unknown; unknown code counts as changed.
using CodeIdentity = std::function<std::optional<std::uint64_t>(const plugin::LoadedPlugin&)>;

CatalogChange compute_change(const catalog::CatalogSnapshot& old_snapshot, const catalog::CatalogSnapshot& new_snapshot,
                             const CodeIdentity& code_identity = {});

// One human line, e.g.
//   "catalog v3 -> v4: updated plugin echo 1.0.0 -> 2.0.0; skills updated: add; failed: broken.yaml
//    ABI_INCOMPATIBLE: ..." (a plugin updated without a version change: "updated plugin echo 1.0.0")
std::string format_change_line(const CatalogChange& change);

// {"old_version","new_version","trigger","units":[...],
//  "skills":{"added":[],"removed":[],"updated":[]},
//  "plugins":{"added":[{name,version,manifest}],"removed":[...],"updated":[{name,old_version,new_version,manifest}]},
//  "failures":{"new":[{manifest,plugin,error:{code,message,details,suggestions}}],"cleared":[manifest...]}}
boost::json::object change_to_json(const CatalogChange& change);

boost::json::object failure_to_json(const plugin::PluginFailure& failure);

}  // namespace skillhost::reload
