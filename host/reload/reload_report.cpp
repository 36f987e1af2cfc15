#include "reload/reload_report.hpp"

#include <boost/json/array.hpp>

namespace skillhost::reload {

const char* to_string(UnitOutcome outcome) {
    switch (outcome) {
        case UnitOutcome::loaded: return "loaded";
        case UnitOutcome::updated: return "updated";
        case UnitOutcome::removed: return "removed";
        case UnitOutcome::failed: return "failed";
        case UnitOutcome::failed_keeping_previous: return "failed_keeping_previous";
        case UnitOutcome::quarantined: return "quarantined";
        case UnitOutcome::relisted: return "relisted";
        case UnitOutcome::directory_missing: return "directory_missing";
    }
    return "unknown";
}

boost::json::object ReloadReport::to_json() const {
    boost::json::object out;
    out["event"] = "catalog_reload";
    out["trigger"] = trigger;
    out["catalog_version_before"] = catalog_version_before;
    out["catalog_version_after"] = catalog_version_after;
    boost::json::array unit_array;
    for (const auto& unit : units) {
        boost::json::object u;
        u["manifest"] = unit.manifest_file.string();
        u["plugin"] = unit.plugin_name;
        u["outcome"] = to_string(unit.outcome);
        u["previous_version"] = unit.previous_version;
        u["version"] = unit.version;
        if (unit.error) u["error"] = unit.error->to_json();
        u["load_time_us"] = unit.load_time.count();
        unit_array.emplace_back(std::move(u));
    }
    out["units"] = std::move(unit_array);
    out["duration_us"] = duration.count();
    return out;
}

}  // namespace skillhost::reload
