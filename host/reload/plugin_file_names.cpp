#include "reload/plugin_file_names.hpp"

#include <algorithm>
#include <system_error>

namespace skillhost::reload {

namespace {
bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
}  // namespace

bool is_temporary_name(std::string_view name) {
    if (name.empty() || name.front() == '.') return true;
    if (ends_with(name, ".tmp") || ends_with(name, "~")) return true;
    if (ends_with(name, ".swp") || ends_with(name, ".swo") || ends_with(name, ".swx")) return true;
    if (name.size() >= 2 && name.front() == '#' && name.back() == '#') return true;
    return name == "4913";
}

bool is_manifest_name(std::string_view name) {
    return !is_temporary_name(name) && (ends_with(name, ".yaml") || ends_with(name, ".yml"));
}

std::vector<std::filesystem::path> list_manifests(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> manifests;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!is_manifest_name(name)) continue;
        std::error_code type_ec;
        if (!it->is_regular_file(type_ec)) continue;
        manifests.push_back(it->path());
    }
    std::sort(manifests.begin(), manifests.end());
    return manifests;
}

}  // namespace skillhost::reload
