// skillhost/testkit.hpp — load your plugin exactly as the host does and call its skills in tests.
//
//   auto plugin = skillhost::testkit::LoadedPluginUnderTest::load("build/plugins/hello_c.yaml");
//   auto r = plugin.call("word_count", R"({"text":"a b"})");
//   // r.ok, r.result_json / r.result(), r.error_code, r.error_message, r.suggestions
//
// Behind this header is the host's own code: the same manifest validation, the same plugin
// loader (private library copy, entry symbol, ABI version, manifest/library agreement, init), and
// the same executor (argument validation, defaults, timeouts, serial concurrency, error hints).
// Each loaded plugin gets a temporary host home (users/<user>/plugins/<plugin>/ data dirs, plugin
// cache) that is removed when the object is destroyed.
//
// Standard library only (plus the SDK's own json.hpp), so a test needs no host dependency.
// GoogleTest helpers are in skillhost/testkit_gtest.hpp.
#pragma once

#include <skillhost/json.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// The library is built with hidden visibility; only what is marked here is exported.
#define SKILLHOST_TESTKIT_API __attribute__((visibility("default")))

namespace skillhost::testkit {

// The plugin could not be loaded. code() is the host's error code (MANIFEST_INVALID,
// LIBRARY_NOT_FOUND, ENTRY_MISSING, ABI_INCOMPATIBLE, SKILLS_MISMATCH, PLUGIN_INIT_FAILED, ...);
// what() is "CODE: message" — the same text `skillhost skills list` shows for that plugin.
class SKILLHOST_TESTKIT_API LoadError : public std::runtime_error {
public:
    LoadError(std::string code, std::string message, std::string details_json, std::vector<std::string> suggestions);
    const std::string& code() const { return code_; }
    const std::string& message() const { return message_; }
    // A JSON object with machine-readable details (e.g. the manifest problems with line:column).
    const std::string& details_json() const { return details_json_; }
    const std::vector<std::string>& suggestions() const { return suggestions_; }

private:
    std::string code_;
    std::string message_;
    std::string details_json_;
    std::vector<std::string> suggestions_;
};

// What one call returned, as the host's executor reports it to every front end.
struct SkillCallResult {
    bool ok = false;
    std::string result_json;  // the skill's result (a JSON value) when ok
    std::string error_code;   // when !ok: e.g. INVALID_ARGS, TIMEOUT, or the plugin's code
    std::string error_message;
    std::string error_details_json;        // a JSON object; "{}" when there are none
    std::vector<std::string> suggestions;  // the manifest's error hints for the code + host hints
    std::string call_id;
    std::chrono::microseconds duration{0};

    // The result parsed (throws skillhost::JsonError when !ok, as result_json is then empty).
    Json result() const { return Json::parse(result_json); }
    Json error_details() const { return Json::parse(error_details_json); }
    // The whole outcome as the host's JSON envelope: {ok, result} or {ok, error{...}}.
    std::string to_json() const {
        Json envelope = Json::object({{"ok", ok}});
        if (ok) {
            envelope["result"] = Json::parse(result_json);
        } else {
            Json hints = Json::array();
            for (const auto& s : suggestions) hints.push_back(s);
            envelope["error"] = Json::object(
                {{"code", error_code},
                 {"message", error_message},
                 {"details", error_details_json.empty() ? Json::object() : Json::parse(error_details_json)},
                 {"suggestions", hints}});
        }
        return envelope.dump();
    }
};

// Per-call settings; the defaults are what `skillhost call` uses for the owner.
struct CallSettings {
    std::string user_id = "tester";
    std::string cognitive_mode = "agent";  // "dual", "agent" or "emulation"
    std::filesystem::path workspace_root;  // empty: the user has none
    // Overrides the manifest's timeout_ms for this call.
    std::optional<std::chrono::milliseconds> timeout;
    // Receives the plugin's progress reports (called on the plugin's thread).
    std::function<void(double progress, double total, std::string_view message)> on_progress;
    // Set it (from any thread) to ask the skill to stop, as a client cancelling a call would.
    std::shared_ptr<std::atomic<bool>> cancel;
};

struct LoadSettings {
    // Host home for this plugin; empty: a fresh temporary directory removed on destruction.
    // A directory given here is created if missing and never removed.
    std::filesystem::path home;
};

class SKILLHOST_TESTKIT_API LoadedPluginUnderTest {
public:
    // Reads and validates the manifest, loads the library it names, and calls the plugin's init().
    // Throws LoadError naming what failed.
    static LoadedPluginUnderTest load(const std::filesystem::path& manifest_file, const LoadSettings& settings = {});

    LoadedPluginUnderTest(LoadedPluginUnderTest&&) noexcept;
    LoadedPluginUnderTest& operator=(LoadedPluginUnderTest&&) noexcept;
    LoadedPluginUnderTest(const LoadedPluginUnderTest&) = delete;
    LoadedPluginUnderTest& operator=(const LoadedPluginUnderTest&) = delete;
    // Shuts the plugin down, unloads it, and removes the temporary home.
    ~LoadedPluginUnderTest();

    // Runs one skill through the host's executor. `args_json` must be JSON text (the test's own
    // input, so invalid JSON throws std::invalid_argument); everything the plugin or the arguments
    // get wrong comes back as a result with ok == false.
    SkillCallResult call(std::string_view skill_id, std::string_view args_json = "{}",
                         const CallSettings& settings = {}) const;

    const std::string& name() const;             // the manifest's plugin name
    const std::string& version() const;          // the library's self-reported version
    std::vector<std::string> skill_ids() const;  // in manifest order
    const std::filesystem::path& home() const;   // this plugin's host home
    // The plugin's private data directory for `user_id` (what Call::data_dir() gives the skill).
    std::filesystem::path data_dir(std::string_view user_id = "tester") const;

private:
    struct State;
    explicit LoadedPluginUnderTest(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

}  // namespace skillhost::testkit
