#include "workspace.hpp"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>

namespace skillhost_builtin::fs {

using skillhost::Json;
using skillhost::SkillError;

namespace {

// Linux follows at most 40 links per lookup; use the same bound to call a loop a loop.
constexpr int kMaxSymlinks = 40;
constexpr std::size_t kMaxPathBytes = 4096;
constexpr std::size_t kMaxNameBytes = 255;

}  // namespace

std::vector<std::string> split_path(std::string_view path) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        std::string_view part = path.substr(start, end - start);
        if (!part.empty() && part != ".") out.emplace_back(part);
        start = end + 1;
    }
    return out;
}

std::string ResolvedPath::relative_prefix(std::size_t count) const {
    if (count == 0) return ".";
    std::string out;
    for (std::size_t i = 0; i < count && i < components.size(); ++i) {
        if (i) out += '/';
        out += components[i];
    }
    return out;
}

Workspace::Workspace(const skillhost::Call& call) : root_(call.workspace_root()) {
    if (root_.empty())
        throw SkillError("NO_WORKSPACE",
                         "this user has no workspace root configured, so no files can be used; set a workspace for "
                         "the user in users.yaml (or default_workspace in skillhost.yaml)",
                         Json::object({{"user", std::string(call.user_id())}}));
    std::unique_ptr<char, decltype(&::free)> real(::realpath(root_.c_str(), nullptr), &::free);
    int err = errno;
    if (!real)
        throw SkillError("NO_WORKSPACE",
                         "the workspace root '" + root_ + "' cannot be used: " + std::strerror(err) +
                             "; create the directory or fix the user's workspace setting",
                         Json::object({{"root", root_}, {"errno", err}}));
    root_fd_ = UniqueFd(::open(real.get(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root_fd_.valid())
        throw SkillError("NO_WORKSPACE",
                         "the workspace root '" + root_ + "' is not a directory that can be opened: " +
                             std::strerror(errno) + "; fix the user's workspace setting",
                         Json::object({{"root", root_}}));
    real_components_ = split_path(real.get());
    root_components_ = split_path(root_);
    for (const auto& c : root_components_)
        if (c == "..") root_components_.clear();
}

bool Workspace::strip_root(std::vector<std::string>& components) const {
    // Whole components are compared, never string prefixes: /work/rootx is not inside /work/root.
    for (const auto* prefix : {&real_components_, &root_components_}) {
        if (prefix->empty() && prefix == &root_components_) continue;
        if (components.size() < prefix->size()) continue;
        bool match = true;
        for (std::size_t i = 0; i < prefix->size(); ++i)
            if (components[i] != (*prefix)[i]) {
                match = false;
                break;
            }
        if (match) {
            components.erase(components.begin(), components.begin() + static_cast<std::ptrdiff_t>(prefix->size()));
            return true;
        }
    }
    return false;
}

ResolvedPath Workspace::resolve(std::string_view requested) const {
    ResolvedPath out;
    out.context = PathContext{std::string(requested), root_};
    const PathContext& ctx = out.context;
    if (requested.find('\0') != std::string_view::npos) throw_not_allowed(ctx, "nul_byte", "it contains a NUL byte");
    if (requested.size() > kMaxPathBytes) throw_too_long(ctx, std::to_string(requested.size()) + " bytes");

    std::vector<std::string> initial = split_path(requested);
    if (!requested.empty() && requested.front() == '/' && !strip_root(initial))
        throw_not_allowed(ctx, "absolute_outside_root", "it is an absolute path outside the workspace root");
    for (const auto& c : initial)
        if (c.size() > kMaxNameBytes) throw_too_long(ctx, "a name of " + std::to_string(c.size()) + " bytes");

    std::deque<std::string> pending(initial.begin(), initial.end());
    std::vector<std::string>& stack = out.components;
    // dirs[i] is an O_PATH descriptor of the directory stack[0, i); dirs[0] is the root.
    std::vector<UniqueFd> dirs;
    dirs.emplace_back(::fcntl(root_fd_.get(), F_DUPFD_CLOEXEC, 0));
    if (!dirs.back().valid()) throw_errno(ctx, errno, "opening the workspace root", ".");
    bool exists = true;
    int links = 0;
    struct stat st {};
    if (::fstat(root_fd_.get(), &st) != 0) throw_errno(ctx, errno, "reading the workspace root", ".");

    while (!pending.empty()) {
        std::string name = std::move(pending.front());
        pending.pop_front();
        if (name == "..") {
            if (!exists) throw_not_found(ctx, out.relative());
            if (stack.empty()) {
                if (links > 0)
                    throw_not_allowed(ctx, "symlink_outside_root",
                                      "a symbolic link on its way leads above the workspace root");
                throw_not_allowed(ctx, "parent_escape", "its '..' components climb above the workspace root");
            }
            stack.pop_back();
            if (dirs.size() > stack.size() + 1) dirs.resize(stack.size() + 1);
            continue;
        }
        if (!exists) {
            stack.push_back(std::move(name));
            continue;
        }
        // Make sure we hold a descriptor of the directory that contains `name`.
        while (dirs.size() < stack.size() + 1) {
            const std::string& dir_name = stack[dirs.size() - 1];
            UniqueFd next(::openat(dirs.back().get(), dir_name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (!next.valid()) throw_errno(ctx, errno, "opening directory", out.relative_prefix(dirs.size()));
            dirs.push_back(std::move(next));
        }
        struct stat entry {};
        if (::fstatat(dirs.back().get(), name.c_str(), &entry, AT_SYMLINK_NOFOLLOW) != 0) {
            int err = errno;
            if (err != ENOENT) {
                stack.push_back(name);
                throw_errno(ctx, err, "inspecting", out.relative());
            }
            exists = false;
            out.existing = stack.size();
            stack.push_back(std::move(name));
            continue;
        }
        if (S_ISLNK(entry.st_mode)) {
            if (++links > kMaxSymlinks)
                throw_not_allowed(ctx, "symlink_loop",
                                  "resolving it follows more than 40 symbolic links (a symlink loop)");
            std::string target(PATH_MAX, '\0');
            ssize_t n = ::readlinkat(dirs.back().get(), name.c_str(), target.data(), target.size());
            if (n < 0) {
                stack.push_back(name);
                throw_errno(ctx, errno, "reading symbolic link", out.relative());
            }
            target.resize(static_cast<std::size_t>(n));
            std::vector<std::string> target_components = split_path(target);
            if (!target.empty() && target.front() == '/') {
                if (!strip_root(target_components)) {
                    stack.push_back(name);
                    throw_not_allowed(ctx, "symlink_outside_root",
                                      "the symbolic link '" + out.relative() + "' points outside the workspace root",
                                      Json::object({{"link", out.relative()}}));
                }
                stack.clear();
                dirs.resize(1);
            }
            pending.insert(pending.begin(), target_components.begin(), target_components.end());
            continue;
        }
        stack.push_back(std::move(name));
        st = entry;
        // Anything still pending (even "..") must be looked up inside this entry: a file there is
        // ENOTDIR for the kernel, and so it is here.
        if (!pending.empty() && !S_ISDIR(entry.st_mode)) throw_not_directory(ctx, out.relative());
    }
    out.exists = exists;
    if (exists) {
        out.existing = stack.size();
        out.st = st;
    }
    // A trailing slash promises a directory; a file there is an error, as for the kernel.
    if (exists && !requested.empty() && requested.back() == '/' && !S_ISDIR(out.st.st_mode))
        throw_not_directory(ctx, out.relative());
    return out;
}

UniqueFd Workspace::walk(const ResolvedPath& path, std::size_t count, bool create) const {
    const PathContext& ctx = path.context;
    UniqueFd dir(::fcntl(root_fd_.get(), F_DUPFD_CLOEXEC, 0));
    if (!dir.valid()) throw_errno(ctx, errno, "opening the workspace root", ".");
    for (std::size_t i = 0; i < count; ++i) {
        const char* name = path.components[i].c_str();
        UniqueFd next(::openat(dir.get(), name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!next.valid() && errno == ENOENT && create) {
            if (::mkdirat(dir.get(), name, 0777) != 0 && errno != EEXIST)
                throw_errno(ctx, errno, "creating directory", path.relative_prefix(i + 1));
            next = UniqueFd(::openat(dir.get(), name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        }
        if (!next.valid()) {
            int err = errno;
            // O_NOFOLLOW + O_DIRECTORY on a symlink gives ELOOP or ENOTDIR: the tree changed after
            // resolution. Refuse rather than follow it.
            if (err == ELOOP)
                throw_not_allowed(ctx, "changed_during_access",
                                  "'" + path.relative_prefix(i + 1) +
                                      "' became a symbolic link while it was being accessed; retry the call");
            throw_errno(ctx, err, "opening directory", path.relative_prefix(i + 1));
        }
        dir = std::move(next);
    }
    return dir;
}

UniqueFd Workspace::open_directory(const ResolvedPath& path) const {
    const PathContext& ctx = path.context;
    if (path.components.empty()) {
        UniqueFd fd(::openat(root_fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (!fd.valid()) throw_errno(ctx, errno, "opening directory", ".");
        return fd;
    }
    UniqueFd parent = walk(path, path.components.size() - 1, false);
    UniqueFd fd(
        ::openat(parent.get(), path.components.back().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) throw_errno(ctx, errno, "opening directory", path.relative());
    return fd;
}

UniqueFd Workspace::open_file(const ResolvedPath& path, int flags) const {
    const PathContext& ctx = path.context;
    if (path.components.empty()) throw_is_directory(ctx, "pass the path of a file inside it");
    UniqueFd parent = walk(path, path.components.size() - 1, false);
    UniqueFd fd(::openat(parent.get(), path.components.back().c_str(), flags | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) throw_errno(ctx, errno, "opening", path.relative());
    return fd;
}

UniqueFd Workspace::open_parent(const ResolvedPath& path, bool create) const {
    const PathContext& ctx = path.context;
    if (path.components.empty()) throw_is_directory(ctx, "pass the path of a file inside it");
    std::size_t parents = path.components.size() - 1;
    if (!create && path.existing < parents) throw_not_found(ctx, path.relative_prefix(path.existing + 1));
    return walk(path, parents, create);
}

}  // namespace skillhost_builtin::fs
