#include "plugin/foreign_session.hpp"

#include "plugin/data_dir_budget.hpp"
#include "plugin/error_codes.hpp"
#include "plugin/foreign_oauth.hpp"
#include "plugin/foreign_package.hpp"
#include "plugin/runner_cgroups.hpp"
#include "plugin/runner_sandbox_args.hpp"
#include "upstream/error_codes.hpp"
#include "upstream/http_channel.hpp"
#include "upstream/rpc_channel.hpp"

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace skillhost::plugin {
namespace json = boost::json;
using upstream::Clock;

Result<ForeignSandboxPlan> plan_foreign_sandbox(const ForeignOptions& options) {
    ForeignSandboxPlan plan;
    if (options.isolation.sandbox == SandboxMode::off) return plan;
    if (std::optional<Error> missing = missing_sandbox_mechanism(options.isolation)) return *missing;
    Result<std::filesystem::path> runner = find_runner(options.isolation.runner);
    if (!runner) return runner.error();
    plan.runner = runner.value();
    if (::geteuid() == 0) {
        Result<RunnerIdentity> identity = resolve_runner_identity(options.isolation.runner_user);
        if (!identity) return identity.error();
        plan.identity = identity.value();
    }
    return plan;
}

namespace {

// ${data_dir} and ${workspace} replaced (the declaration allows no other placeholder).
std::string expand(std::string text, const std::filesystem::path& data_dir, const std::filesystem::path& workspace) {
    return replaced_all(replaced_all(std::move(text), "${data_dir}", data_dir.string()), "${workspace}",
                        workspace.string());
}

std::string label_of(const manifest::ForeignServer& server) {
    return "MCP server '" + server.name + "'";
}

// A fresh empty directory for a process without a user, or an error saying why there is none.
Result<std::filesystem::path> make_scratch(const std::string& server) {
    std::string pattern = (std::filesystem::temp_directory_path() / "skillhost-mcp-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
        return Error{errors::kRunnerStartFailed, "cannot make a temporary directory for MCP server '" + server +
                                                     "': " + std::strerror(errno) + "; check TMPDIR"};
    return std::filesystem::path(pattern);
}

// The user's data directory for the server, made and handed to the sandbox's user.
std::optional<Error> prepare_data_dir(const std::filesystem::path& dir, const ForeignSandboxPlan& plan) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        Error error{errors::kDataDirUnavailable, "cannot create the data directory " + dir.string() + " (" +
                                                     ec.message() + "); check that the skillhost home is writable"};
        error.details["data_dir"] = dir.string();
        return error;
    }
    if (plan.identity) return hand_over_data_dir(dir, plan.identity->uid, plan.identity->gid);
    return std::nullopt;
}

// roots/list answered with the user's workspace; anything else the server asks is not offered.
Result<json::value> answer_server_request(const std::string& name, const std::filesystem::path& workspace,
                                          std::string_view method) {
    if (method == "roots/list") {
        json::array roots;
        if (!workspace.empty())
            roots.push_back(json::object{{"uri", "file://" + workspace.string()}, {"name", "workspace"}});
        return json::value(json::object{{"roots", std::move(roots)}});
    }
    return Error{errors::kUpstreamError,
                 "skillhost does not offer '" + std::string(method) + "' to MCP server '" + name + "'"};
}

ListedDefinition instructions_listed(const std::string& instructions) {
    return {std::string(kInstructionsPin), upstream::instructions_hash(instructions),
            json::object{{"instructions", instructions}}};
}

// The connection to the server over the transport its declaration names (the one place that
// chooses): an HTTP session with its URL, or a process of its own on stdio, in the sandbox the plan
// gives, with the user's data directory and workspace.
Status open_transport(const manifest::ForeignServer& server, const ForeignOptions& options,
                      const ForeignSandboxPlan& plan, const ForeignSessionUser& user, const InjectedSecrets& secrets,
                      upstream::RpcHandlers handlers, ForeignSession& session) {
    upstream::RpcLimits limits;
    limits.max_message_bytes = static_cast<std::size_t>(server.limits.max_message_bytes);
    if (server.transport == manifest::ForeignTransport::streamable_http) {
        upstream::HttpEndpoint endpoint{server.url, server.headers, session.authorizer};
        endpoint.headers.insert(endpoint.headers.end(), secrets.headers.begin(), secrets.headers.end());
        session.channel =
            std::make_shared<upstream::HttpChannel>(label_of(server), std::move(endpoint), limits, std::move(handlers));
        return {};
    }
    std::filesystem::path data_dir = user.data_dir;
    if (data_dir.empty()) {
        auto scratch = make_scratch(server.name);
        if (!scratch) return std::move(scratch.error());
        session.scratch = data_dir = scratch.value();
        if (plan.identity) {
            if (std::optional<Error> problem = prepare_data_dir(data_dir, plan)) return std::move(*problem);
        }
    } else if (std::optional<Error> problem = prepare_data_dir(data_dir, plan)) {
        return std::move(*problem);
    }
    const std::filesystem::path workspace = user.workspace.empty() ? session.scratch : user.workspace;
    ForeignLaunch launch;
    launch.server = server.name;
    launch.command = server.command;
    for (const std::string& arg : server.args) launch.args.push_back(expand(arg, data_dir, workspace));
    for (const auto& [name, value] : server.env) launch.env.emplace_back(name, expand(value, data_dir, workspace));
    launch.env.insert(launch.env.begin(), {"HOME", data_dir.string()});
    launch.env.insert(launch.env.end(), secrets.env.begin(), secrets.env.end());
    if (!session.redactor->empty())
        launch.redact_output = [redactor = session.redactor](std::string& line) { redactor->redact(line); };
    launch.relative_to = server.file.parent_path();
    launch.working_directory = server.working_directory.empty()
                                   ? server.file.parent_path()
                                   : std::filesystem::path(expand(server.working_directory, data_dir, workspace));
    if (launch.working_directory.is_relative())
        launch.working_directory = server.file.parent_path() / launch.working_directory;
    if (!plan.runner.empty()) {
        RunnerSandboxArgs sandbox =
            runner_sandbox_args(options.isolation, server.permissions, plan.identity, server.name);
        launch.runner = plan.runner;
        launch.runner_args = std::move(sandbox.args);
        launch.runner_args.insert(launch.runner_args.end(), {"--data-dir", data_dir.string()});
        if (!workspace.empty())
            launch.runner_args.insert(launch.runner_args.end(), {"--workspace", workspace.string()});
        for (const std::filesystem::path& path : server.files)
            launch.runner_args.insert(launch.runner_args.end(), {"--read-only", path.string()});
        launch.runner_args.insert(launch.runner_args.end(), {"--read-only", server.file.parent_path().string()});
        if (launch.working_directory != data_dir)
            launch.runner_args.insert(launch.runner_args.end(), {"--read-only", launch.working_directory.string()});
        launch.sandbox_timeout = std::chrono::milliseconds(server.limits.startup_timeout_ms);
        launch.cgroup_leaf = std::move(sandbox.cgroup_leaf);
        launch.cgroup_pids_leaf = std::move(sandbox.cgroup_pids_leaf);
    }
    auto process = ForeignProcess::start(launch);
    if (!process) {
        RunnerCgroups::remove_leaf(launch.cgroup_leaf);
        RunnerCgroups::remove_leaf(launch.cgroup_pids_leaf);
        return std::move(process.error());
    }
    session.process = std::move(process.value());
    ForeignProcess* raw_process = session.process.get();
    handlers.describe_end = [raw_process] {
        const std::string how = raw_process->wait_for_end(std::chrono::milliseconds(500));
        return how.empty() ? std::string("it closed its output but is still running") : "it " + how;
    };
    const int in = session.process->take_stdin();
    const int out = session.process->take_stdout();
    session.channel = std::make_shared<upstream::RpcChannel>(label_of(server), out, in, limits, std::move(handlers));
    return {};
}

}  // namespace

