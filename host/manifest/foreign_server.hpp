// A foreign MCP server declaration: one YAML file (`kind: mcp_server`) beside the native plugin
// manifests of a plugin directory, naming a third-party MCP server, how to start or reach it, and
// what the host makes of its tools (defaults, include/exclude, per-tool overrides). The server's
// own tool list and schemas are only known once it runs; this file says what is known before.
#pragma once

#include "base/error.hpp"
#include "manifest/manifest.hpp"
#include "manifest/skill_spec.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace skillhost::manifest {

enum class ForeignTransport { stdio, streamable_http };
std::string_view to_string(ForeignTransport);

// What the declaration says about one upstream tool (`skills:` entry, keyed by the tool's name);
// an unset field keeps the server's defaults.
struct ToolOverride {
    std::string tool;  // the upstream tool's name
    std::optional<std::string> title, description, category;
    std::optional<Risk> risk;
    std::optional<Cost> cost;
    std::optional<TrustLevel> min_trust;
    std::optional<bool> requires_approval;
    std::optional<Annotations> annotations;
    std::optional<std::uint32_t> timeout_ms;
    std::optional<Concurrency> concurrency;
    std::vector<std::string> path_inputs;  // "name" or "name[]" (every element of array input `name`)
    std::vector<ErrorHint> error_hints;
    SourcePosition position;
};

// What a tool without an override gets (`defaults:`): a foreign tool is distrusted until said otherwise.
struct ToolDefaults {
    Risk risk = Risk::high;
    Cost cost = Cost::cheap;
    TrustLevel min_trust = TrustLevel::supervised_auto;
    bool requires_approval = true;
    std::uint32_t timeout_ms = 30000;
    Concurrency concurrency = Concurrency::parallel;
    bool trust_upstream_annotations = false;  // believe the server's own readOnlyHint etc.
};

// The npm package the server runs, pinned to one exact version and its lockfile integrity;
// installed by `skillhost plugin install` and verified at every load (plugin/foreign_package.hpp).
struct ForeignPackage {
    std::string npm;
    std::string version;
    std::string integrity;  // "sha512-<base64>"
};

// A per-user secret injected into the server: into environment variable `env` (stdio) or header
// `header` (streamable_http), exactly one of them set, as `format` with "{value}" replaced.
struct ForeignSecret {
    std::string name;  // the name the user's secret is stored under
    std::string env;
    std::string header;
    std::string format = "{value}";
};

// How skillhost authorizes with a streamable_http server that asks for OAuth (oauth/): what is
// known before the server is asked. Everything else (its authorization server, the scopes it
// needs, a dynamic registration) is discovered; each user authorizes once (`skillhost oauth login`).
struct ForeignOAuth {
    std::string client_id;            // registered beforehand with the authorization server ("": none)
    std::string client_secret;        // the name of the user's secret holding its secret ("": a public client)
    std::string client_metadata_url;  // an HTTPS client ID metadata document ("": none published)
    std::string scope;                // asked when neither the server nor its metadata names one
    std::uint16_t redirect_port = 0;  // the loopback port `oauth login` listens on (0: any free one)
    bool client_credentials = false;  // grant: client_credentials (no user; needs client_id and its secret)
};

struct ForeignLimits {
    std::uint32_t startup_timeout_ms = 10000;
    std::uint64_t max_message_bytes = 4u << 20;
    std::uint32_t max_tools = 1000;
};

struct ForeignServer {
    std::string name, version, description;
    ForeignTransport transport = ForeignTransport::stdio;
    // stdio: the program (a path or a bare name; no shell), its arguments, environment and directory.
    // In args, env values and working_directory, ${data_dir} is the user's data directory for this
    // server (writable, its HOME) and ${workspace} the user's workspace; the process that lists the
    // tools at load has no user and gets an empty temporary directory for both. ${package} (only
    // with `package:`) is the installed package's directory, <install>/node_modules/<npm>
    // (plugin/foreign_package.hpp).
    std::string command;
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;
    std::string working_directory;
    // What the sandbox lets the server read and execute besides the system directories (/usr, /lib,
    // /opt) and its program's directory: its package. Absolute (relative ones are resolved against
    // the declaration's directory when read).
    std::vector<std::filesystem::path> files;
    // streamable_http: the endpoint and extra request headers.
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::optional<ForeignPackage> package;
    std::vector<ForeignSecret> secrets;
    std::optional<ForeignOAuth> oauth;  // streamable_http only
    Permissions permissions;
    ToolDefaults defaults;
    std::vector<std::string> include, exclude;  // globs on upstream tool names (base/glob.hpp)
    ForeignLimits limits;
    std::vector<ToolOverride> skills;
    std::filesystem::path file;  // the declaration file this was read from

    const ToolOverride* override_for(std::string_view tool) const;
    // include/exclude applied to an upstream tool name (no include list = every tool; exclude wins).
    bool offers(std::string_view tool) const;
};

// Parses and validates a declaration (MANIFEST_INVALID with details.problems, like parse_manifest).
Result<ForeignServer> parse_foreign_server(std::string_view yaml_text, const std::filesystem::path& file);
Result<ForeignServer> load_foreign_server(const std::filesystem::path& file);

// One file of a plugin directory: a native plugin manifest or a foreign server declaration.
using PluginDeclaration = std::variant<Manifest, ForeignServer>;
// Reads the file once, decides by the top-level `kind` (absent = native manifest, `mcp_server` =
// foreign server, anything else = MANIFEST_INVALID naming the allowed kinds) and parses it with the
// matching parser. File-reading errors as load_manifest gives them.
Result<PluginDeclaration> load_plugin_declaration(const std::filesystem::path& file);
Result<PluginDeclaration> parse_plugin_declaration(std::string_view yaml_text, const std::filesystem::path& file);

}  // namespace skillhost::manifest
