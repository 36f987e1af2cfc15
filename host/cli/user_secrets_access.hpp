// The user secret store as the CLI opens it (`skillhost secrets`, `skillhost oauth`): the host's
// database and key file, and whose secrets are meant (--user, else the configured default user,
// checked against users.yaml). No plugin is loaded, nor any MCP server started, for this.
#pragma once

#include "app/user_secret_store.hpp"
#include "cli/cli_context.hpp"
#include "config/host_config.hpp"

#include <memory>
#include <string>
#include <string_view>

namespace skillhost::cli {

struct OpenedSecrets {
    std::shared_ptr<app::UserSecretStore> store;
    std::string user_id;
    config::HostConfig config;

    // Changes are audited as the daemon audits them (by "cli": the person at the terminal).
    void audit(std::string_view kind, std::string_view name) const;
};

Result<OpenedSecrets> open_secrets(CliContext& ctx, const std::string& wanted);

}  // namespace skillhost::cli
