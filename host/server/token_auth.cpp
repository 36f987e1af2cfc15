#include "server/token_auth.hpp"
#include "server/error_codes.hpp"

#include "auth/api_token.hpp"

#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include <spdlog/spdlog.h>

namespace skillhost::server {

namespace {

constexpr auto kCacheFor = std::chrono::seconds(10);
constexpr std::size_t kCacheMax = 4096;

Error unauthorized(const ErrorCode& code, std::string message) {
    return Error{code,
                 std::move(message),
                 {},
                 {"send `Authorization: Bearer TOKEN`; the owner's token is in <home>/owner.token after the first "
                  "`skillhost serve`, and `skillhost token create --user ID` makes one for any user"}};
}

}  // namespace

TokenAuthenticator::TokenAuthenticator(const auth::UserDirectory& users, const auth::ApiTokenStore& tokens)
    : users_(users), tokens_(tokens) {}

Result<auth::TokenGrant> TokenAuthenticator::authenticate(std::string_view authorization) const {
    if (authorization.empty())
        return unauthorized(errors::kAuthMissing, "this endpoint needs a bearer token and the request has none");
    constexpr std::string_view scheme = "Bearer ";
    if (authorization.size() <= scheme.size() || strncasecmp(authorization.data(), scheme.data(), scheme.size()) != 0) {
        return unauthorized(errors::kAuthMalformed, "the Authorization header must be `Bearer TOKEN`");
    }
    std::string_view token = authorization.substr(scheme.size());
    while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
    while (!token.empty() && (token.back() == ' ' || token.back() == '\r')) token.remove_suffix(1);
    if (token.empty()) return unauthorized(errors::kAuthMalformed, "the Authorization header must be `Bearer TOKEN`");

    const std::string digest = auth::hash_api_token(token);
    const auto now = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(cache_mutex_);
        auto it = cache_.find(digest);
        if (it != cache_.end() && it->second.until > now) return it->second.grant;
    }
    auth::TokenGrant grant;
    if (const auto* user = users_.authenticate(token)) {
        grant.user_id = user->id;
        grant.credential.token_id = auth::token_id_of_hash(digest);  // users.yaml tokens: every scope
    } else {
        auto stored = tokens_.grant_for(token);
        if (!stored) return stored.error();
        if (!stored.value() || !users_.find((*stored)->user_id)) {
            return unauthorized(errors::kAuthInvalid, "the bearer token does not belong to any user");
        }
        grant = std::move(**stored);
    }
    std::lock_guard lock(cache_mutex_);
    if (cache_.size() >= kCacheMax) cache_.clear();
    cache_[digest] = Cached{grant, now + kCacheFor};
    return grant;
}

namespace {

constexpr std::string_view kOwnerTokenLabel = "owner token created by the first `skillhost serve`";

// The token in <home>/owner.token when it is one of `issued` (a file that is missing, empty or
// holds anything else lost it).
bool file_holds_one_of(const std::filesystem::path& file, const std::vector<auth::IssuedToken>& issued) {
    std::ifstream in(file);
    std::string token;
    if (!(in >> token) || token.empty()) return false;
    const std::string hash = auth::hash_api_token(token);
    for (const auto& t : issued)
        if (t.sha256 == hash) return true;
    return false;
}

// Writes the token beside the file, syncs it, then renames it over: a crash or a full disk never
// leaves an empty owner.token behind.
Status write_token_file(const std::filesystem::path& file, const std::string& token) {
    const std::filesystem::path temporary = file.string() + ".new";
    const auto failed = [&](int error_number) {
        Error e{errors::kTokenFileUnwritable,
                "cannot write " + file.string() + ": " + std::strerror(error_number),
                {},
                {"make the home directory writable (and give it free space), then restart `skillhost serve`"}};
        e.details["file"] = file.string();
        ::unlink(temporary.c_str());
        return e;
    };
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return failed(errno);
    (void)::fchmod(fd, 0600);  // an existing file keeps its old mode through O_CREAT
    const std::string text = token + "\n";
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    const int write_errno = written ? 0 : (errno != 0 ? errno : ENOSPC);
    const bool synced = written && ::fsync(fd) == 0;
    const int sync_errno = synced ? 0 : (write_errno != 0 ? write_errno : errno);
    ::close(fd);
    if (!synced) return failed(sync_errno);
    if (::rename(temporary.c_str(), file.c_str()) != 0) return failed(errno);
    const int dir = ::open(file.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        (void)::fsync(dir);
        ::close(dir);
    }
    return {};
}

}  // namespace

Result<std::optional<std::filesystem::path>> ensure_owner_token(const auth::UserDirectory& users,
                                                                auth::ApiTokenStore& tokens,
                                                                const std::filesystem::path& home) {
    const std::filesystem::path file = home / "owner.token";
    std::vector<auth::IssuedToken> written_before;  // tokens only owner.token ever held
    for (const auto& user : users.users()) {
        if (user.role != auth::Role::owner) continue;
        if (!user.api_token_sha256.empty()) return std::optional<std::filesystem::path>{};
        auto issued = tokens.list(user.id);
        if (!issued) return issued.error();
        for (const auto& t : *issued) {
            // A token someone created by hand is theirs: the owner can still sign in with it.
            if (t.label != kOwnerTokenLabel) return std::optional<std::filesystem::path>{};
            written_before.push_back(t);
        }
    }
    if (!written_before.empty()) {
        if (file_holds_one_of(file, written_before)) return std::optional<std::filesystem::path>{};
        // The only way in is gone (deleted, emptied by a crash or a repaired file system): issue a
        // new one rather than lock the owner out, and retire the lost ones.
        spdlog::warn(
            "serve: {} is missing or does not hold the owner's token (lost?); issuing a new one there and "
            "revoking the {} lost token(s)",
            file.string(), written_before.size());
    }
    const auto& owner = users.first_owner();
    auto token = tokens.issue(owner.id, kOwnerTokenLabel);
    if (!token) return token.error();
    if (auto st = write_token_file(file, token->token); !st) {
        (void)tokens.revoke(token->sha256);
        return st.error();
    }
    for (const auto& lost : written_before) (void)tokens.revoke(lost.sha256);
    return std::optional<std::filesystem::path>(file);
}

}  // namespace skillhost::server
