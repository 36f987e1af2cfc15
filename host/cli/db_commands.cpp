// `skillhost db migrate|check`: the schema of the configured storage backend (SQLite file or
// PostgreSQL database). Stores migrate on open too; these let an operator do it deliberately, e.g.
// once before rolling out several daemons.
#include "app/storage_schema.hpp"
#include "cli/cli_context.hpp"
#include "cli/output.hpp"

#include <iostream>

namespace skillhost::cli {
namespace {

struct DbArgs {
    bool json = false;
    bool set_aside = false;  // check: move damaged SQLite files aside
};

boost::json::object status_json(const db::SchemaStatus& status) {
    boost::json::array pending;
    for (const auto& m : status.pending)
        pending.push_back({{"version", m.version}, {"description", std::string(m.description)}});
    return {{"backend", status.backend}, {"database", status.where},          {"current", status.current},
            {"latest", status.latest},   {"up_to_date", status.up_to_date()}, {"pending", std::move(pending)}};
}

void print_status(const db::SchemaStatus& status) {
    std::cout << status.backend << " " << status.where << ": schema version " << status.current << " of "
              << status.latest << "\n";
    for (const auto& m : status.pending) std::cout << "  pending " << m.version << ": " << m.description << "\n";
}

int run_migrate(CliContext& ctx, const DbArgs& a) {
    auto config = ctx.load_config();
    if (!config) return fail_setup(config.error(), a.json);
    auto status = app::migrate_storage(*config);
    if (!status) return fail_setup(status.error(), a.json);
    if (a.json) {
        print_json(status_json(*status));
    } else {
        print_status(*status);
        std::cout << "Up to date.\n";
    }
    return kExitOk;
}

int run_check(CliContext& ctx, const DbArgs& a) {
    auto config = ctx.load_config();
    if (!config) return fail_setup(config.error(), a.json);
    // Damage first: opening a damaged database would let SQLite work around it (and change it).
    if (const auto problems = app::inspect_store_files(*config); !problems.empty()) {
        const Error damaged = db::damaged_store_error(config->database_file(), problems);
        if (!a.set_aside) {
            if (a.json) print_error_json(damaged);
            print_error(damaged);
            return kExitFailed;
        }
        auto moved = app::set_aside_store_files(*config);
        if (!moved) return fail_setup(moved.error(), a.json);
        if (a.json) {
            print_json(
                boost::json::object{{"set_aside", moved->string()}, {"problems", damaged.details.at("problems")}});
        } else {
            for (const auto& p : problems) std::cout << p.file.string() << ": " << p.what << "\n";
            std::cout << "Moved the database files into " << moved->string()
                      << " (nothing deleted). The next start creates a new, empty database.\n";
        }
        return kExitOk;
    }
    if (a.set_aside) std::cout << "No damage found; nothing was moved.\n";
    auto status = app::check_storage(*config);
    if (!status) return fail_setup(status.error(), a.json);
    if (status->current > status->latest) {
        const Error too_new = db::schema_too_new_error(*status);
        if (a.json) print_error_json(too_new);
        print_error(too_new);
        return kExitFailed;
    }
    if (a.json) {
        print_json(status_json(*status));
    } else {
        print_status(*status);
        std::cout << (status->up_to_date() ? "Up to date.\n"
                                           : "Run `skillhost db migrate` to apply the pending steps.\n");
    }
    return status->up_to_date() ? kExitOk : kExitFailed;
}

}  // namespace

void register_db_commands(CLI::App& app, CliContext& ctx) {
    auto* db = app.add_subcommand("db", "The storage schema (skillhost.yaml `storage:`): migrate, check");
    db->require_subcommand(1);
    auto ma = std::make_shared<DbArgs>();
    auto* migrate = db->add_subcommand("migrate", "Apply the pending schema migrations of the configured backend");
    migrate->add_flag("--json", ma->json, "Machine-readable output");
    ctx.add_global_options(*migrate);
    migrate->callback([&ctx, ma] { ctx.exit_code = run_migrate(ctx, *ma); });

    auto ca = std::make_shared<DbArgs>();
    auto* check = db->add_subcommand(
        "check",
        "Report damage and the schema version without changing anything; exit 1 when the database is damaged "
        "or migrations are pending");
    check->add_flag("--json", ca->json, "Machine-readable output");
    check->add_flag("--set-aside", ca->set_aside,
                    "When the SQLite database or its WAL is damaged, move them into damaged-<time>/ beside them "
                    "(nothing is deleted) so the host can start on a new database");
    ctx.add_global_options(*check);
    check->callback([&ctx, ca] { ctx.exit_code = run_check(ctx, *ca); });
}

}  // namespace skillhost::cli
