// The `skillhost` command line.
#include "cli/cli_context.hpp"
#include "cli/operator_commands.hpp"
#include "cli/output.hpp"

#include "base/uninterruptible_threads.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace {

std::filesystem::path self_executable(const char* argv0) {
    std::error_code ec;
    auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::absolute(argv0) : p;
}

void configure_logging() {
    // Logs go to stderr so stdout stays clean for results and --json.
    auto logger = spdlog::stderr_color_mt("skillhost");
    spdlog::set_default_logger(logger);
    spdlog::set_pattern("%^%l%$: %v");
    const char* level = std::getenv("SKILLHOST_LOG_LEVEL");
    spdlog::set_level(level ? spdlog::level::from_str(level) : spdlog::level::warn);
}

// Parses and runs one command; everything it started (the runtime, its pools, a server) is
// stopped and destroyed when this returns.
int run_command(int argc, char** argv) {
    skillhost::cli::CliContext ctx(self_executable(argv[0]));

    CLI::App app{
        "skillhost: a native host for the skills an LLM agent uses.\n"
        "Plugins (shared libraries with YAML manifests) provide skills; skillhost validates,\n"
        "runs and audits every call."};
    app.name("skillhost");
    app.set_version_flag("--version", std::string("skillhost ") + SKILLHOST_VERSION);
    app.require_subcommand(1);
    app.fallthrough();
    ctx.add_global_options(app);
    app.footer(
        "Environment: SKILLHOST_HOME, SKILLHOST_CONFIG, SKILLHOST_LOG_LEVEL (debug|info|warn|error).\n"
        "Run `skillhost COMMAND --help` for a command's options.");

    skillhost::cli::register_skills_commands(app, ctx);
    skillhost::cli::register_call_command(app, ctx);
    skillhost::cli::register_plugin_commands(app, ctx);
    skillhost::cli::register_demo_commands(app, ctx);
    skillhost::cli::register_approval_commands(app, ctx);
    skillhost::cli::register_elicitation_commands(app, ctx);
    skillhost::cli::register_definition_change_commands(app, ctx);
    skillhost::cli::register_policy_commands(app, ctx);
    skillhost::cli::register_mode_commands(app, ctx);
    skillhost::cli::register_audit_commands(app, ctx);
    skillhost::cli::register_models_commands(app, ctx);
    skillhost::cli::register_watch_command(app, ctx);
    skillhost::cli::register_operator_commands(app, ctx);
    skillhost::cli::register_mcp_command(app, ctx);
    skillhost::cli::register_serve_command(app, ctx);
    skillhost::cli::register_token_commands(app, ctx);
    skillhost::cli::register_secrets_commands(app, ctx);
    skillhost::cli::register_oauth_commands(app, ctx);
    skillhost::cli::register_db_commands(app, ctx);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "error: USAGE: " << e.what() << "\n  hint: run `skillhost --help` for the commands and options\n";
        return skillhost::cli::kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << "error: INTERNAL: " << e.what()
                  << "\n  hint: this is a bug in skillhost; please report it with the command you ran\n";
        return skillhost::cli::kExitFailed;
    }
    return ctx.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
    configure_logging();
    const int code = run_command(argc, argv);
    // Threads left inside a plugin call or a name lookup (base/uninterruptible_threads.hpp): joined
    // here, or named before the process ends without them.
    skillhost::finish_uninterruptible_threads(std::chrono::seconds(2));
    return code;
}
