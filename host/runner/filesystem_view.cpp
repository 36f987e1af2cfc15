#include "runner/filesystem_view.hpp"
#include "plugin/error_codes.hpp"

#include <fcntl.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

namespace skillhost::runner {
namespace {

namespace fs = std::filesystem;

// What a dynamically linked library may read of the system, read-only. Symbolic links (a merged
// /usr's /lib) are recreated as links.
const char* const system_paths[] = {"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/opt"};
// Of /etc, only what the dynamic linker, the C library's locale and time code read.
const char* const etc_files[] = {"/etc/ld.so.cache", "/etc/ld.so.conf",   "/etc/ld.so.conf.d", "/etc/localtime",
                                 "/etc/timezone",    "/etc/locale.alias", "/etc/locale.conf"};
// ... and with `network`, what name resolution and TLS need (never /etc/ssl/private).
const char* const network_etc_files[] = {"/etc/resolv.conf",
                                         "/etc/hosts",
                                         "/etc/nsswitch.conf",
                                         "/etc/host.conf",
                                         "/etc/gai.conf",
                                         "/etc/services",
                                         "/etc/protocols",
                                         "/etc/ssl/certs",
                                         "/etc/ssl/openssl.cnf",
                                         "/etc/ca-certificates",
                                         "/etc/ca-certificates.conf",
                                         "/etc/pki/tls/certs"};
const char* const device_files[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
const char* const new_root_candidates[] = {"/tmp", "/run", "/mnt", "/var/tmp"};

Error failure(const std::string& what) {
    return Error{errors::kSandboxUnavailable,
                 "the runner cannot build its file-system view: " + what + " (" + std::strerror(errno) + ")"};
}

// The flags a bind mount inherits from its source and must keep when remounted in a user namespace.
unsigned long locked_flags(int fd) {
    struct statvfs info {};
    if (::fstatvfs(fd, &info) != 0) return 0;
    unsigned long flags = 0;
    if (info.f_flag & ST_RDONLY) flags |= MS_RDONLY;
    if (info.f_flag & ST_NOSUID) flags |= MS_NOSUID;
    if (info.f_flag & ST_NODEV) flags |= MS_NODEV;
    if (info.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    if (info.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (info.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
    if (info.f_flag & ST_RELATIME) flags |= MS_RELATIME;
    return flags;
}

enum class Kind { bind_read_only, bind_read_write, bind_device, tmpfs, symlink, tree };

// One thing to put into the new root, at the path it has on the host.
struct Entry {
    fs::path path;
    Kind kind = Kind::bind_read_only;
    int source = -1;          // O_PATH descriptor of what is bound (opened before the root hides it)
    bool directory = false;   // the mount point to make is a directory
    std::string link_target;  // Kind::symlink
};

// Opens what will be bound now: once the new root is mounted over its parent it is out of reach.
std::optional<Entry> open_entry(const fs::path& path, Kind kind) {
    struct stat link {};
    if (::lstat(path.c_str(), &link) != 0) return std::nullopt;  // not on this system: not granted
    Entry e;
    e.path = path;
    e.kind = kind;
    if (S_ISLNK(link.st_mode) && kind == Kind::bind_read_only && path.parent_path() == "/") {
        std::error_code ec;
        e.kind = Kind::symlink;
        e.link_target = fs::read_symlink(path, ec).string();
        if (ec) return std::nullopt;
        return e;
    }
    e.source = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (e.source < 0) return std::nullopt;
    struct stat st {};
    if (::fstat(e.source, &st) != 0) {
        ::close(e.source);
        return std::nullopt;
    }
    e.directory = S_ISDIR(st.st_mode);
    return e;
}

bool make_mount_point(const fs::path& at, bool directory) {
    std::error_code ec;
    fs::create_directories(directory ? at : at.parent_path(), ec);
    if (ec) return false;
    if (directory) return true;
    const int fd = ::open(at.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return errno == EEXIST;
    ::close(fd);
    return true;
}

std::optional<Error> place(const Entry& e, const fs::path& root, std::uint64_t tmp_bytes) {
    const fs::path at = root / e.path.relative_path();
    switch (e.kind) {
        case Kind::symlink: {
            std::error_code ec;
            fs::create_directories(at.parent_path(), ec);
            if (::symlink(e.link_target.c_str(), at.c_str()) != 0 && errno != EEXIST)
                return failure("cannot link " + e.path.string());
            return std::nullopt;
        }
        case Kind::tmpfs: {
            if (!make_mount_point(at, true)) return failure("cannot make " + e.path.string());
            const std::string options = "size=" + std::to_string(tmp_bytes) + ",nr_inodes=16384,mode=1777";
            if (::mount("tmpfs", at.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options.c_str()) != 0)
                return failure("cannot mount a private " + e.path.string());
            return std::nullopt;
        }
        case Kind::tree: {
            if (!make_mount_point(at, true)) return failure("cannot make " + e.path.string());
            if (::syscall(SYS_move_mount, e.source, "", AT_FDCWD, at.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0)
                return failure("cannot attach the workspace at " + e.path.string());
            return std::nullopt;
        }
        default: break;
    }
    if (!make_mount_point(at, e.directory)) return failure("cannot make a mount point for " + e.path.string());
    const std::string source = "/proc/self/fd/" + std::to_string(e.source);
    if (::mount(source.c_str(), at.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
        return failure("cannot bind " + e.path.string());
    unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID | locked_flags(e.source);
    if (e.kind != Kind::bind_device) flags |= MS_NODEV;
    if (e.kind == Kind::bind_read_only) flags |= MS_RDONLY;
    if (e.kind == Kind::bind_read_write) flags = (flags & ~static_cast<unsigned long>(MS_RDONLY)) | MS_NOEXEC;
    if (::mount(nullptr, at.c_str(), nullptr, flags, nullptr) != 0)
        return failure("cannot restrict the mount of " + e.path.string());
    return std::nullopt;
}

}  // namespace

void resolve_links(ViewRequest& request) {
    auto resolve = [&](fs::path& path) {
        if (path.empty()) return;
        std::error_code ec;
        const fs::path real = fs::canonical(path, ec);
        if (ec || real == path) return;
        request.links[path] = real;
        path = real;
    };
    for (auto& path : request.read_only) resolve(path);
    for (auto& path : request.read_write) resolve(path);
    resolve(request.workspace);
}

std::optional<Error> prepare_trees(ViewRequest& request) {
    auto clone = [&](const fs::path& path, std::uint64_t attributes) -> std::optional<Error> {
        if (path.empty() || request.trees.count(path)) return std::nullopt;
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return std::nullopt;  // not granted
        const int tree = static_cast<int>(
            ::syscall(SYS_open_tree, AT_FDCWD, path.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE));
        if (tree < 0) return failure("cannot copy the mount of " + path.string());
        mount_attr attr{};
        attr.attr_set = attributes | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
        if (::syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) != 0) {
            ::close(tree);
            return failure("cannot restrict the mount of " + path.string());
        }
        request.trees[path] = tree;
        return std::nullopt;
    };
    for (const auto& path : request.read_write)
        if (auto problem = clone(path, MOUNT_ATTR_NOEXEC)) return problem;
    if (!request.workspace.empty())
        if (auto problem =
                clone(request.workspace, MOUNT_ATTR_NOEXEC | (request.workspace_writable ? 0 : MOUNT_ATTR_RDONLY)))
            return problem;
    for (const auto& path : request.read_only)
        if (auto problem = clone(path, MOUNT_ATTR_RDONLY)) return problem;
    return std::nullopt;
}

Result<boost::json::object> build_filesystem_view(const ViewRequest& request) {
    // Nothing mounted here reaches the host's namespace, and nothing mounted there reaches us.
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        return failure("cannot make the mounts private");

    std::vector<Entry> entries;
    auto add = [&](const fs::path& path, Kind kind) {
        for (const Entry& e : entries)
            if (e.path == path) return;  // the library and manifest directories are often one
        if (const auto tree = request.trees.find(path); tree != request.trees.end()) {
            Entry e;
            e.path = path;
            e.kind = Kind::tree;
            e.source = tree->second;
            e.directory = true;
            entries.push_back(std::move(e));
        } else if (std::optional<Entry> e = open_entry(path, kind)) {
            entries.push_back(std::move(*e));
        }
    };
    for (const char* path : system_paths) add(path, Kind::bind_read_only);
    for (const char* path : etc_files) add(path, Kind::bind_read_only);
    if (request.network)
        for (const char* path : network_etc_files) add(path, Kind::bind_read_only);
    for (const char* path : device_files) add(path, Kind::bind_device);
    add("/sys/devices/system/cpu", Kind::bind_read_only);  // how many processors (the C library asks)
    for (const auto& path : request.read_only) add(path, Kind::bind_read_only);
    for (const auto& path : request.read_write) add(path, Kind::bind_read_write);
    if (!request.workspace.empty()) {
        add(request.workspace, request.workspace_writable ? Kind::bind_read_write : Kind::bind_read_only);
    }
    for (const auto& [link, target] : request.links) {
        Entry e;
        e.path = link;
        e.kind = Kind::symlink;
        e.link_target = target.string();
        entries.push_back(std::move(e));
    }
    for (const char* path : {"/tmp", "/dev/shm"}) {
        Entry e;
        e.path = path;
        e.kind = Kind::tmpfs;
        entries.push_back(std::move(e));
    }
    // Parents before children: a data directory below /tmp lands inside the private /tmp.
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return std::distance(a.path.begin(), a.path.end()) < std::distance(b.path.begin(), b.path.end());
    });

    const char* root = nullptr;
    for (const char* candidate : new_root_candidates) {
        struct stat st {};
        if (::stat(candidate, &st) == 0 && S_ISDIR(st.st_mode)) {
            root = candidate;
            break;
        }
    }
    if (!root) return failure("no directory to build the new root on (/tmp, /run, /mnt)");
    if (::mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=0755") != 0)
        return failure("cannot mount the new root");
    boost::json::array shown;
    for (const Entry& e : entries) {
        if (std::optional<Error> problem = place(e, root, request.tmp_bytes)) return *problem;
        if (e.source >= 0) ::close(e.source);
        shown.push_back(boost::json::value(e.path.string()));
    }
    // A host path below /tmp (a home under /tmp) sits inside the private /tmp: the directories
    // leading to it are the sandbox's own, but a write beside them must fail like any write
    // outside the granted directories, so that /tmp becomes read-only (the binds stay as granted).
    bool tmp_writable = true;
    for (const Entry& e : entries)
        if (e.kind != Kind::tmpfs && std::distance(e.path.begin(), e.path.end()) > 2 &&
            *std::next(e.path.begin()) == "tmp")
            tmp_writable = false;
    if (!tmp_writable) {
        const fs::path tmp = fs::path(root) / "tmp";
        if (::mount(nullptr, tmp.c_str(), nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                    nullptr) != 0)
            return failure("cannot make the private /tmp read-only");
    }
    const fs::path proc = fs::path(root) / "proc";
    if (!make_mount_point(proc, true)) return failure("cannot make /proc");
    // A /proc of this PID namespace only; `subset=pid` (Linux 5.8) also hides the kernel's own
    // files (kallsyms, the kernel log's settings, sysctls).
    std::string proc_shown = "own PID namespace, processes only";
    if (::mount("proc", proc.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "subset=pid") != 0) {
        proc_shown = "own PID namespace";
        if (::mount("proc", proc.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
            // A container that masks parts of its /proc forbids new ones: no /proc at all then.
            if (request.require) return failure("cannot mount /proc for the runner's PID namespace");
            proc_shown = std::string("none (") + std::strerror(errno) + ")";
        }
    }
    const fs::path dev = fs::path(root) / "dev";
    ::symlink("/proc/self/fd", (dev / "fd").c_str());
    ::symlink("/proc/self/fd/0", (dev / "stdin").c_str());
    ::symlink("/proc/self/fd/1", (dev / "stdout").c_str());
    ::symlink("/proc/self/fd/2", (dev / "stderr").c_str());

    if (::chdir(root) != 0) return failure("cannot enter the new root");
    if (::syscall(SYS_pivot_root, ".", ".") != 0) return failure("cannot pivot to the new root");
    if (::umount2(".", MNT_DETACH) != 0) return failure("cannot detach the host's root");
    if (::chdir("/") != 0) return failure("cannot enter /");
    if (::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0)
        return failure("cannot make the new root read-only");

    boost::json::object report;
    report["root"] = "private, read-only";
    report["visible"] = std::move(shown);
    report["tmp"] = tmp_writable ? "private, writable" : "private, read-only (host paths lie below /tmp)";
    report["tmp_writable"] = tmp_writable;
    report["proc"] = proc_shown;
    return report;
}

}  // namespace skillhost::runner
