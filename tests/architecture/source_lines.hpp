// Walking the tree's C and C++ sources line by line, for the architecture checks.
#pragma once

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace skillhost::architecture {

inline bool is_source(const std::filesystem::path& path) {
    const auto ext = path.extension();
    return ext == ".cpp" || ext == ".hpp" || ext == ".h" || ext == ".c";
}

// Calls `visit(file, line number, line)` for every line of every source file below `root`.
inline void for_each_source_line(
    const std::filesystem::path& root,
    const std::function<void(const std::filesystem::path&, std::size_t, const std::string&)>& visit) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        if (!entry.is_regular_file() || !is_source(entry.path())) continue;
        std::ifstream in(entry.path());
        std::string line;
        std::size_t number = 0;
        while (std::getline(in, line)) visit(entry.path(), ++number, line);
    }
}

}  // namespace skillhost::architecture
