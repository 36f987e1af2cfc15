// `skillhost secrets set|list|delete`: a user's secrets for foreign MCP servers (a declaration's
// `secrets:`), sealed in the host's database. A value is read from standard input, never from the
// command line (where `ps` and the shell's history would show it), and never printed.
#include "app/secret_actions.hpp"
#include "app/storage_schema.hpp"
#include "app/user_secret_store.hpp"
#include "base/utc_time.hpp"
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "cli/user_secrets_access.hpp"
#include "policy/error_codes.hpp"

#include <termios.h>
#include <unistd.h>

#include <iostream>

namespace skillhost::cli {
namespace {

std::string when(std::int64_t unix_ms) {
    return format_utc_timestamp(TimePoint(std::chrono::milliseconds(unix_ms)));
}

struct SecretArgs {
    std::string name;
    std::string user;
    bool json = false;
};

// One line from standard input without its line break; prompted without echo on a terminal.
std::string read_value(const std::string& name, const std::string& user) {
    const bool terminal = ::isatty(STDIN_FILENO) == 1;
    termios saved{};
    if (terminal) {
        std::cerr << "Value of " << name << " for " << user << " (not shown): " << std::flush;
        if (::tcgetattr(STDIN_FILENO, &saved) == 0) {
            termios quiet = saved;
            quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
            ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
        }
    }
    std::string value;
    std::getline(std::cin, value);
    if (!value.empty() && value.back() == '\r') value.pop_back();
    if (terminal) {
        ::tcsetattr(STDIN_FILENO, TCSANOW, &saved);
        std::cerr << "\n";
    }
    return value;
}

int run_set(CliContext& ctx, const SecretArgs& a) {
    if (auto named = app::check_secret_name(a.name); !named) return fail_setup(named.error(), a.json);
    auto opened = open_secrets(ctx, a.user);
    if (!opened) return fail_setup(opened.error(), a.json);
    const std::string value = read_value(a.name, opened->user_id);
    if (auto set = opened->store->set(opened->user_id, a.name, value, "cli"); !set)
        return fail_operation(set.error(), a.json);
    opened->audit("secret_set", a.name);
    if (a.json) {
        print_json(boost::json::object{{"secret", a.name}, {"user_id", opened->user_id}, {"set", true}});
    } else {
        std::cout << "Set secret " << a.name << " for " << opened->user_id
                  << ". Servers that use it get the new value at the user's next call.\n";
    }
    return kExitOk;
}

int run_list(CliContext& ctx, const SecretArgs& a) {
    auto opened = open_secrets(ctx, a.user);
    if (!opened) return fail_setup(opened.error(), a.json);
    auto entries = opened->store->list(opened->user_id);
    if (!entries) return fail_operation(entries.error(), a.json);
    const auto needed = app::secrets_needed_by_servers(opened->config.plugin_dirs, entries.value());
    if (a.json) {
        boost::json::array out, servers;
        for (const auto& entry : entries.value())
            out.push_back(
                {{"name", entry.name}, {"updated_at", when(entry.updated_at_ms)}, {"updated_by", entry.updated_by}});
        for (const auto& need : needed)
            servers.push_back(
                {{"server", need.server}, {"secret", need.secret}, {"into", need.target}, {"set", need.set}});
        print_json(boost::json::object{
            {"user_id", opened->user_id}, {"secrets", std::move(out)}, {"needed", std::move(servers)}});
        return kExitOk;
    }
    if (entries->empty()) std::cout << "User " << opened->user_id << " has no secrets.\n";
    for (const auto& entry : entries.value())
        std::cout << entry.name << "  set " << when(entry.updated_at_ms) << " by " << entry.updated_by << "\n";
    if (!needed.empty()) std::cout << "\nWhat the declared MCP servers need:\n";
    for (const auto& need : needed) {
        std::cout << "  " << need.server << ": " << need.secret << " (" << need.target << ")  ";
        if (need.set) {
            std::cout << "set\n";
        } else {
            std::cout << "missing: skillhost secrets set " << need.secret << " --user " << opened->user_id << "\n";
        }
    }
    return kExitOk;
}

int run_delete(CliContext& ctx, const SecretArgs& a) {
    auto opened = open_secrets(ctx, a.user);
    if (!opened) return fail_setup(opened.error(), a.json);
    if (auto removed = opened->store->remove(opened->user_id, a.name); !removed)
        return fail_operation(removed.error(), a.json);
    opened->audit("secret_deleted", a.name);
    if (a.json) {
        print_json(boost::json::object{{"secret", a.name}, {"user_id", opened->user_id}, {"deleted", true}});
    } else {
        std::cout << "Deleted secret " << a.name << " of " << opened->user_id
                  << ". A server that needs it is refused for this user until it is set again.\n";
    }
    return kExitOk;
}

CLI::App* add_secret_command(CLI::App& secrets, CliContext& ctx, const char* name, const char* help,
                             std::shared_ptr<SecretArgs> args, bool named, int (*run)(CliContext&, const SecretArgs&)) {
    auto* command = secrets.add_subcommand(name, help);
    if (named)
        command->add_option("NAME", args->name, "The secret's name, as a server declaration's secrets: name says")
            ->required();
    command->add_option("--user", args->user, "Whose secret (default: the configured default user)");
    command->add_flag("--json", args->json, "Machine-readable output");
    ctx.add_global_options(*command);
    command->callback([&ctx, args, run] { ctx.exit_code = run(ctx, *args); });
    return command;
}

}  // namespace

void register_secrets_commands(CLI::App& app, CliContext& ctx) {
    auto* secrets =
        app.add_subcommand("secrets", "A user's secrets for foreign MCP servers (tokens, API keys): set, list, delete");
    secrets->footer(
        "A server declaration's `secrets:` names each one and where it goes (an environment variable or a "
        "header); each user sets their own. Values are sealed in the database (AES-256-GCM, key in "
        "<home>/secret.key), never shown, and redacted from everything the server sends back. See "
        "docs/gateway.md.");
    secrets->require_subcommand(1);
    add_secret_command(*secrets, ctx, "set",
                       "Set a secret; its value is read from standard input (one line), never from the command line",
                       std::make_shared<SecretArgs>(), true, run_set);
    add_secret_command(*secrets, ctx, "list", "The names of a user's secrets and when they were set (never values)",
                       std::make_shared<SecretArgs>(), false, run_list);
    add_secret_command(*secrets, ctx, "delete", "Delete a secret", std::make_shared<SecretArgs>(), true, run_delete);
}

}  // namespace skillhost::cli
