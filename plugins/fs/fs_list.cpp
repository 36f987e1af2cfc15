#include "directory_walk.hpp"
#include "fs_skills.hpp"
#include "path_guard.hpp"
#include "workspace.hpp"

#include <fnmatch.h>

namespace skillhost_builtin::fs {

using skillhost::Json;

Json fs_list(const skillhost::Call& call, const Json& args) {
    Workspace workspace(call);
    ResolvedPath path = workspace.resolve(args.string_or("path", "."));
    if (!path.exists) throw_not_found(path.context, path.relative_prefix(path.existing + 1));
    if (!path.is_directory()) throw_not_directory(path.context, path.relative());

    const std::string pattern = args.string_or("pattern", "");
    const auto max_entries = static_cast<std::size_t>(args.int_or("max_entries", 200));
    WalkOptions options;
    options.recursive = args.bool_or("recursive", false);
    options.include_hidden = args.bool_or("include_hidden", false);
    PathGuard guard(call, SKILLHOST_PATH_LIST);
    options.admit = [&guard](const WalkEntry& e) { return guard.allows(e.relative_path); };

    UniqueFd dir = workspace.open_directory(path);
    Json entries = Json::array();
    bool truncated = false;
    walk_directory(dir.get(), path.relative(), options, [&](const WalkEntry& e) {
        if (call.cancelled()) throw skillhost::Cancelled{};
        if (!pattern.empty() && ::fnmatch(pattern.c_str(), e.name.c_str(), 0) != 0) return WalkControl::next;
        if (entries.size() >= max_entries) {
            truncated = true;
            return WalkControl::stop;
        }
        entries.push_back(Json::object({{"name", e.name},
                                        {"path", e.relative_path},
                                        {"type", file_type_name(e.st)},
                                        {"size", static_cast<std::int64_t>(e.st.st_size)},
                                        {"mtime", modification_time(e.st)}}));
        return WalkControl::next;
    });
    const auto count = static_cast<std::int64_t>(entries.size());
    Json out = Json::object({{"path", path.relative()},
                             {"root", workspace.root()},
                             {"entries", std::move(entries)},
                             {"count", count},
                             {"truncated", truncated}});
    guard.describe(out);
    return out;
}

}  // namespace skillhost_builtin::fs
