// `skillhost plugin new NAME --lang c|cpp [--dir D]`: writes a complete out-of-tree plugin project
// (CMakeLists, a manifest with every field commented, one skill, a test-kit test, a README) that
// builds, tests and passes `skillhost plugin check` as generated. A new author edits, not copies.
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "cli/plugin_templates.hpp"
#include "cli/error_codes.hpp"

#include <fstream>
#include <iostream>
#include <utility>
#include <vector>

namespace skillhost::cli {
namespace {

namespace fs = std::filesystem;

struct NewArgs {
    std::string name;
    std::string lang;
    std::string dir;
};

constexpr std::size_t kMaxNameLength = 40;

// A plugin name that is also a C identifier, a CMake target and a file name: the template uses it
// as all three.
bool is_scaffold_name(const std::string& name) {
    if (name.empty() || name.size() > kMaxNameLength || name[0] < 'a' || name[0] > 'z') return false;
    for (char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

std::string fill(std::string_view text, const std::vector<std::pair<std::string, std::string>>& values) {
    std::string out(text);
    for (const auto& [key, value] : values) {
        for (std::size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + value.size()))
            out.replace(at, key.size(), value);
    }
    return out;
}

Error scaffold_error(const ErrorCode& code, std::string message, std::string hint) {
    return Error{code, std::move(message), {}, {std::move(hint)}};
}

int run_new(const NewArgs& a) {
    if (!is_scaffold_name(a.name)) {
        return fail_setup(
            scaffold_error(errors::kInvalidPluginName,
                           "'" + a.name + "' cannot name a plugin project: use a lowercase letter followed by up to " +
                               std::to_string(kMaxNameLength - 1) + " lowercase letters, digits or _",
                           "e.g. `skillhost plugin new units --lang cpp`"),
            false);
    }
    if (a.lang != "c" && a.lang != "cpp") {
        return fail_setup(scaffold_error(errors::kInvalidLanguage, "--lang must be c or cpp, got '" + a.lang + "'",
                                         "--lang c: C99 with skill_c.h; --lang cpp: C++17 with skill.hpp"),
                          false);
    }
    const fs::path dir = a.dir.empty() ? fs::path(a.name) : fs::path(a.dir);
    std::error_code ec;
    if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec))) {
        return fail_setup(scaffold_error(errors::kDirectoryNotEmpty,
                                         dir.string() + " already exists and is not an empty directory; "
                                                        "nothing was written",
                                         "choose another place with --dir, or remove it first"),
                          false);
    }
    const std::string source = "src/" + a.name + (a.lang == "c" ? ".c" : ".cpp");
    const std::vector<std::pair<std::string, std::string>> values{
        {"@NAME@", a.name}, {"@SKILL@", a.name + "_hello"}, {"@SOURCE@", source}};
    const std::vector<std::pair<std::string, std::string_view>> files{
        {"CMakeLists.txt", templates::kCMakeLists},
        {a.name + ".yaml", templates::kManifest},
        {source, a.lang == "c" ? templates::kSourceC : templates::kSourceCpp},
        {"tests/" + a.name + "_test.cpp", templates::kTest},
        {"README.md", templates::kReadme},
        {".gitignore", templates::kGitignore}};
    for (const auto& [relative, text] : files) {
        const fs::path file = dir / relative;
        fs::create_directories(file.parent_path(), ec);
        std::ofstream out(file, std::ios::binary);
        out << fill(text, values);
        out.close();
        if (ec || !out) {
            return fail_setup(scaffold_error(errors::kWriteFailed, "could not write " + file.string(),
                                             "check that the directory is writable and the disk is not full"),
                              false);
        }
    }
    const std::string skill = a.name + "_hello";
    std::cout << "created " << dir.string() << "/ (" << (a.lang == "c" ? "C" : "C++") << " plugin " << a.name
              << ", skill " << skill << ")\n"
              << "next:\n"
              << "  cmake -S " << dir.string() << " -B " << (dir / "build").string() << " && cmake --build "
              << (dir / "build").string() << "\n"
              << "  ctest --test-dir " << (dir / "build").string() << "\n"
              << "  cmake --install " << (dir / "build").string() << "\n"
              << "  skillhost call " << skill << " --args '{\"name\":\"Ada\"}'\n";
    return kExitOk;
}

}  // namespace

void register_plugin_new_command(CLI::App& plugin, CliContext& ctx) {
    auto a = std::make_shared<NewArgs>();
    auto* cmd = plugin.add_subcommand(
        "new", "Create a plugin project (CMakeLists, manifest, source, test, README) that builds and passes checks");
    cmd->add_option("NAME", a->name, "Plugin name: lowercase letters, digits, _ (e.g. units)")->required();
    cmd->add_option("--lang", a->lang, "c (C99, skill_c.h) or cpp (C++17, skill.hpp)")->required();
    cmd->add_option("--dir", a->dir, "Project directory (default: ./NAME); must not exist or be empty")
        ->type_name("DIR");
    cmd->footer("Example: skillhost plugin new units --lang cpp && cmake -S units -B units/build");
    cmd->callback([&ctx, a] { ctx.exit_code = run_new(*a); });
}

}  // namespace skillhost::cli
