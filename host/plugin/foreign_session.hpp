// One running instance of a foreign MCP server (foreign_plugin.hpp): the MCP session with it over
// the transport its declaration names and, for a stdio server, its sandboxed process. A session
// belongs to one user (or, for the process that lists the tools at load, to none) and is started
// with that user's workspace, data directory and secrets. Used by ForeignPlugin only.
#pragma once

#include "base/error.hpp"
#include "manifest/foreign_server.hpp"
#include "plugin/definition_pins.hpp"
#include "plugin/foreign_elicitation.hpp"
#include "plugin/foreign_plugin.hpp"
#include "plugin/foreign_process.hpp"
#include "plugin/foreign_sampling.hpp"
#include "plugin/foreign_secrets.hpp"
#include "plugin/runner_identity.hpp"
#include "upstream/mcp_client.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace skillhost::plugin {

// How long a new session's first call waits after the server was told its roots (see
// ForeignSession::roots_answered_at).
inline constexpr auto kForeignRootsSettle = std::chrono::milliseconds(50);

// One running server: the MCP session with it and, for a stdio server, its process. The channel goes
// first (closing the server's stdin, or ending the HTTP session), then the process (SIGTERM, SIGKILL
// after a grace period).
struct ForeignSession {
    std::unique_ptr<ForeignProcess> process;  // null for a streamable_http server
    std::shared_ptr<upstream::Transport> channel;
    std::unique_ptr<upstream::McpClient> client;
    upstream::ServerInfo info;
    // Set by the reading thread when the server says its tools changed: they are listed again
    // before the next call, and a changed one is refused.
    std::shared_ptr<std::atomic<bool>> tools_changed = std::make_shared<std::atomic<bool>>(false);
    std::map<std::string, ListedDefinition> listed;  // tool -> its definition, as this process last listed
    ListedDefinition instructions;                   // the server's instructions, from initialize
    // When the server was last told its roots (steady clock, ns; 0: never asked). A server applies
    // them on its own time (the filesystem server checks each directory first) and says nothing
    // when done, so a new session's first call waits kForeignRootsSettle after the answer.
    std::shared_ptr<std::atomic<std::int64_t>> roots_answered_at = std::make_shared<std::atomic<std::int64_t>>(0);
    std::shared_ptr<ForeignSampling> sampling;  // answers its sampling requests; finished before the channel goes
    // Puts its questions to the user of the call in flight; finished before the channel goes.
    std::shared_ptr<ForeignElicitation> elicitation;
    // An empty directory made for a process without a user's (the listing one): removed after it.
    std::filesystem::path scratch;
    // Its user's secrets as it got them: their values are redacted from all it sends back, and a
    // changed value starts the instance again.
    std::shared_ptr<const SecretRedactor> redactor = std::make_shared<SecretRedactor>();
    std::string secrets_fingerprint;
    std::shared_ptr<oauth::OAuthAuthorizer> authorizer;  // a declaration with `oauth:`
    ~ForeignSession() {
        if (sampling) sampling->finish();
        if (elicitation) elicitation->finish();
        client.reset();
        channel.reset();
        process.reset();
        if (!scratch.empty()) {
            std::error_code ignored;
            std::filesystem::remove_all(scratch, ignored);
        }
    }
};

// How a server's processes are sandboxed, decided once when its declaration loads.
struct ForeignSandboxPlan {
    std::filesystem::path runner;            // skillhost-runner; empty: the sandbox is off
    std::optional<RunnerIdentity> identity;  // as root: the unprivileged user it runs as
};

// The sandbox plan for `options`: the runner (none when the sandbox is off) and, as root, the user
// the processes run as. RUNNER_NOT_FOUND, SANDBOX_UNAVAILABLE or RUNNER_USER_INVALID when it cannot be
// kept.
Result<ForeignSandboxPlan> plan_foreign_sandbox(const ForeignOptions& options);

// Whose instance a session is: roots/list is answered with this user's workspace.
struct ForeignSessionUser {
    std::string id;
    std::filesystem::path workspace;
    std::filesystem::path data_dir;  // this server's data directory for the user (made here if missing)
};

// Opens the connection and runs the handshake, all within the start-up limit. The session redacts
// `secrets` (and, with `oauth:`, the user's tokens) from everything the server sends back.
Result<std::shared_ptr<ForeignSession>> start_foreign_session(const manifest::ForeignServer& server,
                                                              const ForeignOptions& options,
                                                              const ForeignSandboxPlan& plan,
                                                              const ForeignSessionUser& user, InjectedSecrets secrets);

// What the server lists carries none of its secrets' values (they would reach the model's prompt).
void redact_listing(upstream::ToolList& tools, const SecretRedactor& redactor);

// A listed tool as its definition is pinned.
ListedDefinition tool_listed(const upstream::ToolDefinition& tool);

}  // namespace skillhost::plugin
