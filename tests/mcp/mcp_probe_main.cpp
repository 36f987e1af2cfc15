// `skillhost_mcp_probe mcp ...`: the `skillhost mcp` command with the CLI's own context and logging,
// for the stdio tests (main.cpp registers the command once the lead wires it in).
#include "cli/cli_context.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

namespace skillhost::cli {
void register_mcp_command(CLI::App& app, CliContext& ctx);
}

int main(int argc, char** argv) {
    spdlog::set_default_logger(spdlog::stderr_color_mt("skillhost"));
    const char* level = std::getenv("SKILLHOST_LOG_LEVEL");
    spdlog::set_level(level ? spdlog::level::from_str(level) : spdlog::level::warn);
    skillhost::cli::CliContext ctx(std::filesystem::read_symlink("/proc/self/exe"));
    CLI::App app{"skillhost mcp probe"};
    app.require_subcommand(1);
    app.fallthrough();
    ctx.add_global_options(app);
    skillhost::cli::register_mcp_command(app, ctx);
    CLI11_PARSE(app, argc, argv);
    return ctx.exit_code;
}
