// Renderers for a list of catalog entries (the snapshot caches their output; the operator also
// renders filtered subsets, e.g. only what a user may call in a mode).
#pragma once

#include "catalog/catalog_snapshot.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::catalog {

// Compact text for an LLM prompt: per skill its id, description, inputs (with required markers,
// types, enums, defaults), outputs and notes (read-only, risk, approval). Descriptions are cut to
// their first sentence and string types are implied (a legend line says so) to keep the built-in
// catalog within about 2,000 tokens; the JSON formats carry everything.
std::string render_catalog_text(const std::vector<const CatalogEntry*>& entries);

// One JSON object per skill with everything the manifest says (for `catalog --format json`).
boost::json::array render_catalog_json(const std::vector<const CatalogEntry*>& entries);

// OpenAI / Ollama `tools` array: [{type:"function", function:{name, description, parameters}}].
boost::json::array render_catalog_openai(const std::vector<const CatalogEntry*>& entries);

// MCP tools/list entries: {name, title, description, inputSchema, outputSchema?, annotations}.
boost::json::object render_mcp_tool(const CatalogEntry& entry);
boost::json::array render_catalog_mcp(const std::vector<const CatalogEntry*>& entries);

// A human table: skill, plugin, version, risk, min trust, flags.
std::string render_catalog_table(const std::vector<const CatalogEntry*>& entries);

std::vector<const CatalogEntry*> all_entries(const CatalogSnapshot& snapshot);

// {catalog_version, skills: [{id, title, plugin, plugin_version, risk, min_trust, read_only,
// requires_approval}], plugins: (render_plugin_list), failures: [{manifest, plugin, error}]}:
// `skills list --json` and GET /v1/skills.
boost::json::object render_skill_list(const CatalogSnapshot& snapshot, const std::vector<const CatalogEntry*>& entries);
// The plugins of `entries`, once each: [{name, version, isolation: process|in_process, permissions:
// {workspace, network, llm, declared}, and for process plugins sandbox (what the runner enforces)
// and supervision (crashes within the quarantine window, crash_limit, window_s, runners)}].
boost::json::array render_plugin_list(const std::vector<const CatalogEntry*>& entries);
// `entries` in `format` (json formats compact).
std::string render_catalog(const std::vector<const CatalogEntry*>& entries, RenderFormat format);
// "text", "json", "openai", "mcp", "table"; nullopt for anything else.
std::optional<RenderFormat> parse_render_format(std::string_view name);

// Every plugin that failed to load: [{manifest, plugin, error}].
boost::json::array render_failures(const CatalogSnapshot& snapshot);

}  // namespace skillhost::catalog
