// `skillhost token create|list|revoke`: API tokens for `skillhost serve` (only hashes are stored).
#include "app/storage_schema.hpp"
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "auth/api_token_store.hpp"
#include "cli/error_codes.hpp"

#include <iostream>

namespace skillhost::cli {
namespace {

struct TokenArgs {
    std::string user;
    std::string label;
    std::string id;
    std::string scope = "call";
    bool json = false;
};

Result<std::unique_ptr<auth::ApiTokenStore>> open_store(CliContext& ctx) {
    auto rt = ctx.runtime();
    if (!rt) return rt.error();
    return auth::ApiTokenStore::open(app::storage_location(rt.value()->config()));
}

int run_create(CliContext& ctx, const TokenArgs& a) {
    auto rt = ctx.runtime();
    if (!rt) return fail_setup(rt.error(), a.json);
    auto user = rt.value()->user(a.user);
    if (!user) return fail_setup(user.error(), a.json);
    auto scopes = auth::Scopes::parse(a.scope);
    if (!scopes) return fail_setup(scopes.error(), a.json);
    auto store = open_store(ctx);
    if (!store) return fail_setup(store.error(), a.json);
    auto issued = store.value()->issue(user->user_id, a.label, scopes.value());
    if (!issued) return fail_setup(issued.error(), a.json);
    if (a.json) {
        print_json(boost::json::object{{"token", issued->token},
                                       {"user_id", issued->user_id},
                                       {"id", issued->sha256.substr(0, 12)},
                                       {"label", issued->label},
                                       {"scopes", issued->scopes.to_text()}});
        return kExitOk;
    }
    std::cout << issued->token << "\n";
    std::cerr << "Token for user " << issued->user_id << " (id " << issued->sha256.substr(0, 12) << ", scopes "
              << issued->scopes.to_text() << "). It is shown only now; store it safely.\n";
    return kExitOk;
}

int run_list(CliContext& ctx, const TokenArgs& a) {
    auto store = open_store(ctx);
    if (!store) return fail_setup(store.error(), a.json);
    auto tokens = store.value()->list(a.user);
    if (!tokens) return fail_setup(tokens.error(), a.json);
    if (a.json) {
        boost::json::array out;
        for (const auto& t : tokens.value())
            out.push_back({{"id", t.sha256.substr(0, 12)},
                           {"user_id", t.user_id},
                           {"label", t.label},
                           {"scopes", t.scopes.to_text()},
                           {"created_ms", t.created_ms}});
        print_json(boost::json::object{{"tokens", std::move(out)}});
        return kExitOk;
    }
    if (tokens->empty()) std::cout << "No tokens issued by skillhost (tokens in users.yaml are not listed here).\n";
    for (const auto& t : tokens.value())
        std::cout << t.sha256.substr(0, 12) << "  " << t.user_id << "  " << t.scopes.to_text() << "  " << t.label
                  << "\n";
    return kExitOk;
}

int run_revoke(CliContext& ctx, const TokenArgs& a) {
    auto store = open_store(ctx);
    if (!store) return fail_setup(store.error(), a.json);
    auto removed = store.value()->revoke(a.id);
    if (!removed) return fail_setup(removed.error(), a.json);
    if (removed.value() == 0) {
        Error e{errors::kTokenNotFound, "no token with id " + a.id, {}, {"`skillhost token list` shows the ids"}};
        if (a.json) print_error_json(e);
        print_error(e);
        return kExitFailed;
    }
    if (a.json)
        print_json(boost::json::object{{"revoked", removed.value()}});
    else
        std::cout << "Revoked " << removed.value()
                  << " token(s). A running server stops accepting it within 10 seconds.\n";
    return kExitOk;
}

}  // namespace

void register_token_commands(CLI::App& app, CliContext& ctx) {
    auto* token = app.add_subcommand("token", "API tokens for the HTTP API: create, list, revoke");
    token->require_subcommand(1);
    auto ca = std::make_shared<TokenArgs>();
    auto* create = token->add_subcommand("create", "Create a token for a user and print it (shown only once)");
    create->add_option("--user", ca->user, "The user the token acts as (default: the configured default user)");
    create->add_option("--label", ca->label, "What the token is for, e.g. \"ci\"");
    create->add_option("--scope", ca->scope,
                       "What the token may do, comma-separated: call (run skills and runs), approve (resolve "
                       "approvals; never the token's own calls), admin (act on other users' data as an owner). "
                       "Default: call");
    create->add_flag("--json", ca->json, "Machine-readable output");
    ctx.add_global_options(*create);
    create->callback([&ctx, ca] { ctx.exit_code = run_create(ctx, *ca); });

    auto la = std::make_shared<TokenArgs>();
    auto* list = token->add_subcommand("list", "Tokens skillhost issued (ids, users, labels; never the tokens)");
    list->add_option("--user", la->user, "Only this user's");
    list->add_flag("--json", la->json, "Machine-readable output");
    ctx.add_global_options(*list);
    list->callback([&ctx, la] { ctx.exit_code = run_list(ctx, *la); });

    auto ra = std::make_shared<TokenArgs>();
    auto* revoke = token->add_subcommand("revoke", "Revoke a token by its id (from `token list`)");
    revoke->add_option("ID", ra->id, "Token id (at least 8 hex digits)")->required();
    revoke->add_flag("--json", ra->json, "Machine-readable output");
    ctx.add_global_options(*revoke);
    revoke->callback([&ctx, ra] { ctx.exit_code = run_revoke(ctx, *ra); });
}

}  // namespace skillhost::cli
