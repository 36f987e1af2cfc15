#include "catalog/catalog_snapshot.hpp"
#include "catalog/error_codes.hpp"

#include "catalog/catalog_render.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <unordered_set>

namespace skillhost::catalog {

namespace {

plugin::PluginFailure duplicate_failure(const plugin::LoadedPlugin& loser, const std::string& skill_id,
                                        const std::string& owner) {
    const auto& m = loser.manifest();
    Error error{errors::kDuplicateSkill,
                "plugin " + m.name + " declares skill \"" + skill_id + "\", which plugin " + owner +
                    " already provides; rename the skill in one of the two manifests (the later plugin is "
                    "not loaded)"};
    error.details["skill"] = skill_id;
    error.details["plugin"] = m.name;
    error.details["already_provided_by"] = owner;
    error.details["manifest"] = m.file.string();
    return plugin::PluginFailure{m.file, m.name, std::move(error)};
}

}  // namespace

CatalogSnapshot::CatalogSnapshot(std::uint64_t version, std::vector<std::shared_ptr<plugin::LoadedPlugin>> plugins,
                                 std::vector<plugin::PluginFailure> failures)
    : version_(version), failures_(std::move(failures)) {
    std::unordered_map<std::string_view, const std::string*> owner;  // skill id -> plugin name
    for (auto& loaded : plugins) {
        if (!loaded) continue;
        const auto& m = loaded->manifest();
        // A plugin contributes all of its skills or none, so a clash never leaves half a plugin.
        std::unordered_set<std::string_view> own;
        const std::string* clash = nullptr;
        std::string clash_owner;
        for (const auto& spec : m.skills) {
            if (auto it = owner.find(spec.id); it != owner.end()) {
                clash = &spec.id;
                clash_owner = *it->second;
                break;
            }
            if (!own.insert(spec.id).second) {
                clash = &spec.id;
                clash_owner = m.name;
                break;
            }
        }
        if (clash) {
            failures_.push_back(duplicate_failure(*loaded, *clash, clash_owner));
            continue;
        }
        for (const auto& spec : m.skills) {
            owner.emplace(spec.id, &m.name);
            entries_.push_back(CatalogEntry{&spec, loaded});
        }
        plugins_.push_back(std::move(loaded));
    }
    std::sort(entries_.begin(), entries_.end(),
              [](const CatalogEntry& a, const CatalogEntry& b) { return a.spec->id < b.spec->id; });
    index_.reserve(entries_.size());
    for (std::size_t i = 0; i < entries_.size(); ++i) index_.emplace(entries_[i].spec->id, i);
}

const CatalogEntry* CatalogSnapshot::find(std::string_view skill_id) const {
    auto it = index_.find(skill_id);
    return it == index_.end() ? nullptr : &entries_[it->second];
}

const std::string& CatalogSnapshot::render(RenderFormat format) const {
    std::lock_guard lock(render_mutex_);
    const int key = static_cast<int>(format);
    if (auto it = rendered_.find(key); it != rendered_.end()) return it->second;
    std::string text = render_catalog(all_entries(*this), format);
    // unordered_map nodes never move, so the reference stays valid for the snapshot's lifetime.
    return rendered_.emplace(key, std::move(text)).first->second;
}

}  // namespace skillhost::catalog
