#include "plugin/runner_identity.hpp"
#include "plugin/error_codes.hpp"

#include <pwd.h>
#include <unistd.h>

#include <charconv>
#include <vector>

namespace skillhost::plugin {
namespace {

constexpr const char* default_user = "skillhost-runner";

bool number(std::string_view text, std::uint32_t& out) {
    if (text.empty()) return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

bool find_user(const std::string& name, RunnerIdentity& out) {
    passwd entry{};
    passwd* found = nullptr;
    std::vector<char> buffer(16384);
    if (::getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) return false;
    out.uid = found->pw_uid;
    out.gid = found->pw_gid;
    return true;
}

Error invalid(std::string message) {
    return Error{errors::kRunnerUserInvalid, std::move(message)};
}

}  // namespace

Result<RunnerIdentity> resolve_runner_identity(std::string_view configured) {
    RunnerIdentity out;
    if (configured.empty()) {
        if (find_user(default_user, out)) {
            out.described = std::string(default_user) + " (uid " + std::to_string(out.uid) + ", gid " +
                            std::to_string(out.gid) + ")";
        } else {
            out.uid = fallback_runner_id;
            out.gid = fallback_runner_id;
            out.described = "uid " + std::to_string(out.uid) + ", gid " + std::to_string(out.gid) +
                            " (no `skillhost-runner` user on this system; isolation.runner_user sets another)";
        }
    } else {
        const std::string text(configured);
        const std::size_t colon = text.find(':');
        std::uint32_t uid = 0, gid = 0;
        if (number(text.substr(0, colon), uid)) {
            gid = uid;
            if (colon != std::string::npos && !number(text.substr(colon + 1), gid))
                return invalid("isolation.runner_user '" + text + "': expected a user name or uid[:gid]");
            out.uid = uid;
            out.gid = gid;
        } else if (!find_user(text, out)) {
            return invalid("isolation.runner_user '" + text +
                           "' is not a user of this system; create it (useradd --system --no-create-home "
                           "--shell /usr/sbin/nologin " +
                           text + ") or give uid[:gid]");
        }
        out.described = text + " (uid " + std::to_string(out.uid) + ", gid " + std::to_string(out.gid) + ")";
    }
    if (out.uid == 0 || out.gid == 0)
        return invalid("isolation.runner_user must not be root (uid or gid 0): runners must hold no privilege");
    if (out.uid == ::getuid())
        return invalid("isolation.runner_user is the daemon's own user: runners must not share its identity");
    return out;
}

}  // namespace skillhost::plugin
