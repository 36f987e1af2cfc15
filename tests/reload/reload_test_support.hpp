// Helpers shared by the reload tests: installing fixtures the way an installer does, waiting for
// the catalog to reach a state (with a generous timeout, never a fixed sleep), calling a skill.
#pragma once

#include "fixtures/fixture_support.hpp"
#include "fixtures/generated/generated_fixture.hpp"
#include "reload/live_catalog.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace skillhost::test {

using namespace std::chrono_literals;

// Polls `condition` until it holds or `timeout` passes; returns whether it held.
inline bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!condition()) {
        if (std::chrono::steady_clock::now() >= deadline) return condition();
        std::this_thread::sleep_for(2ms);
    }
    return true;
}

// Installs the library of `fixture` (e.g. "echo_v2", "wrong_major") into `dir` under `library_name`
// by copy-then-rename.
inline void install_fixture_library(std::string_view fixture, const std::filesystem::path& dir,
                                    const std::string& library_name) {
    for (const auto& entry : std::filesystem::directory_iterator(fixture_dir(fixture))) {
        if (entry.path().extension() == ".so") {
            install_copy(entry.path(), dir, library_name);
            return;
        }
    }
    throw std::runtime_error("fixture " + std::string(fixture) + " has no library; build skillhost_test_fixtures");
}

// Installs a fixture's library and then its manifest (both by rename); returns the manifest's path.
inline std::filesystem::path install_fixture(std::string_view fixture, const std::filesystem::path& dir) {
    std::filesystem::path manifest;
    for (const auto& entry : std::filesystem::directory_iterator(fixture_dir(fixture))) {
        if (entry.path().extension() == ".so") install_copy(entry.path(), dir, entry.path().filename().string());
        if (entry.path().extension() == ".yaml") manifest = entry.path();
    }
    if (manifest.empty()) throw std::runtime_error("fixture " + std::string(fixture) + " has no manifest");
    install_copy(manifest, dir, manifest.filename().string());
    return dir / manifest.filename();
}

// Calls `skill_id` in `snapshot` directly over the C ABI; returns the parsed result, or a JSON
// object {"error": code} when the skill is missing or failed.
inline boost::json::value call_skill(const catalog::CatalogSnapshot& snapshot, std::string_view skill_id,
                                     std::string_view args_json = "{}") {
    const auto* entry = snapshot.find(skill_id);
    if (!entry) return boost::json::object{{"error", "SKILL_NOT_FOUND"}};
    plugin::Call context;
    context.skill_id = std::string(skill_id);
    context.call_id = "reload-test";
    context.data_dir = std::filesystem::temp_directory_path();
    const auto outcome = entry->plugin->invoke(context, args_json);
    if (outcome.written != plugin::RawOutcome::Written::result)
        return boost::json::object{{"error", outcome.error_code.empty() ? "NO_RESULT" : outcome.error_code}};
    return boost::json::parse(outcome.result_json);
}

// The "version" skill of the echo fixture: 1 for echo, 2 for echo_v2, 0 when not callable.
inline std::int64_t echo_build(const reload::LiveCatalog& catalog) {
    const auto result = call_skill(*catalog.snapshot(), "version");
    const auto* object = result.if_object();
    if (!object || !object->contains("version")) return 0;
    return object->at("version").to_number<std::int64_t>();
}

// Records every catalog change (not the snapshots: holding those would keep old plugins loaded).
class ChangeLog {
public:
    explicit ChangeLog(reload::LiveCatalog& catalog)
        : subscription_(catalog.subscribe([this](const reload::CatalogUpdate& update) {
              std::lock_guard lock(mutex_);
              changes_.push_back(update.change);
          })) {}

    std::vector<reload::CatalogChange> changes() const {
        std::lock_guard lock(mutex_);
        return changes_;
    }
    // How many changes rebuilt the unit of `manifest_file`.
    std::size_t count_for(const std::filesystem::path& manifest_file) const {
        std::lock_guard lock(mutex_);
        std::size_t count = 0;
        for (const auto& change : changes_) count += change.touches_unit(manifest_file) ? 1 : 0;
        return count;
    }

private:
    mutable std::mutex mutex_;
    std::vector<reload::CatalogChange> changes_;
    reload::Subscription subscription_;  // last: unsubscribes before the members above go away
};

}  // namespace skillhost::test
