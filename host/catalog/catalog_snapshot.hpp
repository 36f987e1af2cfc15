// An immutable snapshot of every loaded skill, with a version number. Readers hold a
// shared_ptr<const CatalogSnapshot>; a reload builds a new snapshot on the side and swaps it in.
#pragma once

#include "manifest/skill_spec.hpp"
#include "plugin/loaded_plugin.hpp"
#include "plugin/plugin_loader.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace skillhost::catalog {

struct CatalogEntry {
    const manifest::SkillSpec* spec = nullptr;     // points into plugin->manifest()
    std::shared_ptr<plugin::LoadedPlugin> plugin;  // keeps the library loaded
};

enum class RenderFormat { text, json, openai, mcp, table };

class CatalogSnapshot {
public:
    // Builds a snapshot. A plugin whose skill id is already taken by an earlier plugin becomes a
    // failure (DUPLICATE_SKILL naming both plugins) and contributes no skills.
    CatalogSnapshot(std::uint64_t version, std::vector<std::shared_ptr<plugin::LoadedPlugin>> plugins,
                    std::vector<plugin::PluginFailure> failures);

    std::uint64_t version() const { return version_; }
    const std::vector<CatalogEntry>& entries() const { return entries_; }  // sorted by skill id
    const std::vector<std::shared_ptr<plugin::LoadedPlugin>>& plugins() const { return plugins_; }
    const std::vector<plugin::PluginFailure>& failures() const { return failures_; }
    const CatalogEntry* find(std::string_view skill_id) const;

    // Rendered once per snapshot and format, then cached (thread-safe).
    const std::string& render(RenderFormat format) const;

private:
    std::uint64_t version_;
    std::vector<std::shared_ptr<plugin::LoadedPlugin>> plugins_;
    std::vector<plugin::PluginFailure> failures_;
    std::vector<CatalogEntry> entries_;
    std::unordered_map<std::string_view, std::size_t> index_;
    mutable std::mutex render_mutex_;
    mutable std::unordered_map<int, std::string> rendered_;
};

}  // namespace skillhost::catalog
