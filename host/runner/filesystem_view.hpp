// The runner's view of the file system, built in its own mount namespace: a new, read-only root
// holding only what a shared library needs (the system libraries, the linker cache, locale and
// time zone data, a few device files, a /proc of its own PID namespace), TLS roots and resolver
// files only with `network`, the plugin's own files read-only, its data directory read-write and
// the workspace as its permissions say. Every path keeps the name it has on the host, so the paths
// in a call's context mean the same inside. Nothing else exists: not the host's credentials,
// configuration, home, other users' data or the skillhost home.
#pragma once

#include "base/error.hpp"

#include <boost/json/object.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <vector>

namespace skillhost::runner {

struct ViewRequest {
    std::vector<std::filesystem::path> read_only;   // the plugin's library and manifest directories
    std::vector<std::filesystem::path> read_write;  // its data directory for this user
    std::filesystem::path workspace;                // empty: none
    bool workspace_writable = false;
    bool network = false;
    bool require = false;  // sandbox: require (a /proc that cannot be mounted refuses the runner)
    // Detached copies (open_tree) of the paths above, made by the keeper when it runs as root: the
    // sandbox's unprivileged user may be unable to reach them (a home of mode 0700). Paths without
    // one are opened inside the sandbox.
    std::map<std::filesystem::path, int> trees;
    // Paths given through a symbolic link (a workspace root that is a link): the paths above are
    // the links' targets, and each link is recreated in the view so both names work inside.
    std::map<std::filesystem::path, std::filesystem::path> links;
    std::uint64_t tmp_bytes = 64ull << 20;  // the private /tmp and /dev/shm (memory, counted by the cgroup)
};

// Replaces each path of the request reached through a symbolic link by its target, remembering the
// link (before enter_namespaces(), while every path can still be resolved).
void resolve_links(ViewRequest& request);

// In the keeper, as root, before enter_namespaces(): a detached copy of each of the request's own
// paths (plugin files, data directory, workspace), read-only where they are read-only, never
// set-user-ID, device or executable where writable. Fills request.trees.
std::optional<Error> prepare_trees(ViewRequest& request);

// Needs every capability of a fresh user namespace (call it right after enter_namespaces()).
// Returns what the view holds, for the sandbox report.
Result<boost::json::object> build_filesystem_view(const ViewRequest& request);

}  // namespace skillhost::runner
