#include "manifest/foreign_server.hpp"

#include "base/glob.hpp"
#include "manifest/foreign_server_credentials.hpp"
#include "manifest/identifier_text.hpp"
#include "manifest/manifest_document.hpp"
#include "manifest/skill_reader.hpp"
#include "manifest/yaml_field.hpp"

#include <algorithm>
#include <array>

namespace skillhost::manifest {

std::string_view to_string(ForeignTransport transport) {
    return transport == ForeignTransport::streamable_http ? "streamable_http" : "stdio";
}

const ToolOverride* ForeignServer::override_for(std::string_view tool) const {
    for (const auto& entry : skills) {
        if (entry.tool == tool) return &entry;
    }
    return nullptr;
}

bool ForeignServer::offers(std::string_view tool) const {
    auto any_matches = [tool](const std::vector<std::string>& globs) {
        return std::any_of(globs.begin(), globs.end(),
                           [tool](const std::string& glob) { return glob_match(glob, tool); });
    };
    if (!include.empty() && !any_matches(include)) return false;
    return !any_matches(exclude);
}

namespace {

using namespace detail;

constexpr std::string_view kForeignKind = "mcp_server";
constexpr std::array<std::string_view, 1> kKinds = {kForeignKind};
constexpr std::array<std::string_view, 21> kServerKeys = {
    "kind",    "name",    "version", "description", "transport", "command", "args",        "working_directory",
    "env",     "files",   "url",     "headers",     "package",   "secrets", "permissions", "defaults",
    "include", "exclude", "limits",  "skills",      "oauth"};
constexpr std::array<std::string_view, 2> kTransportNames = {"stdio", "streamable_http"};
constexpr std::array<std::string_view, 5> kStdioKeys = {"command", "args", "working_directory", "env", "files"};
// What `${...}` may name in args, env values and working_directory (foreign_server.hpp).
// ${package} only when the declaration has `package:` (the installed package's directory).
constexpr std::array<std::string_view, 3> kPlaceholders = {"data_dir", "workspace", "package"};
constexpr std::string_view kPackagePlaceholder = "package";
constexpr std::array<std::string_view, 2> kHttpKeys = {"url", "headers"};
constexpr std::array<std::string_view, 3> kPackageKeys = {"npm", "version", "integrity"};
constexpr std::array<std::string_view, 7> kDefaultsKeys = {
    "risk", "cost", "min_trust", "requires_approval", "timeout_ms", "concurrency", "trust_upstream_annotations"};
constexpr std::array<std::string_view, 3> kLimitKeys = {"startup_timeout_ms", "max_message_bytes", "max_tools"};
// A native skill's keys less inputs, outputs and examples, which the server's tools/list gives.
constexpr std::array<std::string_view, 13> kOverrideKeys = {
    "id",          "title",      "description", "category",    "risk",       "cost", "min_trust", "requires_approval",
    "annotations", "timeout_ms", "concurrency", "path_inputs", "error_hints"};
constexpr std::array<std::string_view, 3> kUpstreamKeys = {"inputs", "outputs", "examples"};
// Programs that download and run a package at start-up: what runs would change under the host.
constexpr std::array<std::string_view, 5> kRuntimeFetchers = {"npx", "npm", "pnpm", "yarn", "bunx"};

constexpr std::size_t kMaxServerName = 64;

// A string that a program receives (argument, variable, directory): any text but a NUL.
// `package_declared`: the declaration has `package:`, so ${package} has a value.
std::optional<std::string> read_program_string(const Field& field, bool package_declared, ProblemList& problems) {
    auto text = read_string(field, problems);
    if (!text) return std::nullopt;
    if (has_nul(*text)) {
        problems.add(field, "must not contain a NUL character; a program cannot receive one");
        return std::nullopt;
    }
    // Every ${...} names a placeholder the host fills in (one pass, no nesting).
    for (std::size_t at = text->find("${"); at != std::string::npos; at = text->find("${", at + 2)) {
        const std::size_t end = text->find('}', at + 2);
        const std::string name = end == std::string::npos ? std::string() : text->substr(at + 2, end - at - 2);
        if (std::find(kPlaceholders.begin(), kPlaceholders.end(), name) == kPlaceholders.end()) {
            problems.add(field, "unknown placeholder \"" +
                                    text->substr(at, end == std::string::npos ? 2 : end - at + 1) + "\"" +
                                    did_you_mean(name, kPlaceholders) +
                                    "; the host fills in ${data_dir} (the user's data directory for this server) "
                                    "and ${workspace} (the user's workspace), and with package: ${package} (the "
                                    "installed package's directory)");
            return std::nullopt;
        }
        if (name == kPackagePlaceholder && !package_declared) {
            problems.add(field,
                         "${package} is the directory of the installed package, and this declaration has no "
                         "package: declare it (package: {npm: NAME, version: EXACT, integrity: sha512-...}) and "
                         "install it with `skillhost plugin install FILE`, or give the path without ${package}");
            return std::nullopt;
        }
    }
    return text;
}

// `kind`: true when it names a foreign server declaration; otherwise a problem naming the kinds.
bool read_kind(const Field& field, ProblemList& problems) {
    auto text = read_string(field, problems);
    if (!text) return false;
    if (*text == kForeignKind) return true;
    problems.add(field, "unknown kind \"" + *text + "\"" + did_you_mean(*text, kKinds) +
                            "; the kinds are mcp_server (a foreign MCP server declaration), or no kind at all for a "
                            "native plugin manifest");
    return false;
}

std::optional<std::string> check_server_name(const std::string& name) {
    if (!is_plugin_name(name)) {
        return "invalid server name \"" + name +
               "\"; expected a lowercase letter followed by lowercase letters, digits, _ or - "
               "(pattern ^[a-z][a-z0-9_-]*$)";
    }
    if (name.size() > kMaxServerName) {
        return "the name is " + std::to_string(name.size()) + " characters long; use at most " +
               std::to_string(kMaxServerName);
    }
    if (name.find("__") != std::string::npos) {
        return "invalid server name \"" + name +
               "\": \"__\" is reserved (the server's tools are named NAME__tool); use a single _ or - instead";
    }
    return std::nullopt;
}

std::optional<std::string> check_tool_name(const std::string& name) {
    if (is_tool_name(name)) return std::nullopt;
    return "invalid tool name \"" + name +
           "\"; expected the name the server lists the tool under: 1 to 128 letters, digits, _, . or -";
}

std::optional<std::string> check_npm_name(const std::string& name) {
    if (is_npm_name(name)) return std::nullopt;
    return "invalid npm package name \"" + name +
           "\"; expected name or @scope/name in lowercase, e.g. @modelcontextprotocol/server-everything";
}

std::optional<std::string> check_exact_version(const std::string& version) {
    if (is_exact_version(version)) return std::nullopt;
    const bool range = version.find_first_of("^~*xX<>=| ") != std::string::npos;
    return "\"" + version + "\" is " + (range ? "a version range" : "not an exact version") +
           "; pin the one installed version: digits and dots with an optional -prerelease, e.g. \"2026.8.31\" or "
           "\"1.0.0-beta.2\" (no ranges or tags)";
}

std::optional<std::string> check_integrity(const std::string& integrity) {
    if (is_sha512_integrity(integrity)) return std::nullopt;
    return "expected \"sha512-\" followed by base64, as in package-lock.json (npm view <package>@<version> "
           "dist.integrity), got \"" +
           integrity + "\"";
}

std::optional<ForeignTransport> read_transport(const FieldMap& map, ProblemList& problems) {
    const Field* field = required_field(map, "transport",
                                        "say how the host reaches the server: stdio (it starts a program) or "
                                        "streamable_http (it connects to a URL)",
                                        problems);
    if (field == nullptr) return std::nullopt;
    auto choice = read_choice(*field, KeyList(kTransportNames), problems);
    if (!choice) return std::nullopt;
    return *choice == "stdio" ? ForeignTransport::stdio : ForeignTransport::streamable_http;
}

void read_command(const Field& field, ForeignServer& server, ProblemList& problems) {
    auto text = read_string(field, problems);
    if (!text) return;
    if (text->find_first_not_of(" \t") == std::string::npos) {
        problems.add(field, "must not be empty; give the program's path or name, e.g. /usr/bin/node");
        return;
    }
    if (has_nul_or_line_break(*text)) {
        problems.add(field,
                     "must not contain a NUL or a line break; give one program (no shell runs it: arguments go "
                     "under args)");
        return;
    }
    const std::size_t slash = text->rfind('/');
    const std::string program = slash == std::string::npos ? *text : text->substr(slash + 1);
    if (std::find(kRuntimeFetchers.begin(), kRuntimeFetchers.end(), program) != kRuntimeFetchers.end()) {
        problems.add(field, "'" + program +
                                "' fetches packages at run time, which is not allowed: install the package once "
                                "(pinned under package:) and run its entry point with node, e.g. command: node, "
                                "args: [/opt/servers/node_modules/<package>/dist/index.js]");
        return;
    }
    server.command = std::move(*text);
}

void read_args(const Field& field, bool package_declared, ForeignServer& server, ProblemList& problems) {
    auto items = read_list(field, problems);
    if (!items) return;
    for (const Field& item : *items) {
        if (auto text = read_program_string(item, package_declared, problems)) server.args.push_back(std::move(*text));
    }
}

// `files`: what the server reads besides the system directories (its package, an interpreter
// outside /usr), read-only and executable in its sandbox.
void read_files(const Field& field, bool package_declared, ForeignServer& server, ProblemList& problems) {
    auto items = read_list(field, problems);
    if (!items) return;
    for (const Field& item : *items) {
        auto text = read_program_string(item, package_declared, problems);
        if (!text) continue;
        const std::filesystem::path path = std::filesystem::path(*text).lexically_normal();
        if (text->empty() || path == "/" || text->find("${") != std::string::npos) {
            problems.add(item,
                         "must be a file or directory other than / (and without placeholders): the server's "
                         "package, e.g. node_modules/@scope/server");
            continue;
        }
        server.files.push_back(path.is_relative() ? server.file.parent_path() / path : path);
    }
}

void read_env(const Field& field, bool package_declared, ForeignServer& server, ProblemList& problems) {
    auto map = FieldMap::read(field, std::nullopt, problems);
    if (!map) return;
    for (const auto& [name, entry] : map->entries()) {
        if (!is_variable_name(name)) {
            problems.add(entry, "invalid environment variable name '" + name + "'; use " + kVariableShape);
            continue;
        }
        if (auto value = read_program_string(entry, package_declared, problems))
            server.env.emplace_back(name, std::move(*value));
    }
}

void read_url(const Field& field, ForeignServer& server, ProblemList& problems) {
    auto text = read_string(field, problems);
    if (!text) return;
    const std::size_t host = text->starts_with("https://") ? 8 : text->starts_with("http://") ? 7 : 0;
    if (host == 0 || text->size() == host ||
        text->find_first_of(std::string_view(" \t\r\n\0", 5)) != std::string::npos) {
        problems.add(
            field, "expected an http:// or https:// URL such as https://example.com/mcp, got " + describe(field.value));
        return;
    }
    server.url = std::move(*text);
}

void read_headers(const Field& field, ForeignServer& server, ProblemList& problems) {
    auto map = FieldMap::read(field, std::nullopt, problems);
    if (!map) return;
    for (const auto& [name, entry] : map->entries()) {
        if (!is_header_name(name)) {
            problems.add(entry, "invalid header name '" + name + "'; use " + kHeaderShape);
            continue;
        }
        auto value = read_string(entry, problems);
        if (!value) continue;
        if (has_nul_or_line_break(*value)) {
            problems.add(entry, "must not contain a NUL or a line break; a header value is one line");
            continue;
        }
        server.headers.emplace_back(name, std::move(*value));
    }
}

// The fields of one transport: read when they fit the transport (or it is not known), else a problem.
void read_transport_fields(const FieldMap& map, std::optional<ForeignTransport> transport, ForeignServer& server,
                           ProblemList& problems) {
    const bool package_declared = map.find("package") != nullptr;
    auto misplaced = [&](const Field& field, std::string_view key, ForeignTransport belongs_to) {
        if (!transport || *transport == belongs_to) return false;
        problems.add(field, "'" + std::string(key) + "' is for transport " + std::string(to_string(belongs_to)) +
                                ", and this server's transport is " + std::string(to_string(*transport)) +
                                "; remove it, or set transport: " + std::string(to_string(belongs_to)));
        return true;
    };
    for (std::string_view key : kStdioKeys) {
        const Field* field = map.find(key);
        if (field == nullptr || misplaced(*field, key, ForeignTransport::stdio)) continue;
        if (key == "command") read_command(*field, server, problems);
        if (key == "args") read_args(*field, package_declared, server, problems);
        if (key == "env") read_env(*field, package_declared, server, problems);
        if (key == "files") read_files(*field, package_declared, server, problems);
        if (key == "working_directory") {
            if (auto text = read_program_string(*field, package_declared, problems))
                server.working_directory = std::move(*text);
        }
    }
    for (std::string_view key : kHttpKeys) {
        const Field* field = map.find(key);
        if (field == nullptr || misplaced(*field, key, ForeignTransport::streamable_http)) continue;
        if (key == "url") read_url(*field, server, problems);
        if (key == "headers") read_headers(*field, server, problems);
    }
    if (transport == ForeignTransport::stdio) {
        required_field(map, "command",
                       "transport stdio starts a program: give its path or name, e.g. /usr/bin/node (no shell runs it)",
                       problems);
    } else if (transport == ForeignTransport::streamable_http) {
        required_field(map, "url",
                       "transport streamable_http connects to the server: give its URL, e.g. "
                       "https://example.com/mcp",
                       problems);
    }
}

void read_package(const Field& field, ForeignServer& server, ProblemList& problems) {
    auto map = FieldMap::read(field, KeyList(kPackageKeys), problems);
    if (!map) return;
    auto npm = read_checked(*map, "npm", "give the npm package the server runs", check_npm_name, problems);
    auto version = read_checked(*map, "version", "pin the exact version that is installed, e.g. \"2026.8.31\"",
                                check_exact_version, problems);
    auto integrity = read_checked(*map, "integrity", "give the package's sha512 integrity from package-lock.json",
                                  check_integrity, problems);
    if (npm && version && integrity) {
        server.package = ForeignPackage{std::move(*npm), std::move(*version), std::move(*integrity)};
    }
}

void read_defaults(const Field& field, ToolDefaults& defaults, ProblemList& problems) {
    auto map = FieldMap::read(field, KeyList(kDefaultsKeys), problems);
    if (!map) return;
    apply_behaviour(read_skill_traits(*map, problems), defaults);
    if (const Field* trust = map->find("trust_upstream_annotations")) {
        if (auto value = read_bool(*trust, problems)) defaults.trust_upstream_annotations = *value;
    }
}

// A glob or a list of globs on upstream tool names.
void read_globs(const Field& field, std::vector<std::string>& globs, ProblemList& problems) {
    std::vector<Field> items;
    if (field.value.IsScalar()) {
        items.push_back(field);
    } else if (auto list = read_list(field, problems)) {
        items = std::move(*list);
    } else {
        return;
    }
    for (const Field& item : items) {
        auto text = read_string(item, problems);
        if (text && text->empty()) {
            problems.add(item, "must not be empty; give a glob on tool names such as read_*");
        } else if (text) {
            globs.push_back(std::move(*text));
        }
    }
}

void read_limits(const Field& field, ForeignLimits& limits, ProblemList& problems) {
    auto map = FieldMap::read(field, KeyList(kLimitKeys), problems);
    if (!map) return;
    if (const Field* startup = map->find("startup_timeout_ms")) {
        if (auto value = read_integer(*startup, 100, 600'000, problems)) {
            limits.startup_timeout_ms = static_cast<std::uint32_t>(*value);
        }
    }
    if (const Field* bytes = map->find("max_message_bytes")) {
        if (auto value = read_integer(*bytes, 1024, 268'435'456, problems)) {
            limits.max_message_bytes = static_cast<std::uint64_t>(*value);
        }
    }
    if (const Field* tools = map->find("max_tools")) {
        if (auto value = read_integer(*tools, 1, 100'000, problems))
            limits.max_tools = static_cast<std::uint32_t>(*value);
    }
}

// The upstream schema is not known before the server runs, so only the shape of each name is checked.
std::optional<std::string> check_path_input(const std::string& name) {
    const std::string_view input =
        name.ends_with("[]") ? std::string_view(name).substr(0, name.size() - 2) : std::string_view(name);
    if (is_variable_name(input)) return std::nullopt;
    return "invalid path input \"" + name + "\"; give an input's name (" + kVariableShape +
           "), or name[] for every element of array input name";
}

// The entry's keys, as FieldMap::read checks them, except that inputs, outputs and examples are
// named as what the server gives rather than as unknown keys.
std::optional<FieldMap> read_override_keys(const Field& item, ProblemList& problems) {
    ProblemList found("");
    auto map = FieldMap::read(item, KeyList(kOverrideKeys), found);
    for (const ManifestProblem& problem : found.sorted()) {
        const SourcePosition at{problem.line, problem.column};
        const bool upstream = std::any_of(kUpstreamKeys.begin(), kUpstreamKeys.end(), [&](std::string_view key) {
            return problem.field == item.path + "." + std::string(key) &&
                   problem.message.starts_with("unknown key '" + std::string(key) + "'");
        });
        if (upstream) {
            const std::string key = problem.field.substr(item.path.size() + 1);
            problems.add(at, problem.field,
                         "'" + key +
                             "' comes from the server (its tools/list), not from this file; remove it (an "
                             "override may set title, description, category, risk, cost, min_trust, "
                             "requires_approval, annotations, timeout_ms, concurrency, path_inputs, error_hints)");
        } else {
            problems.add(at, problem.field, problem.message);
        }
    }
    return map;
}

std::optional<ToolOverride> read_override(const Field& item, ProblemList& problems) {
    auto map = read_override_keys(item, problems);
    if (!map) return std::nullopt;
    ToolOverride tool = read_skill_traits(*map, problems);
    tool.position = item.at;
    auto id =
        read_checked(*map, "id", "give the upstream tool's name, as the server lists it", check_tool_name, problems);
    if (id) tool.tool = std::move(*id);
    if (const Field* paths = map->find("path_inputs")) {
        read_path_inputs(*paths, tool.path_inputs, check_path_input, problems);
    }
    return tool;
}

void read_overrides(const Field& field, ForeignServer& server, ProblemList& problems) {
    auto items = read_list(field, problems);
    if (!items) return;
    read_unique_entries(
        *items, server.skills, read_override, [](const ToolOverride& tool) -> const std::string& { return tool.tool; },
        "tool", "list each tool once", problems);
}

void read_foreign_server(const Field& root, ForeignServer& server, ProblemList& problems) {
    if (root.value.IsNull() || !root.value.IsDefined()) {
        problems.add(root, "the declaration is empty; expected a mapping with keys " + join(kServerKeys));
        return;
    }
    auto map = FieldMap::read(root, KeyList(kServerKeys), problems);
    if (!map) return;
    if (const Field* kind =
            required_field(*map, "kind", "a foreign server declaration starts with kind: mcp_server", problems)) {
        read_kind(*kind, problems);
    }
    auto name = read_checked(*map, "name", "give the server a name like everything (lowercase letters, digits, _ or -)",
                             check_server_name, problems);
    if (name) server.name = std::move(*name);
    if (const Field* version = map->find("version")) {
        if (auto text = read_string(*version, problems)) server.version = std::move(*text);
    }
    if (const Field* description = map->find("description")) {
        if (auto text = read_string(*description, problems)) server.description = std::move(*text);
    }
    const auto transport = read_transport(*map, problems);
    if (transport) server.transport = *transport;
    read_transport_fields(*map, transport, server, problems);
    if (const Field* package = map->find("package")) read_package(*package, server, problems);
    if (const Field* secrets = map->find("secrets")) read_secrets(*secrets, transport, server, problems);
    if (const Field* oauth = map->find("oauth")) read_oauth(*oauth, transport, server, problems);
    if (const Field* permissions = map->find("permissions"))
        read_permissions(*permissions, server.permissions, problems);
    if (const Field* defaults = map->find("defaults")) read_defaults(*defaults, server.defaults, problems);
    if (const Field* include = map->find("include")) {
        read_globs(*include, server.include, problems);
        if (include->value.IsSequence() && include->value.size() == 0) {
            problems.add(*include,
                         "the list is empty, so no tool would be offered; list globs such as read_*, or "
                         "remove include to offer every tool");
        }
    }
    if (const Field* exclude = map->find("exclude")) read_globs(*exclude, server.exclude, problems);
    if (const Field* limits = map->find("limits")) read_limits(*limits, server.limits, problems);
    if (const Field* skills = map->find("skills")) read_overrides(*skills, server, problems);
}

// The top-level `kind`, if the document is a mapping that has one. Other problems with the mapping
// are left to the parser that reads it.
std::optional<Field> find_kind(const Field& root) {
    ProblemList ignored("");
    auto map = FieldMap::read(root, std::nullopt, ignored);
    if (!map || map->find("kind") == nullptr) return std::nullopt;
    return *map->find("kind");
}

}  // namespace

Result<ForeignServer> parse_foreign_server(std::string_view yaml_text, const std::filesystem::path& file) {
    return parse_document<ForeignServer>(yaml_text, file, filled_by(read_foreign_server, file));
}

Result<ForeignServer> load_foreign_server(const std::filesystem::path& file) {
    return load_document(file, &parse_foreign_server);
}

Result<PluginDeclaration> parse_plugin_declaration(std::string_view yaml_text, const std::filesystem::path& file) {
    auto read = [&](const Field& root, ProblemList& problems) -> std::optional<PluginDeclaration> {
        const auto kind = find_kind(root);
        if (!kind) return filled_by(read_manifest, file)(root, problems);
        if (!read_kind(*kind, problems)) return std::nullopt;
        return filled_by(read_foreign_server, file)(root, problems);
    };
    return parse_document<PluginDeclaration>(yaml_text, file, read);
}

Result<PluginDeclaration> load_plugin_declaration(const std::filesystem::path& file) {
    return load_document(file, &parse_plugin_declaration);
}

}  // namespace skillhost::manifest
