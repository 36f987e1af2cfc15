// `skillhost plugin validate MANIFEST [--library FILE]`: the manifest alone, every problem, one
// compiler-style line each ("file:line:column: error: field: message"), so a build step
// (skillhost_add_plugin) fails on a broken manifest and an IDE jumps to the line. Needs no library,
// no configuration and no home.
#include "cli/cli_context.hpp"
#include "base/guarded_yaml.hpp"
#include "cli/output.hpp"
#include "manifest/manifest.hpp"

#include <yaml-cpp/yaml.h>

#include <iostream>

namespace skillhost::cli {
namespace {

struct ValidateArgs {
    std::string manifest;
    std::string library;
};

// A skill without `risk` is medium, so every call of it waits for an approval for users below
// bounded_auto trust (the default user included). Worth a note: nothing else says why.
void note_missing_risk(const std::string& file) {
    YAML::Node root;
    try {
        root = load_guarded_yaml_file(file);
    } catch (const YAML::Exception&) {
        return;  // the parser already reported it
    }
    const YAML::Node skills = root.IsMap() ? root["skills"] : YAML::Node();
    if (!skills.IsSequence()) return;
    for (const auto& skill : skills) {
        if (!skill.IsMap() || skill["risk"]) continue;
        const auto mark = skill.Mark();
        const YAML::Node id = skill["id"];
        std::cerr << file << ":" << mark.line + 1 << ":" << mark.column + 1 << ": note: skill '"
                  << (id && id.IsScalar() ? id.Scalar() : std::string("?"))
                  << "' has no risk, so it is medium: users below bounded_auto trust must approve every call; "
                     "write `risk: low` if it only reads or computes\n";
    }
}

int run_validate(const ValidateArgs& a) {
    auto m = manifest::load_manifest(a.manifest);
    if (!m) {
        const auto* problems = m.error().details.if_contains("problems");
        if (problems == nullptr || !problems->is_array()) {
            std::cerr << a.manifest << ": error: " << m.error().code << ": " << m.error().message << "\n";
            return kExitFailed;
        }
        for (const auto& item : problems->as_array()) {
            const auto& p = item.as_object();
            std::cerr << p.at("file").as_string().c_str() << ":" << p.at("line").to_number<std::int64_t>() << ":"
                      << p.at("column").to_number<std::int64_t>() << ": error: ";
            if (!p.at("field").as_string().empty()) std::cerr << p.at("field").as_string().c_str() << ": ";
            std::cerr << p.at("message").as_string().c_str() << "\n";
        }
        std::cerr << a.manifest << ": " << problems->as_array().size()
                  << " problem(s); the fields are described in docs/manifest-reference.md\n";
        return kExitFailed;
    }
    if (!a.library.empty() && m->library != a.library) {
        std::cerr << a.manifest << ": error: library: the manifest names '" << m->library << "' but the build makes '"
                  << a.library << "'; write `library: " << a.library << "`\n";
        return kExitFailed;
    }
    note_missing_risk(a.manifest);
    return kExitOk;
}

}  // namespace

void register_plugin_validate_command(CLI::App& plugin, CliContext& ctx) {
    auto a = std::make_shared<ValidateArgs>();
    auto* cmd = plugin.add_subcommand(
        "validate", "Check a manifest alone and list every problem with file:line:column (a build step)");
    cmd->add_option("MANIFEST", a->manifest, "The plugin's manifest (the source file, not a build copy)")->required();
    cmd->add_option("--library", a->library, "The library file name the build produces; must equal `library`")
        ->type_name("FILE");
    cmd->callback([&ctx, a] { ctx.exit_code = run_validate(*a); });
}

}  // namespace skillhost::cli
