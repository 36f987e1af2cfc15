// The layer order of docs/architecture.md, enforced: every `#include "<folder>/..."` in host/ must
// point to a folder on a lower line of the documented list, every host/ folder must be in the list,
// and the public SDK headers and the built-in plugins include nothing of the host.
#include "source_lines.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
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

using skillhost::architecture::for_each_source_line;
using skillhost::architecture::is_source;

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

// The front-end exceptions block: "folder/header.hpp  reason" per line.
std::map<std::string, std::string> read_front_end_exceptions(const fs::path& doc) {
    std::ifstream in(doc);
    std::map<std::string, std::string> allowed;
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
        if (line.find("<!-- front-end-includes:begin -->") != std::string::npos) {
            inside = true;
            continue;
        }
        if (line.find("<!-- front-end-includes:end -->") != std::string::npos) break;
        if (!inside || line.starts_with("```")) continue;
        std::istringstream words(line);
        std::string header;
        std::string reason;
        if (!(words >> header)) continue;
        std::getline(words, reason);
        allowed.emplace(header, reason);
    }
    return allowed;
}

// The quoted include path of a line ("auth/users.hpp"), or empty.
std::string included_path(const std::string& line) {
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line.compare(start, 10, "#include \"") != 0) return {};
    const std::size_t quote = line.find('"', start + 10);
    return quote == std::string::npos ? std::string() : line.substr(start + 10, quote - start - 10);
}

// Calls `visit(front end, "host/<front end>/file:line", line)` for every line of every source file of
// the front ends (cli/, server/, mcp/).
void for_each_front_end_line(
    const std::function<void(const std::string&, const std::string&, const std::string&)>& visit) {
    for (const std::string front_end : {"cli", "server", "mcp"}) {
        for_each_source_line(
            source_dir / "host" / front_end, [&](const fs::path& file, std::size_t number, const std::string& line) {
                visit(front_end, fs::relative(file, source_dir).string() + ":" + std::to_string(number), line);
            });
    }
}

// Front ends reach lower subsystems only through app, or through a header docs/architecture.md
// lists with its reason; a listed header nobody includes any more is a stale line.
TEST(ArchitectureLayers, FrontEndsUseLowerSubsystemsOnlyThroughAppOrADocumentedException) {
    const auto allowed = read_front_end_exceptions(source_dir / "docs" / "architecture.md");
    ASSERT_GE(allowed.size(), 5u) << "docs/architecture.md has no front-end-includes block between its markers";
    const std::vector<std::string> open_to_front_ends = {"cli", "server", "mcp", "app", "config", "net", "base"};
    const auto levels = read_layers(source_dir / "docs" / "architecture.md");
    std::map<std::string, int> uses;
    for_each_front_end_line([&](const std::string& front_end, const std::string& where, const std::string& line) {
        const std::string path = included_path(line);
        const std::size_t slash = path.find('/');
        if (slash == std::string::npos) return;
        const std::string folder = path.substr(0, slash);
        if (!levels.contains(folder)) return;
        if (std::find(open_to_front_ends.begin(), open_to_front_ends.end(), folder) != open_to_front_ends.end()) return;
        if (allowed.contains(path)) {
            ++uses[path];
            return;
        }
        ADD_FAILURE() << where << ": " << front_end << "/ includes " << path
                      << " directly; go through app/ or list the header with its reason in the "
                         "front-end-includes block of docs/architecture.md";
    });
    for (const auto& [header, reason] : allowed)
        EXPECT_TRUE(uses.contains(header)) << header << " is listed as a front-end exception but no front end "
                                           << "includes it; delete its line from docs/architecture.md";
}

// A front end's use of the runtime's decision queues: `host.approvals`, `s.host.elicitations`,
// `host_->approvals`, ... (what the include check cannot see, since app/ brings the headers along).
const std::regex runtime_decision_queue(R"(\bhost_?\s*(\.|->)\s*(approvals|elicitations)\b)");

// Who sees a decision, when it expires, what is recovered and stored later are decided once, in the
// decision queues behind app/'s use cases; a front end that reached the queues itself would decide
// them again (as the CLI and the API once did, differently).
TEST(ArchitectureLayers, FrontEndsReachPendingDecisionsOnlyThroughAppUseCases) {
    ASSERT_TRUE(std::regex_search("    auto record = s.host.approvals->get(id);", runtime_decision_queue));
    ASSERT_TRUE(std::regex_search("parts.x = host_.elicitations.get();", runtime_decision_queue));
    ASSERT_FALSE(std::regex_search("auto* list = approvals->add_subcommand(\"list\");", runtime_decision_queue));
    for_each_front_end_line([](const std::string&, const std::string& where, const std::string& line) {
        if (std::regex_search(line, runtime_decision_queue))
            ADD_FAILURE() << where
                          << ": a front end uses the runtime's decision queue directly; use (or add) a use case in "
                             "app/ (approval_actions, elicitation_actions, decision_upkeep)\n"
                          << line;
    });
}

// The parts the runtime is assembled from (app/host_parts.hpp: its queues, policy engine, mode
// cache, audit log, router ...) are the app layer's. HostRuntime keeps them private and offers front
// ends its own methods; parts_of() is how app/'s use cases reach them, and a front end using it
// would call into the lower layers past those use cases, which the include check cannot see.
TEST(ArchitectureLayers, FrontEndsUseTheRuntimeOnlyThroughItsOwnMethods) {
    for_each_front_end_line([](const std::string& front_end, const std::string& where, const std::string& line) {
        if (included_path(line) == "app/host_parts.hpp" || line.find("parts_of(") != std::string::npos)
            ADD_FAILURE() << where << ": " << front_end
                          << "/ reaches the runtime's parts; use a HostRuntime method or add a use case in app/\n"
                          << line;
    });
}

TEST(ArchitectureLayers, TheCheckSeesAnUpwardInclude) {
    // The reader must find includes, or the checks above pass vacuously.
    const auto includes = quoted_includes(source_dir / "host" / "exec" / "call_pipeline.hpp");
    bool sees_policy = false;
    for (const auto& include : includes) sees_policy = sees_policy || include.target_folder == "policy";
    EXPECT_TRUE(sees_policy);
}

}  // namespace

// The offline model is one chat backend among others: the host reaches it only through the factory
// the model router is given, and only where the host is assembled (app/).
TEST(ArchitectureLayers, TheOfflineModelIsReachedOnlyAsAChatBackend) {
    const std::string allowed = "#include \"offline_model/builtin_backend_factory.hpp\"";
    std::vector<std::string> violations;
    for (const auto& entry : fs::recursive_directory_iterator(source_dir / "host")) {
        if (!entry.is_regular_file() || !is_source(entry.path())) continue;
        const std::string own = fs::relative(entry.path(), source_dir / "host").begin()->string();
        if (own == "offline_model") continue;
        std::ifstream in(entry.path());
        std::string line;
        std::size_t number = 0;
        while (std::getline(in, line)) {
            ++number;
            if (line.find("#include \"offline_model/") == std::string::npos) continue;
            if (own != "app" || line.find(allowed) == std::string::npos)
                violations.push_back(fs::relative(entry.path(), source_dir).string() + ":" + std::to_string(number) +
                                     ": " + own + "/ includes the offline model; only app/ may, and only " +
                                     "offline_model/builtin_backend_factory.hpp (it is a chat backend)");
        }
    }
    for (const auto& violation : violations) ADD_FAILURE() << violation;
}
