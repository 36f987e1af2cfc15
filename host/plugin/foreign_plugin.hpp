// A foreign MCP server (manifest/foreign_server.hpp) as one plugin of the catalog: its tools are
// skills named SERVER__TOOL, described by what the server lists and by what its declaration says
// (risk, trust, approval, path inputs; the server's own annotations are believed only when the
// declaration says so), and every call goes through the same pipeline as a native skill's.
//
// A stdio server runs as one process per user (a streamable_http server: one HTTP session per
// user), started when the declaration is loaded (within limits.startup_timeout_ms) and restarted
// after a crash (a broken connection) with backoff; `crash_limit` crashes within
// `crash_window` quarantine it. A request written to the server is never written again: a call in
// flight when the server ends fails with PLUGIN_CRASHED. The server's instructions and its tools'
// definitions are pinned (definition_pins.hpp): a tool whose definition differs from its pin, a new
// tool, or every tool after the instructions changed, is refused (UPSTREAM_DEFINITION_CHANGED, with
// the definition_change decision it waits on) until a person approves the change: a server cannot
// change what a tool does behind the catalog's back, neither while it runs nor across a restart. A
// server that says its tools changed (notifications/tools/list_changed) has them listed again, and
// relisted() makes the version of the plugin that offers what it lists now, from the same instances,
// for the catalog to serve (LiveCatalog does so on IsolationOptions::on_tools_changed).
#pragma once

#include "base/error.hpp"
#include "manifest/foreign_server.hpp"
#include "plugin/completion_service.hpp"
#include "plugin/definition_pins.hpp"
#include "plugin/foreign_oauth.hpp"
#include "plugin/foreign_secrets.hpp"
#include "plugin/isolation_options.hpp"
#include "plugin/loaded_plugin.hpp"

#include <filesystem>
#include <memory>
#include <string>

namespace skillhost::plugin {

struct ForeignOptions {
    std::string client_version = "1";  // clientInfo.version in initialize
    IsolationOptions isolation;        // crash_limit, crash_window, restart_backoff, on_event
    // Answers the server's sampling requests (only with `permissions: {llm: true}`); null: refused.
    std::shared_ptr<CompletionService> completions;
    // Where its tools' definitions are pinned (definition_pins.hpp); null: in memory, for this load.
    std::shared_ptr<DefinitionPins> pins;
    // Users' secrets the declaration's `secrets:` names (foreign_secrets.hpp); null: nobody has any,
    // and a call of a server that needs one is refused with UPSTREAM_SECRET_MISSING.
    std::shared_ptr<SecretSource> secrets;
    // Whose secrets the process that lists the tools at load gets (the first owner); a secret that
    // user has not set is left out of the listing process.
    std::string listing_user;
    // Users' OAuth grants, for a declaration with `oauth:` (foreign_oauth.hpp); null: none is kept,
    // and such a server's calls need an authorization nobody can give (OAUTH_AUTHORIZATION_REQUIRED).
    std::shared_ptr<GrantStore> grants;
    // Where declared packages are installed (foreign_package.hpp); a declaration with `package:`
    // loads only from a verified install there.
    std::filesystem::path packages_dir;
};

// Starts the server, lists its tools and returns it as a plugin. RUNNER_START_FAILED (cannot start),
// UPSTREAM_TIMEOUT (no answer within limits.startup_timeout_ms), UPSTREAM_CLOSED (it ended during
// the handshake, with its exit), UPSTREAM_PROTOCOL_ERROR, and for a declared package the errors of
// with_installed_package (foreign_package.hpp); every error has details.manifest.
Result<std::shared_ptr<LoadedPlugin>> load_foreign_server(const manifest::ForeignServer& server,
                                                          const ForeignOptions& options);

}  // namespace skillhost::plugin
