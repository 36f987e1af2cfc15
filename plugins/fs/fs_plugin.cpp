// The `fs` plugin: list, read, write and search files inside the calling user's workspace root.
#include "fs_resources.hpp"
#include "fs_skills.hpp"

#include "../common/iso_time.hpp"

namespace skillhost_builtin::fs {

std::string modification_time(const struct stat& st) {
    return format_iso8601(static_cast<std::int64_t>(st.st_mtim.tv_sec), 0);
}

}  // namespace skillhost_builtin::fs

SKILLHOST_PLUGIN("fs", "1.0.0", SKILLHOST_SKILL("fs_list", skillhost_builtin::fs::fs_list),
                 SKILLHOST_SKILL("fs_read", skillhost_builtin::fs::fs_read),
                 SKILLHOST_SKILL("fs_write", skillhost_builtin::fs::fs_write),
                 SKILLHOST_SKILL("fs_search", skillhost_builtin::fs::fs_search))

namespace {

// Workspace files as resources, governed by fs_read: who may read files may read them this way.
const void* fs_extensions(const char* id) {
    using namespace skillhost_builtin::fs;
    static const skillhost_resources_v1* resources =
        skillhost::resources_extension<list_workspace_files, nullptr, read_workspace_file>("fs_read", "file://");
    return std::string_view(id) == SKILLHOST_EXT_RESOURCES ? resources : nullptr;
}

}  // namespace

SKILLHOST_PLUGIN_EXTENSIONS(fs_extensions)
