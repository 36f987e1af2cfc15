// What a manifest says about one skill.
#pragma once

#include "manifest/schema.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillhost::manifest {

enum class Risk { low, medium, high };
enum class Cost { free, cheap, expensive };
// The trust ladder, lowest first. Order matters: comparisons use it.
enum class TrustLevel { observe, suggest, supervised_auto, bounded_auto, adaptive_auto };
enum class Concurrency { parallel, serial };

const char* to_string(Risk);
const char* to_string(Cost);
const char* to_string(TrustLevel);
const char* to_string(Concurrency);
std::optional<Risk> parse_risk(std::string_view);
std::optional<Cost> parse_cost(std::string_view);
std::optional<TrustLevel> parse_trust_level(std::string_view);
std::optional<Concurrency> parse_concurrency(std::string_view);

struct Annotations {
    bool read_only = false;
    bool destructive = false;
    bool idempotent = false;
    bool open_world = false;
};

// Error code -> what the planner or user should try when that error happens.
struct ErrorHint {
    std::string code;
    std::vector<std::string> suggestions;
};

struct Example {
    std::string description;
    boost::json::object args;
};

struct SourcePosition {
    int line = 0;    // 1-based; 0 when unknown
    int column = 0;  // 1-based
};

// A tool of a foreign MCP server as that server defines it (manifest/foreign_server.hpp): what
// clients are shown and what is pinned, beside the SkillSpec the host derives from it.
struct ForeignTool {
    std::string server;  // the declaration's name
    std::string tool;    // the upstream tool's name (the skill id is SERVER__TOOL)
    boost::json::object input_schema;
    std::optional<boost::json::object> output_schema;
    boost::json::object annotations;  // as the server claims them; used only when the declaration trusts them
    std::string definition_hash;      // of the definition shown (upstream::definition_hash): what an approval is for
};

struct SkillSpec {
    std::string id;
    std::string title;
    std::string description;
    std::string category;
    Schema inputs;   // always an object schema
    Schema outputs;  // usually an object schema; `any` when the manifest gives none
    Risk risk = Risk::medium;
    Cost cost = Cost::cheap;
    TrustLevel min_trust = TrustLevel::observe;
    bool requires_approval = false;
    Annotations annotations;
    std::uint32_t timeout_ms = 30000;
    Concurrency concurrency = Concurrency::parallel;
    std::vector<std::string> path_inputs;  // names of inputs that are filesystem paths
    std::vector<ErrorHint> error_hints;
    std::vector<Example> examples;
    SourcePosition position;  // where the skill is declared in its manifest
    // Set for a foreign server's tool: its definition as the server gave it; null for native skills.
    std::shared_ptr<const ForeignTool> foreign;

    const ErrorHint* hint_for(std::string_view code) const;
};

}  // namespace skillhost::manifest
