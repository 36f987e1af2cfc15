#include "reload/catalog_change.hpp"

#include "catalog/catalog_render.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace skillhost::reload {

namespace {

using catalog::CatalogSnapshot;
using plugin::LoadedPlugin;
using plugin::PluginFailure;

// Plugins are keyed by manifest file: that is the unit a reload works on, and two manifests may
// (wrongly) use one plugin name.
std::map<std::filesystem::path, const LoadedPlugin*> plugins_by_manifest(const CatalogSnapshot& snapshot) {
    std::map<std::filesystem::path, const LoadedPlugin*> out;
    for (const auto& p : snapshot.plugins()) out.emplace(p->manifest().file, p.get());
    return out;
}

std::map<std::string, const LoadedPlugin*> skills_by_id(const CatalogSnapshot& snapshot) {
    std::map<std::string, const LoadedPlugin*> out;
    for (const auto& entry : snapshot.entries()) out.emplace(entry.spec->id, entry.plugin.get());
    return out;
}

auto failure_key(const PluginFailure& f) {
    return std::tie(f.manifest_file, f.error.code, f.error.message);
}

PluginChange describe(const LoadedPlugin* before, const LoadedPlugin* after) {
    PluginChange change;
    const LoadedPlugin* any = after ? after : before;
    change.name = any->manifest().name;
    change.manifest_file = any->manifest().file;
    if (before) change.old_version = std::string(before->version());
    if (after) change.new_version = std::string(after->version());
    return change;
}

bool code_differs(const LoadedPlugin& before, const LoadedPlugin& after, const CodeIdentity& code_identity) {
    if (!code_identity) return true;
    const auto old_code = code_identity(before);
    const auto new_code = code_identity(after);
    return !old_code || !new_code || *old_code != *new_code;
}

// Everything the catalog tells clients about one skill (description, schemas, risk, hints, ...).
std::string described(const CatalogSnapshot& snapshot, const std::string& id) {
    const auto* entry = snapshot.find(id);
    return entry ? boost::json::serialize(catalog::render_catalog_json({entry})) : std::string();
}

bool plugin_differs(const LoadedPlugin& before, const LoadedPlugin& after, const CodeIdentity& code_identity) {
    const auto& old_skills = before.manifest().skills;
    const auto& new_skills = after.manifest().skills;
    const bool same_ids = std::equal(old_skills.begin(), old_skills.end(), new_skills.begin(), new_skills.end(),
                                     [](const auto& a, const auto& b) { return a.id == b.id; });
    if (before.version() != after.version() || before.manifest().description != after.manifest().description ||
        !same_ids)
        return true;
    return code_differs(before, after, code_identity);
}

void add_unit(std::vector<std::filesystem::path>& units, const std::filesystem::path& file) {
    if (std::find(units.begin(), units.end(), file) == units.end()) units.push_back(file);
}

std::string join_limited(const std::vector<std::string>& items, std::size_t limit) {
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < limit; ++i) {
        if (i) out += ", ";
        out += items[i];
    }
    if (items.size() > limit) out += ", ... " + std::to_string(items.size() - limit) + " more";
    return out;
}

}  // namespace

bool CatalogChange::touches_unit(const std::filesystem::path& manifest_file) const {
    return std::find(units.begin(), units.end(), manifest_file) != units.end();
}

bool CatalogChange::empty() const {
    return added_skills.empty() && removed_skills.empty() && updated_skills.empty() && added_plugins.empty() &&
           removed_plugins.empty() && updated_plugins.empty() && new_failures.empty() && cleared_failures.empty();
}

