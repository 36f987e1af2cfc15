// `skillhost plugin install FILE` and `skillhost plugin verify FILE`: the npm package a foreign MCP
// server declaration pins (`package:`), installed once into packages_dir (where the npm registry is
// reachable) and checked file by file; the server then runs from it offline
// (plugin/foreign_package.hpp).
#include "cli/cli_context.hpp"
#include "cli/error_codes.hpp"
#include "cli/output.hpp"
#include "manifest/foreign_server.hpp"
#include "plugin/foreign_package.hpp"

#include <filesystem>
#include <iostream>
#include <memory>
#include <variant>

namespace skillhost::cli {
namespace {

struct PackageArgs {
    std::string file;
    bool json = false;
};

// The declaration in `file`, when it is a foreign server that declares a package.
Result<manifest::ForeignServer> packaged_server(const std::string& file) {
    auto declaration = manifest::load_plugin_declaration(file);
    if (!declaration) return declaration.error();
    const auto* server = std::get_if<manifest::ForeignServer>(&declaration.value());
    if (server == nullptr)
        return Error{errors::kNoPackageDeclared,
                     file +
                         " is a native plugin manifest; plugin install and verify are for MCP server declarations "
                         "(kind: mcp_server) with package: {npm, version, integrity}"};
    if (!server->package)
        return Error{errors::kNoPackageDeclared,
                     file + " (MCP server '" + server->name +
                         "') declares no package, so there is nothing to install or verify; add package: {npm: NAME, "
                         "version: EXACT, integrity: sha512-...} (the integrity as in package-lock.json)"};
    return *server;
}

boost::json::object package_json(const manifest::ForeignServer& server, const plugin::InstalledPackage& installed) {
    boost::json::object out{{"server", server.name},
                            {"manifest", server.file.string()},
                            {"package", server.package->npm},
                            {"version", server.package->version},
                            {"integrity", installed.integrity},
                            {"install_dir", installed.install_dir.string()},
                            {"package_dir", installed.package_dir.string()},
                            {"files", installed.files},
                            {"tree_digest", installed.tree_digest}};
    return out;
}

std::string spec_of(const manifest::ForeignServer& server) {
    return server.package->npm + "@" + server.package->version;
}

int run_install(CliContext& ctx, const PackageArgs& args) {
    auto server = packaged_server(args.file);
    if (!server) return fail_setup(server.error(), args.json);
    auto cfg = ctx.load_config();
    if (!cfg) return fail_setup(cfg.error(), args.json);
    plugin::PackageInstallOptions options;
    options.packages_dir = cfg->packages_dir;
    if (!args.json) std::cerr << "installing " << spec_of(*server) << " into " << cfg->packages_dir.string() << "...\n";
    auto installed = plugin::install_package(*server, options);
    if (!installed) return fail_operation(installed.error(), args.json);
    if (args.json) {
        boost::json::object out = package_json(*server, *installed);
        out["ok"] = true;
        out["already_installed"] = installed->already_installed;
        if (!installed->replaced.empty()) out["replaced"] = installed->replaced;
        print_json(out);
        return kExitOk;
    }
    if (installed->already_installed) {
        std::cout << spec_of(*server) << " is already installed and unchanged in " << installed->install_dir.string()
                  << " (" << installed->files << " files); nothing to do\n";
        return kExitOk;
    }
    if (!installed->replaced.empty())
        std::cout << "replaced an install that had changed: " << installed->replaced << "\n";
    std::cout << "installed " << spec_of(*server) << " (integrity verified: " << installed->integrity << ") in "
              << installed->install_dir.string() << ": " << installed->files << " files, tree "
              << installed->tree_digest << "\n"
              << "MCP server '" << server->name << "' runs it offline from there; ${package} is "
              << installed->package_dir.string() << "\n";
    return kExitOk;
}

int run_verify(CliContext& ctx, const PackageArgs& args) {
    auto server = packaged_server(args.file);
    if (!server) return fail_setup(server.error(), args.json);
    auto cfg = ctx.load_config();
    if (!cfg) return fail_setup(cfg.error(), args.json);
    auto verified = plugin::verify_package(*server, cfg->packages_dir);
    if (!verified) return fail_operation(verified.error(), args.json);
    if (args.json) {
        boost::json::object out = package_json(*server, *verified);
        out["ok"] = true;
        print_json(out);
        return kExitOk;
    }
    std::cout << spec_of(*server) << " in " << verified->install_dir.string() << " is as installed: " << verified->files
              << " files, tree " << verified->tree_digest << ", integrity " << verified->integrity << "\n";
    return kExitOk;
}

void add_package_command(CLI::App& plugin, CliContext& ctx, const std::string& name, const std::string& description,
                         const std::string& footer, int (*run)(CliContext&, const PackageArgs&)) {
    auto args = std::make_shared<PackageArgs>();
    auto* cmd = plugin.add_subcommand(name, description);
    cmd->add_option("FILE", args->file, "A foreign MCP server's declaration (kind: mcp_server) with package:")
        ->required();
    cmd->add_flag("--json", args->json, "Machine-readable result (an {\"error\": ...} object on failure)");
    cmd->footer(footer);
    ctx.add_global_options(*cmd);
    cmd->callback([&ctx, args, run] {
        if (!args->file.empty()) args->file = std::filesystem::absolute(args->file).string();
        ctx.exit_code = run(ctx, *args);
    });
}

}  // namespace

void register_plugin_package_commands(CLI::App& plugin, CliContext& ctx) {
    add_package_command(
        plugin, ctx, "install",
        "Install the npm package a foreign MCP server declaration pins (package:), once, for it to run offline",
        "Fetches the tarball with `npm pack NAME@VERSION` (npm's own settings apply: .npmrc, npm_config_cache,\n"
        "npm_config_registry), checks its SHA-512 against the declared integrity (a mismatch installs nothing),\n"
        "installs it with `npm install --ignore-scripts --omit=dev` (no install script runs), records every file\n"
        "and moves it into <packages_dir>/<name, '/' as '+'>@<version> in one step. Installed and unchanged: does\n"
        "nothing. Needs npm (Debian: apt-get install nodejs npm) and the registry; running the server needs neither.\n"
        "packages_dir is set in skillhost.yaml (default <home>/packages). docs/gateway.md, \"Packages\".\n"
        "Exit status: 0 installed (or already), 1 failed (UPSTREAM_PACKAGE_INTEGRITY,\n"
        "UPSTREAM_PACKAGE_INSTALL_FAILED), 2 the file declares no package or the configuration is invalid.\n"
        "Example: skillhost plugin install /etc/skillhost/plugins/memory.yaml --config /etc/skillhost/skillhost.yaml",
        run_install);
    add_package_command(
        plugin, ctx, "verify", "Check that the installed package of a foreign MCP server declaration is unchanged",
        "Hashes every file of the install again and compares it with the record `plugin install` wrote, as every\n"
        "load of the declaration does. Exit status: 0 unchanged, 1 not installed (UPSTREAM_PACKAGE_NOT_INSTALLED),\n"
        "installed from another tarball (UPSTREAM_PACKAGE_INTEGRITY) or changed (UPSTREAM_PACKAGE_MODIFIED, naming\n"
        "the first file that differs; install again to replace it), 2 the file declares no package.\n"
        "Example: skillhost plugin verify /etc/skillhost/plugins/memory.yaml --json",
        run_verify);
}

}  // namespace skillhost::cli
