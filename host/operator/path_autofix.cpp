#include "operator/path_autofix.hpp"

#include "exec/near_names.hpp"

#include <algorithm>
#include <system_error>

namespace skillhost::op {
namespace {

namespace fs = std::filesystem;

bool is_inside(const fs::path& path, const fs::path& root) {
    const auto rel = path.lexically_normal().lexically_relative(root.lexically_normal());
    return !rel.empty() && *rel.begin() != "..";
}

// Files under the workspace whose name is a plausible typo of `name`; bounded so a huge workspace
// costs little.
std::vector<std::string> close_files(const fs::path& workspace, const std::string& name) {
    constexpr std::size_t kMaxEntries = 5000;
    std::vector<std::string> relative_paths;
    std::vector<std::string> names;
    std::error_code ec;
    fs::recursive_directory_iterator it(workspace, fs::directory_options::skip_permission_denied, ec);
    std::size_t seen = 0;
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (++seen > kMaxEntries) break;
        if (it->path().filename().string().starts_with(".")) {
            if (it->is_directory(ec)) it.disable_recursion_pending();
            continue;
        }
        if (!it->is_regular_file(ec)) continue;
        relative_paths.push_back(it->path().lexically_relative(workspace).generic_string());
        names.push_back(it->path().filename().string());
    }
    std::vector<std::string_view> views(names.begin(), names.end());
    std::vector<std::string> matches;
    for (const auto& near : exec::near_names(name, views, 5)) {
        if (exec::edit_distance(near, name) > std::max<std::size_t>(2, name.size() / 4)) continue;
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (names[i] == near) matches.push_back(relative_paths[i]);
        }
    }
    std::sort(matches.begin(), matches.end());
    matches.erase(std::unique(matches.begin(), matches.end()), matches.end());
    return matches;
}

}  // namespace

std::vector<PathFix> autofix_paths(const manifest::SkillSpec& spec, boost::json::object& args,
                                   const fs::path& workspace) {
    std::vector<PathFix> fixes;
    if (workspace.empty()) return fixes;
    std::error_code ec;
    for (const auto& input : spec.path_inputs) {
        auto* value = args.if_contains(input);
        if (!value || !value->is_string() || value->as_string().empty()) continue;
        const std::string original(value->as_string());
        std::string path = original;
        fs::path as_path(path);
        if (as_path.is_absolute() && !is_inside(as_path, workspace)) {
            const std::string stripped = path.substr(path.find_first_not_of('/'));
            if (!stripped.empty() && fs::exists(workspace / stripped, ec)) path = stripped;
        }
        const fs::path target = fs::path(path).is_absolute() ? fs::path(path) : workspace / path;
        if (spec.annotations.read_only && !fs::exists(target, ec) && fs::path(path).has_filename()) {
            const auto matches = close_files(workspace, fs::path(path).filename().string());
            if (matches.size() == 1) path = matches.front();
        }
        if (path != original) {
            *value = path;
            fixes.push_back(PathFix{input, original, path});
        }
    }
    return fixes;
}

}  // namespace skillhost::op
