#include "app/user_secret_store.hpp"

#include "auth/error_codes.hpp"
#include "oauth/error_codes.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>

namespace skillhost::app {
namespace json = boost::json;
namespace {

constexpr std::string_view kGrantPrefix = "oauth:";
constexpr std::size_t kMaxGrantBytes = 64 * 1024;
constexpr std::size_t kMinValueBytes = 8;
constexpr std::size_t kMaxValueBytes = 8192;
constexpr std::size_t kMaxNameBytes = 128;

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// What the seal is bound to: whose secret it is and its name.
std::string bound_to(std::string_view user_id, std::string_view name) {
    return std::string(user_id) + '\n' + std::string(name);
}

Error invalid(std::string message) {
    return Error{errors::kSecretInvalid, std::move(message)};
}

}  // namespace

Status check_secret_name(std::string_view name) {
    const auto word = [](char c, bool first) {
        return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
    };
    bool shaped = !name.empty() && name.size() <= kMaxNameBytes;
    for (std::size_t i = 0; shaped && i < name.size(); ++i) shaped = word(name[i], i == 0);
    if (!shaped)
        return invalid("invalid secret name \"" + std::string(name.substr(0, kMaxNameBytes)) +
                       "\"; use letters, digits and _ (not first), at most 128, as a declaration's secrets: name "
                       "says, e.g. GITHUB_TOKEN");
    return {};
}

Status check_secret_value(std::string_view value) {
    if (value.size() < kMinValueBytes)
        return invalid("the secret's value is " + std::to_string(value.size()) + " bytes; at least " +
                       std::to_string(kMinValueBytes) +
                       " are needed, so that it can be redacted from what a server sends back");
    if (value.size() > kMaxValueBytes)
        return invalid("the secret's value is " + std::to_string(value.size()) + " bytes; at most " +
                       std::to_string(kMaxValueBytes) + " are accepted");
    for (const char c : value) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f)
            return invalid(
                "the secret's value holds a control character (a line break, a tab or a NUL): it goes into an "
                "environment variable or a header and must be one line; strip the trailing newline");
    }
    return {};
}

Result<std::shared_ptr<UserSecretStore>> UserSecretStore::open(const db::StorageLocation& location,
                                                               std::filesystem::path key_file) {
    auto connection = db::BackendConnection::open(location);
    if (!connection) return connection.error();
    return std::make_shared<UserSecretStore>(std::move(*connection), std::move(key_file));
}

UserSecretStore::UserSecretStore(std::unique_ptr<db::BackendConnection> connection, std::filesystem::path key_file)
    : connection_(std::move(connection)), key_file_(std::move(key_file)) {}

Result<const auth::SecretBox*> UserSecretStore::box(bool create) const {
    std::lock_guard lock(mutex_);
    if (!box_) {
        auto opened = auth::SecretBox::open(key_file_, create);
        if (!opened) return opened.error();
        box_.emplace(std::move(opened.value()));
    }
    return &*box_;
}

Status UserSecretStore::set(std::string_view user_id, std::string_view name, std::string_view value,
                            std::string_view by) {
    if (auto named = check_secret_name(name); !named) return named.error();
    if (auto valid = check_secret_value(value); !valid) return valid.error();
    return store(user_id, name, value, by);
}

Status UserSecretStore::store(std::string_view user_id, std::string_view name, std::string_view value,
                              std::string_view by) {
    auto sealer = box(true);
    if (!sealer) return sealer.error();
    auto sealed = (*sealer)->seal(value, bound_to(user_id, name));
    if (!sealed) return sealed.error();
    const std::vector<db::SqlValue> params{std::string(user_id), std::string(name), sealed->key_id, sealed->nonce,
                                           sealed->sealed,       now_ms(),          std::string(by)};
    auto written = connection_->run("setting a user's secret",
                                    "INSERT INTO user_secrets (user_id, name, key_id, nonce, sealed, updated_at_ms,"
                                    " updated_by) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, name) DO UPDATE"
                                    " SET key_id = excluded.key_id, nonce = excluded.nonce, sealed = excluded.sealed,"
                                    " updated_at_ms = excluded.updated_at_ms, updated_by = excluded.updated_by",
                                    params);
    if (!written) return written.error();
    return {};
}

