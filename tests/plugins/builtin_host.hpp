// The built-in plugins as the host runs them: their manifests from the build tree's plugin
// directory, loaded by the real PluginLoader into a CatalogSnapshot, called through the Executor.
#pragma once

#include "exec/executor.hpp"
#include "support/temp_dir.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace skillhost::testing {

class BuiltinHost {
public:
    // Loads tasks, fs and memory; fails the current test when any does not load.
    BuiltinHost();

    // Calls `skill` with `args_json` for `user` (each user gets their own data dirs under home).
    exec::SkillResult call(const std::string& skill, const std::string& args_json, const std::string& user = "alice");
    // The same with the call's idempotency key ("skillhost.idempotency/1"), as a retried run step has.
    exec::SkillResult call_with_key(const std::string& skill, const std::string& args_json, const std::string& key,
                                    const std::string& user = "alice");

    const std::filesystem::path& home() const { return home_.path(); }
    std::filesystem::path users_dir() const { return home_ / "users"; }
    // The workspace root callers get; created empty. Tests may point it elsewhere.
    std::filesystem::path workspace_root;
    // Replaces the manifest's timeout when set: a test that moves megabytes through a runner is
    // about what arrives, not how fast, and runs under sanitizers on a shared machine too.
    std::optional<std::chrono::milliseconds> timeout;
    const catalog::CatalogSnapshot& catalog() const { return *catalog_; }

private:
    TempDir home_;
    std::shared_ptr<catalog::CatalogSnapshot> catalog_;
    exec::Executor executor_;
};

// The result's output, serialised (for "never appears in the result" checks).
std::string output_text(const exec::SkillResult& result);
// Convenience accessors on a successful result's output object.
const boost::json::value& field(const exec::SkillResult& result, const char* name);

}  // namespace skillhost::testing
