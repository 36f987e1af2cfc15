// A `skillhost`-like executable with the operator's commands (ask, runs, guide) next to call and
// approvals, built into the build tree's bin/ so it finds the built-in plugins exactly as the real
// binary does. It lets the CLI tests run the operator commands end to end from a shell.
#include "cli/cli_context.hpp"
#include "cli/operator_commands.hpp"
#include "cli/output.hpp"

#include <iostream>

int main(int argc, char** argv) {
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    skillhost::cli::CliContext ctx(ec ? std::filesystem::absolute(argv[0]) : self);
    CLI::App app{"skillhost operator commands (test build)"};
    app.name("skillhost");
    app.require_subcommand(1);
    app.fallthrough();
    ctx.add_global_options(app);
    skillhost::cli::register_call_command(app, ctx);
    skillhost::cli::register_approval_commands(app, ctx);
    skillhost::cli::register_operator_commands(app, ctx);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    return ctx.exit_code;
}