Status UserSecretStore::remove(std::string_view user_id, std::string_view name) {
    auto removed =
        connection_->run("removing a user's secret", "DELETE FROM user_secrets WHERE user_id = ? AND name = ?",
                         {std::string(user_id), std::string(name)});
    if (!removed) return removed.error();
    if (removed->affected == 0) {
        Error error{errors::kSecretNotFound, "user '" + std::string(user_id) + "' has no secret " + std::string(name) +
                                                 "; `skillhost secrets list --user " + std::string(user_id) +
                                                 "` shows the ones set"};
        error.details["secret"] = std::string(name);
        error.details["user"] = std::string(user_id);
        return error;
    }
    return {};
}

Result<std::vector<SecretEntry>> UserSecretStore::list(std::string_view user_id) const {
    auto rows = connection_->run("listing a user's secrets",
                                 "SELECT name, updated_at_ms, updated_by FROM user_secrets WHERE user_id = ?"
                                 " ORDER BY name",
                                 {std::string(user_id)});
    if (!rows) return rows.error();
    std::vector<SecretEntry> entries;
    for (std::size_t i = 0; i < rows->size(); ++i) {
        if (rows->text(i, 0).starts_with(kGrantPrefix)) continue;  // `skillhost oauth status` shows those
        entries.push_back({rows->text(i, 0), rows->integer(i, 1), rows->text(i, 2)});
    }
    return entries;
}

Result<std::optional<std::string>> UserSecretStore::secret(std::string_view user_id, std::string_view name) const {
    auto rows = connection_->run("reading a user's secret",
                                 "SELECT key_id, nonce, sealed FROM user_secrets WHERE user_id = ? AND name = ?",
                                 {std::string(user_id), std::string(name)});
    if (!rows) return rows.error();
    if (rows->size() == 0) return std::optional<std::string>();
    auto opener = box(false);
    if (!opener) {
        Error error = std::move(opener.error());
        if (!std::filesystem::exists(key_file_))
            error.message = "user '" + std::string(user_id) + "''s secret " + std::string(name) +
                            " is sealed under key " + rows->text(0, 0) + ", and this host has no key file " +
                            key_file_.string() +
                            ": instances sharing a database must share the key file (copy it from the instance "
                            "that set the secret), or set the secret again";
        return error;
    }
    auto value = (*opener)->open({rows->text(0, 0), rows->text(0, 1), rows->text(0, 2)}, bound_to(user_id, name));
    if (!value) {
        value.error().details["secret"] = std::string(name);
        value.error().details["user"] = std::string(user_id);
        return value.error();
    }
    return std::optional<std::string>(std::move(value.value()));
}

Result<std::optional<oauth::Grant>> UserSecretStore::grant(std::string_view user_id, std::string_view server) const {
    auto text = secret(user_id, std::string(kGrantPrefix) + std::string(server));
    if (!text) return text.error();
    if (!*text) return std::optional<oauth::Grant>();
    std::error_code ec;
    const json::value parsed = json::parse(**text, ec);
    auto grant = oauth::grant_from_json(ec ? json::value() : parsed);
    if (!grant) return grant.error();
    return std::optional<oauth::Grant>(std::move(*grant));
}

Status UserSecretStore::keep(std::string_view user_id, std::string_view server, const oauth::Grant& grant) {
    const std::string text = json::serialize(oauth::grant_to_json(grant));
    if (text.size() > kMaxGrantBytes)
        return Error{errors::kSecretInvalid, "the OAuth grant for MCP server '" + std::string(server) + "' is " +
                                                 std::to_string(text.size()) + " bytes; at most " +
                                                 std::to_string(kMaxGrantBytes) + " are kept"};
    return store(user_id, std::string(kGrantPrefix) + std::string(server), text, "oauth");
}

Status UserSecretStore::forget(std::string_view user_id, std::string_view server) {
    auto removed =
        connection_->run("removing a user's OAuth grant", "DELETE FROM user_secrets WHERE user_id = ? AND name = ?",
                         {std::string(user_id), std::string(kGrantPrefix) + std::string(server)});
    if (!removed) return removed.error();
    if (removed->affected == 0)
        return Error{
            errors::kOauthAuthorizationRequired,
            "user '" + std::string(user_id) + "' has not authorized with MCP server '" + std::string(server) + "'"};
    return {};
}

}  // namespace skillhost::app