CatalogChange compute_change(const CatalogSnapshot& old_snapshot, const CatalogSnapshot& new_snapshot,
                             const CodeIdentity& code_identity) {
    CatalogChange change;
    change.old_version = old_snapshot.version();
    change.new_version = new_snapshot.version();

    std::vector<std::pair<const LoadedPlugin*, const LoadedPlugin*>> reloaded;  // (before, after)
    const auto old_plugins = plugins_by_manifest(old_snapshot);
    const auto new_plugins = plugins_by_manifest(new_snapshot);
    for (const auto& [file, after] : new_plugins) {
        auto it = old_plugins.find(file);
        if (it == old_plugins.end()) {
            change.added_plugins.push_back(describe(nullptr, after));
            add_unit(change.units, file);
        } else if (it->second != after) {
            reloaded.emplace_back(it->second, after);
            add_unit(change.units, file);
        }
    }
    for (const auto& [file, before] : old_plugins) {
        if (!new_plugins.count(file)) {
            change.removed_plugins.push_back(describe(before, nullptr));
            add_unit(change.units, file);
        }
    }

    const auto old_skills = skills_by_id(old_snapshot);
    const auto new_skills = skills_by_id(new_snapshot);
    std::set<const LoadedPlugin*> plugins_with_updated_skills;
    for (const auto& [id, after] : new_skills) {
        auto it = old_skills.find(id);
        if (it == old_skills.end()) {
            change.added_skills.push_back(id);
        } else if (it->second != after && (code_differs(*it->second, *after, code_identity) ||
                                           described(old_snapshot, id) != described(new_snapshot, id))) {
            change.updated_skills.push_back(id);
            plugins_with_updated_skills.insert(after);
        }
    }
    for (const auto& [id, before] : old_skills) {
        if (!new_skills.count(id)) change.removed_skills.push_back(id);
    }

    // A reloaded plugin is an update only when something about it (or one of its skills) changed.
    for (const auto& [before, after] : reloaded) {
        if (plugins_with_updated_skills.count(after) || plugin_differs(*before, *after, code_identity))
            change.updated_plugins.push_back(describe(before, after));
    }

    std::set<std::tuple<const std::filesystem::path&, const std::string&, const std::string&>> old_failures;
    std::set<std::filesystem::path> new_failure_files;
    for (const auto& f : old_snapshot.failures()) old_failures.insert(failure_key(f));
    for (const auto& f : new_snapshot.failures()) {
        new_failure_files.insert(f.manifest_file);
        if (!old_failures.count(failure_key(f))) {
            change.new_failures.push_back(f);
            add_unit(change.units, f.manifest_file);
        }
    }
    for (const auto& f : old_snapshot.failures()) {
        if (!new_failure_files.count(f.manifest_file) &&
            std::find(change.cleared_failures.begin(), change.cleared_failures.end(), f.manifest_file) ==
                change.cleared_failures.end()) {
            change.cleared_failures.push_back(f.manifest_file);
            add_unit(change.units, f.manifest_file);
        }
    }
    return change;
}

std::string format_change_line(const CatalogChange& change) {
    std::string line =
        "catalog v" + std::to_string(change.old_version) + " -> v" + std::to_string(change.new_version) + ":";
    std::vector<std::string> parts;
    for (const auto& p : change.added_plugins) parts.push_back("added plugin " + p.name + " " + p.new_version);
    for (const auto& p : change.updated_plugins)
        parts.push_back("updated plugin " + p.name + " " +
                        (p.old_version == p.new_version ? p.new_version : p.old_version + " -> " + p.new_version));
    for (const auto& p : change.removed_plugins) parts.push_back("removed plugin " + p.name + " " + p.old_version);
    if (!change.added_skills.empty()) parts.push_back("skills added: " + join_limited(change.added_skills, 8));
    if (!change.updated_skills.empty()) parts.push_back("skills updated: " + join_limited(change.updated_skills, 8));
    if (!change.removed_skills.empty()) parts.push_back("skills removed: " + join_limited(change.removed_skills, 8));
    for (const auto& f : change.new_failures) {
        parts.push_back("failed: " + f.manifest_file.filename().string() + " " + f.error.code + ": " + f.error.message);
    }
    for (const auto& file : change.cleared_failures) parts.push_back("recovered: " + file.filename().string());
    if (parts.empty()) parts.push_back("no visible change");
    for (std::size_t i = 0; i < parts.size(); ++i) line += (i ? "; " : " ") + parts[i];
    return line;
}

boost::json::object failure_to_json(const PluginFailure& failure) {
    boost::json::object out;
    out["manifest"] = failure.manifest_file.string();
    out["plugin"] = failure.plugin_name;
    out["error"] = failure.error.to_json();
    return out;
}

boost::json::object change_to_json(const CatalogChange& change) {
    auto strings = [](const std::vector<std::string>& items) {
        boost::json::array out;
        for (const auto& s : items) out.emplace_back(s);
        return out;
    };
    auto plugins = [](const std::vector<PluginChange>& items, bool with_old, bool with_new) {
        boost::json::array out;
        for (const auto& p : items) {
            boost::json::object o;
            o["name"] = p.name;
            if (with_old && with_new) {
                o["old_version"] = p.old_version;
                o["new_version"] = p.new_version;
            } else {
                o["version"] = with_new ? p.new_version : p.old_version;
            }
            o["manifest"] = p.manifest_file.string();
            out.emplace_back(std::move(o));
        }
        return out;
    };
    boost::json::object out;
    out["old_version"] = change.old_version;
    out["new_version"] = change.new_version;
    out["trigger"] = change.trigger;
    boost::json::array units;
    for (const auto& u : change.units) units.emplace_back(u.string());
    out["units"] = std::move(units);
    out["skills"] = boost::json::object{{"added", strings(change.added_skills)},
                                        {"removed", strings(change.removed_skills)},
                                        {"updated", strings(change.updated_skills)}};
    out["plugins"] = boost::json::object{{"added", plugins(change.added_plugins, false, true)},
                                         {"removed", plugins(change.removed_plugins, true, false)},
                                         {"updated", plugins(change.updated_plugins, true, true)}};
    boost::json::array new_failures;
    for (const auto& f : change.new_failures) new_failures.emplace_back(failure_to_json(f));
    boost::json::array cleared;
    for (const auto& f : change.cleared_failures) cleared.emplace_back(f.string());
    out["failures"] = boost::json::object{{"new", std::move(new_failures)}, {"cleared", std::move(cleared)}};
    return out;
}

}  // namespace skillhost::reload
