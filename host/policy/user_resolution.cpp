// resolve_user_context (declared in mode_store.hpp and mode_cache.hpp): a user of users.yaml with
// the cognitive mode they chose, the one way both the store and the cache are read.
#include "policy/error_codes.hpp"
#include "policy/mode_cache.hpp"
#include "policy/mode_store.hpp"

#include <boost/json/array.hpp>

namespace skillhost::policy {

namespace {

template <typename Modes>
Result<auth::UserContext> resolve_with(const auth::UserDirectory& users, const Modes& modes, std::string_view user_id) {
    const auth::User* user = users.find(user_id);
    if (user == nullptr) {
        Error error{errors::kUserNotFound,
                    "no user `" + std::string(user_id) + "` in " +
                        (users.file().empty() ? std::string("the built-in user list") : users.file().string()) +
                        "; known users: " + users.ids_text() +
                        ". Pass one of them with --user or add the user to users.yaml",
                    {},
                    {}};
        error.details["user"] = std::string(user_id);
        boost::json::array known;
        for (const auto& u : users.users()) known.emplace_back(u.id);
        error.details["known_users"] = std::move(known);
        return error;
    }
    auto mode = modes.effective_mode(*user);
    if (!mode) return mode.error();
    return auth::make_user_context(*user, *mode);
}

}  // namespace

Result<auth::UserContext> resolve_user_context(const auth::UserDirectory& users, const ModeStore& modes,
                                               std::string_view user_id) {
    return resolve_with(users, modes, user_id);
}

Result<auth::UserContext> resolve_user_context(const auth::UserDirectory& users, const ModeCache& modes,
                                               std::string_view user_id) {
    return resolve_with(users, modes, user_id);
}

}  // namespace skillhost::policy
