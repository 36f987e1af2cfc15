#include "fs_skills.hpp"
#include "workspace.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <random>

namespace skillhost_builtin::fs {

using skillhost::Json;
using skillhost::SkillError;

namespace {

constexpr std::size_t kMaxWriteBytes = 8u << 20;

// A hidden sibling of the target, so the final rename stays inside one directory (atomic) and
// inside the workspace.
std::string temporary_name(const std::string& target) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    std::string base = target.substr(0, 180);
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, ".%016llx.tmp", static_cast<unsigned long long>(rng()));
    return "." + base + suffix;
}

void write_all(int fd, std::string_view data, const PathContext& ctx, const std::string& relative) {
    std::size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw_errno(ctx, errno, "writing", relative);
        }
        done += static_cast<std::size_t>(n);
    }
}

// Removes the temporary file unless the rename consumed it.
struct TemporaryFile {
    int dir_fd;
    std::string name;
    bool keep = false;
    ~TemporaryFile() {
        if (!keep) ::unlinkat(dir_fd, name.c_str(), 0);
    }
};

}  // namespace

Json fs_write(const skillhost::Call& call, const Json& args) {
    Workspace workspace(call);
    const std::string& requested = args["path"].as_string();
    const std::string& content = args["content"].as_string();
    const bool overwrite = args.bool_or("overwrite", false);
    const bool create_dirs = args.bool_or("create_dirs", false);

    ResolvedPath path = workspace.resolve(requested);
    const PathContext& ctx = path.context;
    if (path.components.empty() || path.is_directory() || (!requested.empty() && requested.back() == '/'))
        throw_is_directory(ctx, "pass the path of a file to write");
    if (content.size() > kMaxWriteBytes)
        throw SkillError("TOO_LARGE",
                         "content for '" + requested + "' is " + std::to_string(content.size()) +
                             " bytes; fs_write accepts at most " + std::to_string(kMaxWriteBytes) +
                             " bytes per call — write smaller files",
                         Json::object({{"path", requested},
                                       {"root", workspace.root()},
                                       {"bytes", static_cast<std::int64_t>(content.size())},
                                       {"max_bytes", static_cast<std::int64_t>(kMaxWriteBytes)}}));
    if (path.exists && !overwrite)
        throw SkillError(
            "ALREADY_EXISTS",
            "'" + requested + "' already exists in the workspace root '" + workspace.root() +
                "'; pass overwrite:true to replace it, or choose another path",
            Json::object({{"path", requested}, {"root", workspace.root()}, {"resolved", path.relative()}}));
    if (path.exists && !S_ISREG(path.st.st_mode))
        throw SkillError("NOT_A_REGULAR_FILE",
                         "'" + requested + "' in the workspace root '" + workspace.root() +
                             "' is not a regular file and cannot be overwritten",
                         Json::object({{"path", requested}, {"root", workspace.root()}}));

    UniqueFd parent = workspace.open_parent(path, create_dirs);
    const std::string& name = path.components.back();
    TemporaryFile temp{parent.get(), temporary_name(name)};
    UniqueFd out(::openat(parent.get(), temp.name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
    if (!out.valid()) {
        temp.keep = true;  // never created: nothing to remove
        throw_errno(ctx, errno, "creating a temporary file beside", path.relative());
    }
    write_all(out.get(), content, ctx, path.relative());
    if (path.exists) ::fchmod(out.get(), path.st.st_mode & 07777);  // replacing keeps the permissions
    if (::fsync(out.get()) != 0) throw_errno(ctx, errno, "flushing", path.relative());
    out.reset();

    int rc;
    bool linked = false;
    if (overwrite) {
        rc = ::renameat(parent.get(), temp.name.c_str(), parent.get(), name.c_str());
    } else {
        // No check-then-act window: the rename itself refuses to replace a file created meanwhile.
        rc = ::renameat2(parent.get(), temp.name.c_str(), parent.get(), name.c_str(), RENAME_NOREPLACE);
        if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {  // file system without RENAME_NOREPLACE
            rc = ::linkat(parent.get(), temp.name.c_str(), parent.get(), name.c_str(), 0);
            linked = true;
        }
    }
    if (rc != 0) {
        int err = errno;
        if (err == EEXIST)
            throw SkillError("ALREADY_EXISTS",
                             "'" + requested +
                                 "' was created by someone else while writing; pass overwrite:true to "
                                 "replace it",
                             Json::object({{"path", requested}, {"root", workspace.root()}}));
        if (err == EISDIR || err == ENOTEMPTY) throw_is_directory(ctx, "pass the path of a file to write");
        throw_errno(ctx, err, "renaming the written file into", path.relative());
    }
    temp.keep = !linked;  // a rename consumed the temporary name; a hard link left it to remove
    // Make the rename itself durable.
    UniqueFd dir(::openat(parent.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.valid()) ::fsync(dir.get());
    return Json::object({{"path", path.relative()},
                         {"bytes_written", static_cast<std::int64_t>(content.size())},
                         {"created", !path.exists},
                         {"overwritten", path.exists}});
}

}  // namespace skillhost_builtin::fs