// Opens the connection and runs the handshake, all within the start-up limit.
Result<std::shared_ptr<ForeignSession>> start_foreign_session(const manifest::ForeignServer& server,
                                                              const ForeignOptions& options,
                                                              const ForeignSandboxPlan& plan,
                                                              const ForeignSessionUser& user, InjectedSecrets secrets) {
    auto session = std::make_shared<ForeignSession>();
    session->secrets_fingerprint = secrets.fingerprint;
    if (server.oauth) {
        // The process that lists the tools at load authorizes as the first owner.
        auto authorizer = session_authorizer(server, options.grants, options.secrets.get(),
                                             user.id.empty() ? options.listing_user : user.id);
        if (!authorizer) return authorizer.error();
        session->authorizer = std::move(*authorizer);
        // A server that echoes the user's tokens does not hand them to the model, refreshed ones
        // included.
        secrets.redactor.add_live([authorizer = session->authorizer] {
            std::vector<std::pair<std::string, std::string>> tokens;
            if (const std::optional<oauth::Grant> grant = authorizer->grant()) {
                tokens.emplace_back("oauth access token", grant->tokens.access_token);
                tokens.emplace_back("oauth refresh token", grant->tokens.refresh_token);
            }
            return tokens;
        });
    }
    session->redactor = std::make_shared<const SecretRedactor>(secrets.redactor);
    upstream::RpcHandlers handlers;
    const std::string name = server.name;
    handlers.on_notification = [name, changed = session->tools_changed, tell = options.isolation.on_tools_changed](
                                   std::string_view method, const json::value&) {
        if (method != "notifications/tools/list_changed") return;
        if (!changed->exchange(true))  // once until they are listed, however often it says so
            spdlog::info(
                "MCP server '{}' says its tools changed; they are listed again (and the catalog with them), and a "
                "changed one is refused until its new definition is approved",
                name);
        if (tell) tell(name);
    };
    session->sampling =
        std::make_shared<ForeignSampling>(server.name, server.permissions.llm, options.completions, user.id);
    session->elicitation = std::make_shared<ForeignElicitation>(server.name);
    handlers.on_request = [name, workspace = user.workspace, answered = session->roots_answered_at,
                           sampling = session->sampling, elicitation = session->elicitation,
                           redactor = session->redactor](std::string_view method, const json::value& params,
                                                         upstream::Responder respond) {
        // What it asks of a person or a model carries none of its secrets.
        json::value redacted = params;
        redactor->redact(redacted);
        if (method == "sampling/createMessage") return sampling->answer(redacted, std::move(respond));
        if (method == "elicitation/create") return elicitation->answer(redacted, std::move(respond));
        if (method == "roots/list") answered->store(Clock::now().time_since_epoch().count());
        respond(answer_server_request(name, workspace, method));
    };
    if (auto opened = open_transport(server, options, plan, user, secrets, std::move(handlers), *session); !opened)
        return opened.error();
    session->client = std::make_unique<upstream::McpClient>(session->channel);
    const auto deadline = Clock::now() + std::chrono::milliseconds(server.limits.startup_timeout_ms);
    // Questions go to the call's front end or the durable question queue (foreign_elicitation.hpp).
    json::object capabilities{{"roots", json::object{{"listChanged", false}}}, {"elicitation", json::object{}}};
    if (server.permissions.llm) capabilities["sampling"] = json::object{};
    auto info = session->client->initialize(capabilities, options.client_version, deadline);
    if (!info) {
        Error error = std::move(info.error());
        session->redactor->redact(error);
        if (error.is(errors::kUpstreamTimeout))
            error.message = label_of(server) + " did not answer initialize within limits.startup_timeout_ms (" +
                            std::to_string(server.limits.startup_timeout_ms) + " ms); " +
                            (server.transport == manifest::ForeignTransport::stdio
                                 ? "check that its command starts an MCP server on stdio"
                                 : "check that " + server.url + " is an MCP Streamable HTTP endpoint") +
                            ", or raise the limit";
        return error;
    }
    session->info = std::move(info.value());
    session->redactor->redact(session->info.instructions);
    session->instructions = instructions_listed(session->info.instructions);
    return session;
}

// What the server lists carries none of its secrets' values (they would reach the model's prompt).
void redact_listing(upstream::ToolList& tools, const SecretRedactor& redactor) {
    if (redactor.empty()) return;
    for (upstream::ToolDefinition& tool : tools.tools) {
        redactor.redact(tool.title);
        redactor.redact(tool.description);
        redactor.redact(tool.input_schema);
        if (tool.output_schema) redactor.redact(*tool.output_schema);
        redactor.redact(tool.annotations);
    }
}

ListedDefinition tool_listed(const upstream::ToolDefinition& tool) {
    return {tool.name, upstream::definition_hash(tool), upstream::definition_json(tool)};
}

}  // namespace skillhost::plugin
