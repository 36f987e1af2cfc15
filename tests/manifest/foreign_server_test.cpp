// Foreign MCP server declarations (`kind: mcp_server`): every field read, the defaults, each kind of
// mistake reported with its position, field path and what to do, include/exclude, and telling a
// declaration from a native manifest.
#include "manifest/foreign_server.hpp"
#include "manifest_test_support.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace skillhost::manifest {
namespace {

Result<ForeignServer> parse(std::string_view yaml) {
    return parse_foreign_server(yaml, "server.yaml");
}

// Four lines; what a test adds starts on line 5.
const std::string kStdio = "kind: mcp_server\nname: everything\ntransport: stdio\ncommand: /usr/bin/node\n";
const std::string kHttp = "kind: mcp_server\nname: remote\ntransport: streamable_http\nurl: https://example.com/mcp\n";

// The support helpers look at a Result<Manifest>; a failure's error is the same whatever was parsed.
template <class T>
Result<Manifest> failure_of(const Result<T>& result) {
    if (result.ok()) return Manifest{};
    return result.error();
}

template <class T>
std::vector<ManifestProblem> problems_of(const Result<T>& result) {
    return testing::problems_of(failure_of(result));
}

ForeignServer parsed_ok(const Result<ForeignServer>& result) {
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
    return result.ok() ? result.value() : ForeignServer{};
}

// The one problem the text has: where, which field, and part of what it says.
template <class T>
void expect_problem(const Result<T>& result, const std::string& field, int line, int column,
                    const std::string& message_part) {
    const ManifestProblem problem = testing::only_problem(failure_of(result));
    EXPECT_EQ(std::tie(problem.field, problem.line, problem.column), std::tie(field, line, column))
        << problem.to_string();
    EXPECT_NE(problem.message.find(message_part), std::string::npos)
        << problem.to_string() << "\nexpected to contain: " << message_part;
    if (!result.ok()) {
        EXPECT_EQ(result.error().message, problem.to_string());
    }
}

TEST(ForeignServer, FullStdioDeclarationIsReadFieldByField) {
    const ForeignServer server = parsed_ok(parse(R"(kind: mcp_server
name: everything
version: 2026.8.31
description: The MCP reference server
transport: stdio
command: /usr/bin/node
args: [--stdio, /opt/servers/everything/dist/index.js]
working_directory: /srv/everything
env: {LOG_LEVEL: debug, PORT: 8080}
package:
  npm: "@modelcontextprotocol/server-everything"
  version: "2026.8.31"
  integrity: "sha512-Zm9vYmFy+/9="
secrets:
  - name: GITHUB_TOKEN
    env: GITHUB_PAT
    format: "token {value}"
permissions: {workspace: read, network: true}
defaults:
  risk: medium
  cost: free
  min_trust: bounded_auto
  requires_approval: false
  timeout_ms: 5000
  concurrency: serial
  trust_upstream_annotations: true
include: ["read_*", "list_*"]
exclude: [read_secret]
limits:
  startup_timeout_ms: 2000
  max_message_bytes: 1048576
  max_tools: 50
skills:
  - id: read_file
    title: Read a file
    description: Reads one file
    category: files
    risk: low
    cost: cheap
    min_trust: observe
    requires_approval: true
    annotations: {read_only: true, idempotent: true}
    timeout_ms: 1000
    concurrency: parallel
    path_inputs: [path, "paths[]"]
    error_hints: {NOT_FOUND: [check the path]}
  - id: list.dir-2
)"));
    EXPECT_EQ(server.name, "everything");
    EXPECT_EQ(server.version, "2026.8.31");
    EXPECT_EQ(server.description, "The MCP reference server");
    EXPECT_EQ(server.transport, ForeignTransport::stdio);
    EXPECT_EQ(to_string(server.transport), "stdio");
    EXPECT_EQ(server.command, "/usr/bin/node");
    EXPECT_EQ(server.args, (std::vector<std::string>{"--stdio", "/opt/servers/everything/dist/index.js"}));
    EXPECT_EQ(server.working_directory, "/srv/everything");
    using Pairs = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(server.env, (Pairs{{"LOG_LEVEL", "debug"}, {"PORT", "8080"}}));
    EXPECT_TRUE(server.url.empty());
    EXPECT_TRUE(server.headers.empty());
    ASSERT_TRUE(server.package.has_value());
    EXPECT_EQ(server.package->npm, "@modelcontextprotocol/server-everything");
    EXPECT_EQ(server.package->version, "2026.8.31");
    EXPECT_EQ(server.package->integrity, "sha512-Zm9vYmFy+/9=");
    ASSERT_EQ(server.secrets.size(), 1u);
    EXPECT_EQ(server.secrets[0].name, "GITHUB_TOKEN");
    EXPECT_EQ(server.secrets[0].env, "GITHUB_PAT");
    EXPECT_EQ(server.secrets[0].header, "");
    EXPECT_EQ(server.secrets[0].format, "token {value}");
    EXPECT_TRUE(server.permissions.declared);
    EXPECT_EQ(server.permissions.workspace, Permissions::Workspace::read);
    EXPECT_TRUE(server.permissions.network);
    EXPECT_FALSE(server.permissions.llm);
    EXPECT_EQ(server.defaults.risk, Risk::medium);
    EXPECT_EQ(server.defaults.cost, Cost::free);
    EXPECT_EQ(server.defaults.min_trust, TrustLevel::bounded_auto);
    EXPECT_FALSE(server.defaults.requires_approval);
    EXPECT_EQ(server.defaults.timeout_ms, 5000u);
    EXPECT_EQ(server.defaults.concurrency, Concurrency::serial);
    EXPECT_TRUE(server.defaults.trust_upstream_annotations);
    EXPECT_EQ(server.include, (std::vector<std::string>{"read_*", "list_*"}));
    EXPECT_EQ(server.exclude, (std::vector<std::string>{"read_secret"}));
    EXPECT_EQ(server.limits.startup_timeout_ms, 2000u);
    EXPECT_EQ(server.limits.max_message_bytes, 1048576u);
    EXPECT_EQ(server.limits.max_tools, 50u);
    EXPECT_EQ(server.file, "server.yaml");

    ASSERT_EQ(server.skills.size(), 2u);
    const ToolOverride* read = server.override_for("read_file");
    ASSERT_NE(read, nullptr);
    EXPECT_EQ(read->tool, "read_file");
    EXPECT_EQ(read->title, "Read a file");
    EXPECT_EQ(read->description, "Reads one file");
    EXPECT_EQ(read->category, "files");
    EXPECT_EQ(read->risk, Risk::low);
    EXPECT_EQ(read->cost, Cost::cheap);
    EXPECT_EQ(read->min_trust, TrustLevel::observe);
    EXPECT_EQ(read->requires_approval, true);
    ASSERT_TRUE(read->annotations.has_value());
    EXPECT_TRUE(read->annotations->read_only);
    EXPECT_TRUE(read->annotations->idempotent);
    EXPECT_FALSE(read->annotations->destructive);
    EXPECT_EQ(read->timeout_ms, 1000u);
    EXPECT_EQ(read->concurrency, Concurrency::parallel);
    EXPECT_EQ(read->path_inputs, (std::vector<std::string>{"path", "paths[]"}));
    ASSERT_EQ(read->error_hints.size(), 1u);
    EXPECT_EQ(read->error_hints[0].code, "NOT_FOUND");
    EXPECT_EQ(read->error_hints[0].suggestions, std::vector<std::string>{"check the path"});
    EXPECT_EQ(read->position.line, 34);
    EXPECT_EQ(read->position.column, 5);

    // An entry with only an id changes nothing.
    const ToolOverride* list = server.override_for("list.dir-2");
    ASSERT_NE(list, nullptr);
    EXPECT_FALSE(list->title || list->description || list->risk || list->requires_approval || list->annotations ||
                 list->timeout_ms || list->concurrency);
    EXPECT_TRUE(list->path_inputs.empty());
    EXPECT_EQ(server.override_for("write_file"), nullptr);
}

TEST(ForeignServer, FullStreamableHttpDeclaration) {
    const ForeignServer server = parsed_ok(parse(kHttp + R"(headers: {X-Api-Version: "2", Accept-Language: en}
secrets:
  - name: API_TOKEN
    header: Authorization
    format: "Bearer {value}"
  - name: TENANT
    header: X-Tenant
)"));
    EXPECT_EQ(server.transport, ForeignTransport::streamable_http);
    EXPECT_EQ(to_string(server.transport), "streamable_http");
    EXPECT_EQ(server.url, "https://example.com/mcp");
    EXPECT_TRUE(server.command.empty());
    using Pairs = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(server.headers, (Pairs{{"X-Api-Version", "2"}, {"Accept-Language", "en"}}));
    ASSERT_EQ(server.secrets.size(), 2u);
    EXPECT_EQ(server.secrets[0].header, "Authorization");
    EXPECT_EQ(server.secrets[0].env, "");
    EXPECT_EQ(server.secrets[0].format, "Bearer {value}");
    EXPECT_EQ(server.secrets[1].name, "TENANT");
    EXPECT_EQ(server.secrets[1].format, "{value}");
}

TEST(ForeignServer, DefaultsWhenOptionalFieldsAreAbsent) {
    const ForeignServer server = parsed_ok(parse(kStdio));
    EXPECT_EQ(server.version, "");
    EXPECT_EQ(server.description, "");
    EXPECT_TRUE(server.args.empty());
    EXPECT_TRUE(server.env.empty());
    EXPECT_TRUE(server.working_directory.empty());
    EXPECT_FALSE(server.package.has_value());
    EXPECT_TRUE(server.secrets.empty());
    EXPECT_FALSE(server.permissions.declared);
    EXPECT_EQ(server.permissions.workspace, Permissions::Workspace::none);
    EXPECT_FALSE(server.permissions.network);
    EXPECT_EQ(server.defaults.risk, Risk::high);
    EXPECT_EQ(server.defaults.cost, Cost::cheap);
    EXPECT_EQ(server.defaults.min_trust, TrustLevel::supervised_auto);
    EXPECT_TRUE(server.defaults.requires_approval);
    EXPECT_EQ(server.defaults.timeout_ms, 30000u);
    EXPECT_EQ(server.defaults.concurrency, Concurrency::parallel);
    EXPECT_FALSE(server.defaults.trust_upstream_annotations);
    EXPECT_TRUE(server.include.empty());
    EXPECT_TRUE(server.exclude.empty());
    EXPECT_EQ(server.limits.startup_timeout_ms, 10000u);
    EXPECT_EQ(server.limits.max_message_bytes, 4u * 1024u * 1024u);
    EXPECT_EQ(server.limits.max_tools, 1000u);
    EXPECT_TRUE(server.skills.empty());
    EXPECT_TRUE(server.offers("anything"));

    // A bare program name is looked up as it is; no shell is involved.
    EXPECT_EQ(parsed_ok(parse("kind: mcp_server\nname: x\ntransport: stdio\ncommand: node\n")).command, "node");
}

TEST(ForeignServerInvalid, BadName) {
    expect_problem(parse("kind: mcp_server\nname: Every Thing\ntransport: stdio\ncommand: node\n"), "name", 2, 7,
                   "pattern ^[a-z][a-z0-9_-]*$");
    expect_problem(parse("kind: mcp_server\ntransport: stdio\ncommand: node\n"), "name", 1, 1,
                   "missing required field 'name'");
    expect_problem(parse("kind: mcp_server\nname: " + std::string(65, 'a') + "\ntransport: stdio\ncommand: node\n"),
                   "name", 2, 7, "use at most 64");
}

TEST(ForeignServerInvalid, DoubleUnderscoreInNameIsReserved) {
    expect_problem(parse("kind: mcp_server\nname: my__server\ntransport: stdio\ncommand: node\n"), "name", 2, 7,
                   "\"__\" is reserved (the server's tools are named NAME__tool); use a single _ or - instead");
}

TEST(ForeignServerInvalid, MissingOrUnknownTransport) {
    expect_problem(parse("kind: mcp_server\nname: x\ncommand: node\n"), "transport", 1, 1,
                   "missing required field 'transport'; say how the host reaches the server: stdio");
    expect_problem(parse("kind: mcp_server\nname: x\ntransport: http\ncommand: node\n"), "transport", 3, 12,
                   "expected one of stdio, streamable_http");
}

TEST(ForeignServerInvalid, StdioWithoutCommand) {
    expect_problem(parse("kind: mcp_server\nname: x\ntransport: stdio\nargs: [a]\n"), "command", 1, 1,
                   "missing required field 'command'; transport stdio starts a program");
}

TEST(ForeignServerInvalid, RuntimeFetchingCommandsAreRefused) {
    const std::string head = "kind: mcp_server\nname: x\ntransport: stdio\n";
    for (const std::string program : {"npx", "/usr/bin/npx", "npm", "pnpm", "yarn", "bunx"}) {
        expect_problem(parse(head + "command: " + program + "\n"), "command", 4, 10,
                       "fetches packages at run time, which is not allowed: install the package once");
    }
    expect_problem(parse(head + "command: npx\n"), "command", 4, 10, "run its entry point with node");
}

TEST(ForeignServerInvalid, EmptyOrMultiLineCommand) {
    const std::string head = "kind: mcp_server\nname: x\ntransport: stdio\n";
    expect_problem(parse(head + "command: \"\"\n"), "command", 4, 10, "must not be empty");
    expect_problem(parse(head + "command: \"node\\nrm -rf /\"\n"), "command", 4, 10,
                   "must not contain a NUL or a line break");
    expect_problem(parse(head + "command: \"node\\0\"\n"), "command", 4, 10, "must not contain a NUL");
}

TEST(ForeignServer, FilesAndPlaceholdersAreReadForTheSandbox) {
    const ForeignServer server =
        parsed_ok(parse(kStdio + "args: [\"${data_dir}/x\", --root, \"${workspace}\"]\n"
                                 "env: {STORE: \"${data_dir}/store.json\"}\n"
                                 "files: [node_modules/@scope/server, /opt/servers/shared]\n"));
    EXPECT_EQ(server.args.front(), "${data_dir}/x");  // filled in per process by the host
    ASSERT_EQ(server.files.size(), 2u);
    EXPECT_EQ(server.files[0], std::filesystem::path("node_modules/@scope/server"));  // beside "server.yaml"
    EXPECT_EQ(server.files[1], std::filesystem::path("/opt/servers/shared"));
}

TEST(ForeignServerInvalid, UnknownPlaceholdersAndFilesThatGrantEverything) {
    expect_problem(parse(kStdio + "args: [\"${home}/x\"]\n"), "args[0]", 5, 8,
                   "unknown placeholder \"${home}\"; the host fills in ${data_dir}");
    expect_problem(parse(kStdio + "env: {A: \"${data_dri}\"}\n"), "env.A", 5, 10,
                   "unknown placeholder \"${data_dri}\" (did you mean 'data_dir'?)");
    expect_problem(parse(kStdio + "working_directory: \"${unclosed\"\n"), "working_directory", 5, 20,
                   "unknown placeholder \"${\"");
    expect_problem(parse(kStdio + "files: [/]\n"), "files[0]", 5, 9, "must be a file or directory other than /");
    expect_problem(parse(kStdio + "files: [\"/usr/../\"]\n"), "files[0]", 5, 9, "other than /");
    expect_problem(parse(kStdio + "files: [\"${data_dir}\"]\n"), "files[0]", 5, 9, "without placeholders");
    expect_problem(parse(kHttp + "files: [/opt/x]\n"), "files", 5, 8, "'files' is for transport stdio");
}

TEST(ForeignServer, PackagePlaceholderNamesTheInstalledPackageWhereitIsDeclared) {
    // Before or after the fields that use it: the file's order does not matter.
    const std::string package = "package: {npm: \"@scope/server\", version: 1.0.0, integrity: sha512-AA==}\n";
    const std::string uses =
        "args: [\"${package}/dist/index.js\", \"${data_dir}\"]\nenv: {ROOT: \"${package}\"}\n"
        "working_directory: \"${package}\"\n";
    for (const std::string& text : {kStdio + package + uses, kStdio + uses + package}) {
        const ForeignServer server = parsed_ok(parse(text));
        ASSERT_TRUE(server.package.has_value());
        EXPECT_EQ(server.args.front(), "${package}/dist/index.js");  // filled in at load, from the install
        EXPECT_EQ(server.env.front().second, "${package}");
        EXPECT_EQ(server.working_directory, "${package}");
    }
}

TEST(ForeignServerInvalid, PackagePlaceholderWithoutAPackageSaysToDeclareOne) {
    const std::string message =
        "${package} is the directory of the installed package, and this declaration has no "
        "package: declare it";
    expect_problem(parse(kStdio + "args: [\"${package}/dist/index.js\"]\n"), "args[0]", 5, 8, message);
    expect_problem(parse(kStdio + "env: {A: \"${package}\"}\n"), "env.A", 5, 10, message);
    expect_problem(parse(kStdio + "working_directory: \"${package}\"\n"), "working_directory", 5, 20, message);
    expect_problem(parse(kStdio + "args: [\"${packages}\"]\n"), "args[0]", 5, 8,
                   "unknown placeholder \"${packages}\" (did you mean 'package'?)");
    // With a package, still not in files: the install is added to them by itself.
    expect_problem(parse(kStdio + "files: [\"${package}\"]\n" +
                         "package: {npm: server-x, version: 1.0.0, integrity: sha512-AA==}\n"),
                   "files[0]", 5, 9, "without placeholders");
}

TEST(ForeignServerInvalid, UrlWithoutScheme) {
    const std::string head = "kind: mcp_server\nname: x\ntransport: streamable_http\n";
    expect_problem(parse(head + "url: example.com/mcp\n"), "url", 4, 6,
                   "expected an http:// or https:// URL such as https://example.com/mcp, got \"example.com/mcp\"");
    expect_problem(parse(head + "url: https://\n"), "url", 4, 6, "expected an http:// or https:// URL");
    expect_problem(parse(head + "headers: {X: y}\n"), "url", 1, 1,
                   "missing required field 'url'; transport streamable_http connects");
}

TEST(ForeignServerInvalid, FieldsOfTheOtherTransport) {
    expect_problem(parse(kHttp + "command: node\n"), "command", 5, 10,
                   "'command' is for transport stdio, and this server's transport is streamable_http; remove it, "
                   "or set transport: stdio");
    expect_problem(parse(kHttp + "env: {A: b}\n"), "env", 5, 6, "'env' is for transport stdio");
    expect_problem(parse(kStdio + "url: https://example.com/mcp\n"), "url", 5, 6,
                   "'url' is for transport streamable_http, and this server's transport is stdio");
    expect_problem(parse(kStdio + "headers: {A: b}\n"), "headers", 5, 10, "set transport: streamable_http");
}

TEST(ForeignServerInvalid, EnvAndHeaderNames) {
    expect_problem(parse(kStdio + "env: {1BAD: x}\n"), "env.1BAD", 5, 13,
                   "invalid environment variable name '1BAD'; use letters, digits and _");
    expect_problem(parse(kHttp + "headers: {\"Bad Header\": x}\n"), "headers.Bad Header", 5, 25,
                   "invalid header name 'Bad Header'");
    expect_problem(parse(kHttp + "headers: {X-A: \"a\\r\\nInjected: 1\"}\n"), "headers.X-A", 5, 16,
                   "a header value is one line");
}

TEST(ForeignServerInvalid, PackageVersionRange) {
    const std::string package = "package:\n  npm: \"@scope/server\"\n  version: \"";
    const std::string tail = "\"\n  integrity: sha512-AAAA\n";
    for (const std::string range : {"^1.2.0", "~1.2.0", "1.x", "*", ">=1.0.0", "1.0.0 - 2.0.0"}) {
        expect_problem(parse(kStdio + package + range + tail), "package.version", 7, 12,
                       "is a version range; pin the one installed version");
    }
    expect_problem(parse(kStdio + package + "latest" + tail), "package.version", 7, 12,
                   "\"latest\" is not an exact version");
    EXPECT_TRUE(parse(kStdio + package + "1.0.0-beta.2" + tail).ok());
    expect_problem(parse(kStdio + "package:\n  npm: x\n  integrity: sha512-AAAA\n"), "package.version", 6, 3,
                   "missing required field 'version'");
}

TEST(ForeignServerInvalid, BadIntegrityOrPackageName) {
    const std::string package = "package:\n  npm: server-x\n  version: 1.0.0\n  integrity: ";
    expect_problem(parse(kStdio + package + "sha1-AAAA\n"), "package.integrity", 8, 14,
                   "expected \"sha512-\" followed by base64, as in package-lock.json");
    expect_problem(parse(kStdio + package + "sha512-not*base64\n"), "package.integrity", 8, 14, "expected \"sha512-\"");
    expect_problem(parse(kStdio + package + "sha512-\n"), "package.integrity", 8, 14, "expected \"sha512-\"");
    expect_problem(parse(kStdio + "package:\n  npm: Server X\n  version: 1.0.0\n  integrity: sha512-AA==\n"),
                   "package.npm", 6, 8, "invalid npm package name \"Server X\"");
}

TEST(ForeignServerInvalid, SecretWithBothEnvAndHeader) {
    expect_problem(parse(kStdio + "secrets:\n  - name: TOKEN\n    env: TOKEN\n    header: Authorization\n"),
                   "secrets[0]", 6, 5, "give either env or header, not both");
    expect_problem(parse(kStdio + "secrets:\n  - name: TOKEN\n"), "secrets[0]", 6, 5,
                   "missing env or header; say where the secret goes");
}

TEST(ForeignServerInvalid, SecretTargetOfTheOtherTransport) {
    expect_problem(parse(kStdio + "secrets:\n  - name: TOKEN\n    header: Authorization\n"), "secrets[0].header", 7, 13,
                   "header is for transport streamable_http");
    expect_problem(parse(kHttp + "secrets:\n  - name: TOKEN\n    env: TOKEN\n"), "secrets[0].env", 7, 10,
                   "env is for transport stdio");
    expect_problem(parse(kStdio + "env: {TOKEN: x}\nsecrets:\n  - name: TOKEN\n    env: TOKEN\n"), "secrets[0].env", 8,
                   10, "'TOKEN' is already set under env; set each variable in one place");
}

TEST(ForeignServerInvalid, SecretFormatWithoutValue) {
    const std::string secret = "secrets:\n  - name: TOKEN\n    header: Authorization\n    format: ";
    expect_problem(parse(kHttp + secret + "\"Bearer\"\n"), "secrets[0].format", 8, 13,
                   "must contain {value} exactly once (found 0)");
    expect_problem(parse(kHttp + secret + "\"{value}{value}\"\n"), "secrets[0].format", 8, 13, "(found 2)");
    expect_problem(parse(kHttp + "secrets:\n  - name: 1TOKEN\n    header: Authorization\n"), "secrets[0].name", 6, 11,
                   "invalid secret name \"1TOKEN\"");
}

TEST(ForeignServerInvalid, UnknownKeysSuggestTheNearestKnownOne) {
    expect_problem(parse(kStdio + "descripton: x\n"), "descripton", 5, 1,
                   "unknown key 'descripton' (did you mean 'description'?); allowed keys: kind, name");
    expect_problem(parse(kStdio + "limits: {startup_timeout: 5}\n"), "limits.startup_timeout", 5, 10,
                   "(did you mean 'startup_timeout_ms'?)");
    expect_problem(parse(kStdio + "defaults: {rsik: low}\n"), "defaults.rsik", 5, 12, "(did you mean 'risk'?)");
    expect_problem(parse(kStdio + "skills:\n  - id: x\n    titel: y\n"), "skills[0].titel", 7, 5,
                   "(did you mean 'title'?)");
}

TEST(ForeignServerInvalid, SkillsEntryWithWhatTheServerDefines) {
    expect_problem(parse(kStdio + "skills:\n  - id: read_file\n    inputs: {type: object}\n"), "skills[0].inputs", 7, 5,
                   "'inputs' comes from the server (its tools/list), not from this file; remove it");
    expect_problem(parse(kStdio + "skills:\n  - id: read_file\n    examples: []\n"), "skills[0].examples", 7, 5,
                   "'examples' comes from the server");
}

TEST(ForeignServerInvalid, DuplicateSkillsId) {
    expect_problem(parse(kStdio + "skills:\n  - id: read_file\n  - id: write_file\n  - id: read_file\n"),
                   "skills[2].id", 8, 5, "duplicate tool 'read_file' (first declared at line 6); list each tool once");
    expect_problem(parse(kStdio + "skills:\n  - id: \"read file\"\n"), "skills[0].id", 6, 9,
                   "invalid tool name \"read file\"");
    expect_problem(parse(kStdio + "skills:\n  - title: x\n"), "skills[0].id", 6, 5, "missing required field 'id'");
}

TEST(ForeignServerInvalid, BadPathInputsName) {
    expect_problem(parse(kStdio + "skills:\n  - id: t\n    path_inputs: [path, \"1bad\", \"paths[]\"]\n"),
                   "skills[0].path_inputs[1]", 7, 25,
                   "invalid path input \"1bad\"; give an input's name (letters, digits and _");
    expect_problem(parse(kStdio + "skills:\n  - id: t\n    path_inputs: [\"a[][]\"]\n"), "skills[0].path_inputs[0]", 7,
                   19, "or name[] for every element of array input name");
    expect_problem(parse(kStdio + "skills:\n  - id: t\n    path_inputs: [a, a]\n"), "skills[0].path_inputs[1]", 7, 22,
                   "'a' is listed twice");
}

TEST(ForeignServerInvalid, LimitsOutOfRange) {
    expect_problem(parse(kStdio + "limits:\n  max_tools: 0\n"), "limits.max_tools", 6, 14,
                   "value 0 is out of range; expected a whole number from 1 to 100000");
    expect_problem(parse(kStdio + "limits:\n  startup_timeout_ms: 50\n"), "limits.startup_timeout_ms", 6, 23,
                   "from 100 to 600000");
    expect_problem(parse(kStdio + "limits:\n  max_message_bytes: 268435457\n"), "limits.max_message_bytes", 6, 22,
                   "from 1024 to 268435456");
    expect_problem(parse(kStdio + "defaults:\n  timeout_ms: 0\n"), "defaults.timeout_ms", 6, 15, "from 1 to 3600000");
}

TEST(ForeignServerInvalid, EmptyIncludeOffersNothing) {
    expect_problem(parse(kStdio + "include: []\n"), "include", 5, 10, "remove include to offer every tool");
    expect_problem(parse(kStdio + "exclude: [\"\"]\n"), "exclude[0]", 5, 11, "must not be empty");
}

TEST(ForeignServerInvalid, WrongOrMissingKind) {
    expect_problem(parse("name: x\ntransport: stdio\ncommand: node\n"), "kind", 1, 1,
                   "missing required field 'kind'; a foreign server declaration starts with kind: mcp_server");
    expect_problem(parse("kind: mcp_sever\nname: x\ntransport: stdio\ncommand: node\n"), "kind", 1, 7,
                   "unknown kind \"mcp_sever\" (did you mean 'mcp_server'?)");
    expect_problem(parse(""), "", 1, 1, "the declaration is empty");
}

TEST(ForeignServerInvalid, SeveralProblemsAreReportedTogetherInFileOrder) {
    const auto result = parse(R"(kind: mcp_server
name: Bad__Name
transport: stdio
command: npx
package: {npm: x, version: ^1.0.0, integrity: md5-x}
limits: {max_tools: 0}
skills:
  - id: a
    outputs: {}
  - id: a
)");
    ASSERT_FALSE(result.ok());
    const auto problems = problems_of(result);
    std::vector<std::string> fields;
    for (const auto& problem : problems) fields.push_back(problem.field);
    EXPECT_EQ(fields, (std::vector<std::string>{"name", "command", "package.version", "package.integrity",
                                                "limits.max_tools", "skills[0].outputs", "skills[1].id"}));
    EXPECT_EQ(result.error().message, problems.front().to_string() + " (and 6 more)");
    EXPECT_EQ(result.error().details.at("file").as_string(), "server.yaml");
}

TEST(ForeignServer, OffersAppliesIncludeThenExclude) {
    const ForeignServer server =
        parsed_ok(parse(kStdio + "include: [\"read_*\", \"list_*\"]\nexclude: [\"read_secret*\", list_all]\n"));
    EXPECT_TRUE(server.offers("read_file"));
    EXPECT_TRUE(server.offers("list_dir"));
    EXPECT_FALSE(server.offers("write_file"));
    EXPECT_FALSE(server.offers("read_secret"));
    EXPECT_FALSE(server.offers("read_secrets_now"));
    EXPECT_FALSE(server.offers("list_all"));

    const ForeignServer excluding = parsed_ok(parse(kStdio + "exclude: \"delete_*\"\n"));
    EXPECT_TRUE(excluding.offers("read_file"));
    EXPECT_FALSE(excluding.offers("delete_repo"));

    const ForeignServer single = parsed_ok(parse(kStdio + "include: get_?\n"));
    EXPECT_TRUE(single.offers("get_x"));
    EXPECT_FALSE(single.offers("get_xy"));
}

// A file in the temporary directory, removed when the test is done with it.
struct TempFile {
    explicit TempFile(const std::string& text)
        : path(std::filesystem::temp_directory_path() /
               ("skillhost-declaration-" + std::to_string(::getpid()) + "-" + std::to_string(++count) + ".yaml")) {
        std::ofstream(path) << text;
    }
    ~TempFile() { std::filesystem::remove(path); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    static inline int count = 0;
    std::filesystem::path path;
};

TEST(PluginDeclarationFile, NativeManifestWithoutKind) {
    const TempFile file(
        "name: demo\nversion: 1.0.0\nlibrary: libdemo.so\nabi_version: \"1.0\"\nskills:\n"
        "  - id: ping\n    description: Pings\n");
    const auto& path = file.path;
    const auto result = load_plugin_declaration(path);
    ASSERT_TRUE(result.ok()) << result.error().message;
    ASSERT_TRUE(std::holds_alternative<Manifest>(result.value()));
    const auto& manifest = std::get<Manifest>(result.value());
    EXPECT_EQ(manifest.name, "demo");
    EXPECT_EQ(manifest.file, path);
    ASSERT_EQ(manifest.skills.size(), 1u);
    EXPECT_EQ(manifest.skills[0].id, "ping");
}

TEST(PluginDeclarationFile, ForeignServerWithKind) {
    const TempFile file(kStdio);
    const auto& path = file.path;
    const auto result = load_plugin_declaration(path);
    ASSERT_TRUE(result.ok()) << result.error().message;
    ASSERT_TRUE(std::holds_alternative<ForeignServer>(result.value()));
    const auto& server = std::get<ForeignServer>(result.value());
    EXPECT_EQ(server.name, "everything");
    EXPECT_EQ(server.file, path);

    const auto direct = load_foreign_server(path);
    ASSERT_TRUE(direct.ok()) << direct.error().message;
    EXPECT_EQ(direct.value().command, "/usr/bin/node");
}

TEST(PluginDeclarationFile, UnknownKindNamesTheKinds) {
    const TempFile file("kind: plugin_x\nname: x\n");
    const auto result = load_plugin_declaration(file.path);
    expect_problem(result, "kind", 1, 7, "unknown kind \"plugin_x\"; the kinds are mcp_server");
    expect_problem(result, "kind", 1, 7, "or no kind at all for a native plugin manifest");
}

TEST(PluginDeclarationFile, EachKindIsCheckedByItsOwnParser) {
    // A native manifest's mistakes as parse_manifest reports them; a declaration's as its parser does.
    const TempFile native(
        "name: demo\nversion: 1.0.0\nabi_version: \"1.0\"\nskills:\n  - id: ping\n"
        "    description: Pings\n");
    expect_problem(load_plugin_declaration(native.path), "library", 1, 1, "missing required field 'library'");
    expect_problem(parse_plugin_declaration(kStdio + "library: x.so\n", "b.yaml"), "library", 5, 1,
                   "unknown key 'library'");
    expect_problem(parse_plugin_declaration("kind: [a]\n", "c.yaml"), "kind", 1, 7, "expected a string");
    expect_problem(parse_plugin_declaration("kind: mcp_server\nname: x\n: [\n", "d.yaml"), "", 4, 1,
                   "YAML syntax error");
}

TEST(PluginDeclarationFile, MissingFileIsUnreadableAsForAManifest) {
    const auto path = std::filesystem::temp_directory_path() / "skillhost-declaration-absent.yaml";
    for (const Error& error : {load_plugin_declaration(path).error(), load_foreign_server(path).error()}) {
        EXPECT_EQ(error.code, "MANIFEST_UNREADABLE");
        EXPECT_NE(error.message.find(path.string()), std::string::npos) << error.message;
        EXPECT_EQ(error.details.at("reason").as_string(), "No such file or directory");
    }
}

}  // namespace
}  // namespace skillhost::manifest
