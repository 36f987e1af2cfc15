// The record of one rebuild, for the log and the audit log: what triggered it and what happened to
// each plugin unit it looked at.
#pragma once

#include "base/error.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace skillhost::reload {

enum class UnitOutcome {
    loaded,                   // a new plugin now serves
    updated,                  // a new version replaced the previous one
    removed,                  // its manifest is gone; its skills left the catalog
    failed,                   // could not be loaded and nothing was serving
    failed_keeping_previous,  // the new version could not be loaded; the previous one keeps serving
    directory_missing,        // a configured plugin directory does not exist (any plugins from it left)
    quarantined,              // its runner crashed too often; its skills left until a new version loads
    relisted,                 // a foreign server said its tools changed: a version offering what it lists now serves
};

const char* to_string(UnitOutcome outcome);

struct UnitReport {
    std::filesystem::path manifest_file;  // for directory_missing: the directory
    std::string plugin_name;              // empty when the manifest could not be read
    UnitOutcome outcome = UnitOutcome::loaded;
    std::string previous_version;  // the version serving before, if any
    std::string version;           // the version serving after, if any
    std::optional<Error> error;    // for failed / failed_keeping_previous / directory_missing
    std::chrono::microseconds load_time{0};
};

struct ReloadReport {
    std::string trigger;  // "rescan", "unit" or "list_changed"
    std::uint64_t catalog_version_before = 0;
    std::uint64_t catalog_version_after = 0;  // equal to before when nothing changed
    std::vector<UnitReport> units;            // only units whose state changed
    std::chrono::microseconds duration{0};

    bool changed() const { return catalog_version_after != catalog_version_before; }
    // {"event":"catalog_reload","trigger",...,"units":[{manifest,plugin,outcome,previous_version,
    //  version,error?,load_time_us}],"duration_us"} — one audit-log record.
    boost::json::object to_json() const;
};

// Where reload reports go (the audit log). Called after the swap, outside every LiveCatalog lock,
// once per rebuild that changed the catalog, in catalog-version order.
using ReloadReportSink = std::function<void(const ReloadReport&)>;

}  // namespace skillhost::reload
