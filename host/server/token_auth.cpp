#include "server/token_auth.hpp"

#include "policy/api_token.hpp"

#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace skillhost::server {

namespace {

constexpr auto kCacheFor = std::chrono::seconds(10);
constexpr std::size_t kCacheMax = 4096;

Error unauthorized(const char* code, std::string message) {
    return Error{code,
                 std::move(message),
                 {},
                 {"send `Authorization: Bearer TOKEN`; the owner's token is in <home>/owner.token after the first "
                  "`skillhost serve`, and `skillhost token create --user ID` makes one for any user"}};
}

}  // namespace

TokenAuthenticator::TokenAuthenticator(const policy::UserDirectory& users, const policy::ApiTokenStore& tokens)
    : users_(users), tokens_(tokens) {}

Result<policy::TokenGrant> TokenAuthenticator::authenticate(std::string_view authorization) const {
    if (authorization.empty())
        return unauthorized("AUTH_MISSING", "this endpoint needs a bearer token and the request has none");
    constexpr std::string_view scheme = "Bearer ";
    if (authorization.size() <= scheme.size() || strncasecmp(authorization.data(), scheme.data(), scheme.size()) != 0) {
        return unauthorized("AUTH_MALFORMED", "the Authorization header must be `Bearer TOKEN`");
    }
    std::string_view token = authorization.substr(scheme.size());
    while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
    while (!token.empty() && (token.back() == ' ' || token.back() == '\r')) token.remove_suffix(1);
    if (token.empty()) return unauthorized("AUTH_MALFORMED", "the Authorization header must be `Bearer TOKEN`");

    const std::string digest = policy::hash_api_token(token);
    const auto now = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(cache_mutex_);
        auto it = cache_.find(digest);
        if (it != cache_.end() && it->second.until > now) return it->second.grant;
    }
    policy::TokenGrant grant;
    if (const auto* user = users_.authenticate(token)) {
        grant.user_id = user->id;
        grant.credential.token_id = policy::token_id_of_hash(digest);  // users.yaml tokens: every scope
    } else {
        auto stored = tokens_.grant_for(token);
        if (!stored) return stored.error();
        if (!stored.value() || !users_.find((*stored)->user_id)) {
            return unauthorized("AUTH_INVALID", "the bearer token does not belong to any user");
        }
        grant = std::move(**stored);
    }
    std::lock_guard lock(cache_mutex_);
    if (cache_.size() >= kCacheMax) cache_.clear();
    cache_[digest] = Cached{grant, now + kCacheFor};
    return grant;
}

Result<std::optional<std::filesystem::path>> ensure_owner_token(const policy::UserDirectory& users,
                                                                policy::ApiTokenStore& tokens,
                                                                const std::filesystem::path& home) {
    for (const auto& user : users.users()) {
        if (user.role != policy::Role::owner) continue;
        if (!user.api_token_sha256.empty()) return std::optional<std::filesystem::path>{};
        auto issued = tokens.list(user.id);
        if (!issued) return issued.error();
        if (!issued->empty()) return std::optional<std::filesystem::path>{};
    }
    const auto& owner = users.first_owner();
    auto token = tokens.issue(owner.id, "owner token created by the first `skillhost serve`");
    if (!token) return token.error();
    const std::filesystem::path file = home / "owner.token";
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        Error e{"TOKEN_FILE_UNWRITABLE",
                "cannot write " + file.string() + ": " + std::strerror(errno),
                {},
                {"make the home directory writable, or create a token with `skillhost token create --user " + owner.id +
                 "`"}};
        e.details["file"] = file.string();
        (void)tokens.revoke(token->sha256);
        return e;
    }
    (void)::fchmod(fd, 0600);  // an existing file keeps its old mode through O_CREAT
    const std::string text = token->token + "\n";
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!written) {
        (void)tokens.revoke(token->sha256);
        return Error{"TOKEN_FILE_UNWRITABLE", "cannot write " + file.string(), {}, {}};
    }
    return std::optional<std::filesystem::path>(file);
}

}  // namespace skillhost::server
