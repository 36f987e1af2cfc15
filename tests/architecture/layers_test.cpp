// The layer order of docs/architecture.md, enforced: every `#include "<folder>/..."` in host/ must
// point to a folder on a lower line of the documented list, every host/ folder must be in the list,
// and the public SDK headers and the built-in plugins include nothing of the host.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path source_dir = SKILLHOST_SOURCE_DIR;

struct IncludeLine {
    fs::path file;
    std::size_t line = 0;
    std::string target_folder;  // the first path component of a quoted include, or empty
};

// The folders of the layers block, each mapped to its line (0 = top).
std::map<std::string, std::size_t> read_layers(const fs::path& doc) {
    std::ifstream in(doc);
    std::map<std::string, std::size_t> levels;
    std::string line;
    bool inside = false;
    std::size_t level = 0;
    while (std::getline(in, line)) {
        if (line.find("<!-- layers:begin -->") != std::string::npos) {
            inside = true;
            continue;
        }
        if (line.find("<!-- layers:end -->") != std::string::npos) break;
        if (!inside || line.starts_with("```")) continue;
        std::istringstream words(line);
        std::string folder;
        bool any = false;
        while (words >> folder) {
            levels.emplace(folder, level);
            any = true;
        }
        if (any) ++level;
    }
    return levels;
}

std::vector<IncludeLine> quoted_includes(const fs::path& file) {
    std::vector<IncludeLine> found;
    std::ifstream in(file);
    std::string line;
    std::size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        const std::size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line.compare(start, 10, "#include \"") != 0) continue;
        const std::size_t path_start = start + 10;
        const std::size_t slash = line.find('/', path_start);
        const std::size_t quote = line.find('"', path_start);
        if (slash == std::string::npos || quote == std::string::npos || slash > quote) continue;
        found.push_back({file, number, line.substr(path_start, slash - path_start)});
    }
    return found;
}

bool is_source(const fs::path& path) {
    const auto ext = path.extension();
    return ext == ".cpp" || ext == ".hpp" || ext == ".h" || ext == ".c";
}

std::string where(const IncludeLine& include) {
    return fs::relative(include.file, source_dir).string() + ":" + std::to_string(include.line);
}

TEST(ArchitectureLayers, TheDocumentListsTheLayers) {
    const auto levels = read_layers(source_dir / "docs" / "architecture.md");
    ASSERT_GE(levels.size(), 10u) << "docs/architecture.md has no layers block between its markers";
    ASSERT_TRUE(levels.contains("base"));
    for (const auto& [folder, level] : levels) {
        if (folder != "base") {
            EXPECT_LT(level, levels.at("base")) << folder << " must be above base";
        }
    }
}

TEST(ArchitectureLayers, EveryHostFolderIsPlacedInTheOrder) {
    const auto levels = read_layers(source_dir / "docs" / "architecture.md");
    for (const auto& entry : fs::directory_iterator(source_dir / "host")) {
        if (!entry.is_directory()) continue;
        const std::string folder = entry.path().filename().string();
        EXPECT_TRUE(levels.contains(folder))
            << "host/" << folder << "/ is not in the layers block of docs/architecture.md; add it on the line "
            << "that says what it may use";
    }
}

TEST(ArchitectureLayers, HostIncludesOnlyGoDown) {
    const auto levels = read_layers(source_dir / "docs" / "architecture.md");
    ASSERT_FALSE(levels.empty());
    std::vector<std::string> violations;
    for (const auto& entry : fs::recursive_directory_iterator(source_dir / "host")) {
        if (!entry.is_regular_file() || !is_source(entry.path())) continue;
        const std::string own = fs::relative(entry.path(), source_dir / "host").begin()->string();
        const auto own_level = levels.find(own);
        if (own_level == levels.end()) continue;  // reported by EveryHostFolderIsPlacedInTheOrder
        for (const IncludeLine& include : quoted_includes(entry.path())) {
            if (include.target_folder == own) continue;
            const auto target = levels.find(include.target_folder);
            if (target == levels.end()) continue;  // not a host folder (e.g. "fixtures/...")
            if (target->second <= own_level->second)
                violations.push_back(where(include) + ": " + own + "/ includes " + include.target_folder +
                                     "/, which is not below it in docs/architecture.md");
        }
    }
    for (const auto& violation : violations) ADD_FAILURE() << violation;
}

TEST(ArchitectureLayers, SdkHeadersAndBuiltinPluginsIncludeNothingOfTheHost) {
    const auto levels = read_layers(source_dir / "docs" / "architecture.md");
    std::vector<std::string> violations;
    for (const auto& root : {source_dir / "sdk" / "include", source_dir / "plugins"}) {
        for (const auto& entry : fs::recursive_directory_iterator(root)) {
            if (!entry.is_regular_file() || !is_source(entry.path())) continue;
            for (const IncludeLine& include : quoted_includes(entry.path()))
                if (levels.contains(include.target_folder))
                    violations.push_back(where(include) + ": includes host/" + include.target_folder +
                                         "/; plugins and the SDK see only the public SDK headers");
        }
    }
    for (const auto& violation : violations) ADD_FAILURE() << violation;
}

TEST(ArchitectureLayers, TheCheckSeesAnUpwardInclude) {
    // The reader must find includes, or the checks above pass vacuously.
    const auto includes = quoted_includes(source_dir / "host" / "exec" / "call_pipeline.hpp");
    bool sees_policy = false;
    for (const auto& include : includes) sees_policy = sees_policy || include.target_folder == "policy";
    EXPECT_TRUE(sees_policy);
}

}  // namespace
