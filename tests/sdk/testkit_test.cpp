// The test kit as an author uses it: load a plugin through the host's loader, call skills through
// the host's executor, and get back what the host would report.
#include <skillhost/testkit_gtest.hpp>

#include <gtest/gtest.h>
#include <gtest/gtest-spi.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using skillhost::Json;
using skillhost::testkit::CallSettings;
using skillhost::testkit::LoadedPluginUnderTest;
using skillhost::testkit::LoadError;
using skillhost::testkit::LoadSettings;
using skillhost::testkit::SkillCallResult;

const fs::path probe_manifest = TESTKIT_PROBE_MANIFEST;

// A scratch directory for manifests a test writes itself.
class ScratchDir {
public:
    ScratchDir() {
        std::string pattern = (fs::temp_directory_path() / "sdk-testkit-test-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~ScratchDir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    const fs::path& path() const { return path_; }
    fs::path write(const std::string& name, const std::string& text) const {
        std::ofstream(path_ / name) << text;
        return path_ / name;
    }

private:
    fs::path path_;
};

LoadError load_error_for(const fs::path& manifest) {
    try {
        LoadedPluginUnderTest::load(manifest);
    } catch (const LoadError& e) {
        return e;
    }
    ADD_FAILURE() << "loading " << manifest << " should have failed";
    return LoadError("", "", "{}", {});
}

TEST(TestkitLoad, LoadsThePluginItsManifestNames) {
    auto plugin = LoadedPluginUnderTest::load(probe_manifest);
    EXPECT_EQ(plugin.name(), "testkit_probe");
    EXPECT_EQ(plugin.version(), "0.4.2");
    EXPECT_EQ(plugin.skill_ids(), (std::vector<std::string>{"echo", "fail", "context", "wait", "sleep"}));
    EXPECT_TRUE(fs::is_directory(plugin.home()));
}

TEST(TestkitLoad, RemovesItsTemporaryHomeWhenDestroyed) {
    fs::path home;
    {
        auto plugin = LoadedPluginUnderTest::load(probe_manifest);
        home = plugin.home();
        ASSERT_SKILL_OK(plugin.call("echo", R"({"message":"x"})"));
        EXPECT_TRUE(fs::exists(plugin.data_dir()));
    }
    EXPECT_FALSE(fs::exists(home)) << home;
}

TEST(TestkitLoad, KeepsAHomeTheTestGaveIt) {
    ScratchDir scratch;
    LoadSettings settings;
    settings.home = scratch.path() / "home";
    {
        auto plugin = LoadedPluginUnderTest::load(probe_manifest, settings);
        EXPECT_EQ(plugin.home(), settings.home);
        ASSERT_SKILL_OK(plugin.call("echo", R"({"message":"x"})"));
    }
    EXPECT_TRUE(fs::is_directory(settings.home / "users" / "tester" / "plugins" / "testkit_probe"));
}

TEST(TestkitLoad, MovedPluginStaysUsable) {
    auto first = LoadedPluginUnderTest::load(probe_manifest);
    LoadedPluginUnderTest second = std::move(first);
    EXPECT_SKILL_OK(second.call("echo", R"({"message":"moved"})"));
}

TEST(TestkitLoad, InvalidManifestThrowsTheHostsErrorWithItsPosition) {
    ScratchDir scratch;
    fs::path manifest = scratch.write("bad.yaml",
                                      "name: bad\nversion: \"1.0.0\"\nlibrary: libbad.so\nabi_version: \"1.0\"\n"
                                      "skills:\n  - id: Not-An-Id\n    description: x\n");
    LoadError error = load_error_for(manifest);
    EXPECT_EQ(error.code(), "MANIFEST_INVALID");
    EXPECT_NE(std::string(error.what()).find("MANIFEST_INVALID: "), std::string::npos);
    EXPECT_NE(error.message().find("bad.yaml:6:"), std::string::npos) << error.message();
    Json details = Json::parse(error.details_json());
    ASSERT_TRUE(details["problems"].is_array()) << error.details_json();
    EXPECT_EQ(details["problems"][0]["line"].as_int(), 6);
}

TEST(TestkitLoad, ManifestNamingAMissingLibraryThrowsLibraryNotFound) {
    ScratchDir scratch;
    fs::path manifest = scratch.write("ghost.yaml",
                                      "name: ghost\nversion: \"1.0.0\"\nlibrary: libghost.so\nabi_version: \"1.0\"\n"
                                      "skills:\n  - id: boo\n    description: x\n    inputs: {type: object}\n");
    LoadError error = load_error_for(manifest);
    EXPECT_EQ(error.code(), "LIBRARY_NOT_FOUND");
    EXPECT_NE(error.message().find("libghost.so"), std::string::npos) << error.message();
}

TEST(TestkitLoad, ManifestThatDisagreesWithTheLibraryThrowsSkillsMismatch) {
    ScratchDir scratch;
    // The probe library, but a manifest that forgets two skills and invents one.
    fs::copy_file(probe_manifest.parent_path() / "libtestkit_probe.so", scratch.path() / "libtestkit_probe.so");
    fs::path manifest = scratch.write(
        "probe.yaml",
        "name: testkit_probe\nversion: \"0.4.2\"\nlibrary: libtestkit_probe.so\nabi_version: \"1.0\"\n"
        "skills:\n"
        "  - id: echo\n    description: x\n    inputs: {type: object, properties: {message: {type: string}}}\n"
        "  - id: fail\n    description: x\n    inputs: {type: object}\n"
        "  - id: invented\n    description: x\n    inputs: {type: object}\n");
    LoadError error = load_error_for(manifest);
    EXPECT_EQ(error.code(), "SKILLS_MISMATCH");
    EXPECT_NE(error.message().find("invented"), std::string::npos) << error.message();
    EXPECT_NE(error.message().find("wait"), std::string::npos) << error.message();
}

class Testkit : public ::testing::Test {
protected:
    LoadedPluginUnderTest plugin = LoadedPluginUnderTest::load(probe_manifest);
};

TEST_F(Testkit, ReturnsTheResultWithManifestDefaultsApplied) {
    SkillCallResult r = plugin.call("echo", R"({"message":"hi"})");
    ASSERT_SKILL_OK(r);
    EXPECT_EQ(r.result(), Json::parse(R"({"message":"hi","times":3})"));
    EXPECT_FALSE(r.call_id.empty());
    EXPECT_TRUE(r.error_code.empty());
    EXPECT_EQ(Json::parse(r.to_json()), Json::parse(R"({"ok":true,"result":{"message":"hi","times":3}})"));
}

TEST_F(Testkit, ArgumentValidationHappensAsInTheHost) {
    SkillCallResult missing = plugin.call("echo", "{}");
    EXPECT_SKILL_ERROR(missing, "INVALID_ARGS");
    EXPECT_NE(missing.error_message.find("message"), std::string::npos) << missing.error_message;
    EXPECT_SKILL_ERROR(plugin.call("echo", R"({"message":"x","times":0})"), "INVALID_ARGS");
    EXPECT_SKILL_ERROR(plugin.call("echo", R"({"message":"x","colour":"red"})"), "INVALID_ARGS");
    EXPECT_SKILL_ERROR(plugin.call("nope"), "SKILL_NOT_FOUND");
}

TEST_F(Testkit, PluginErrorsCarryDetailsAndTheManifestsHints) {
    SkillCallResult r = plugin.call("fail", R"({"reason":"testing"})");
    EXPECT_SKILL_ERROR(r, "PROBE_FAILED");
    EXPECT_EQ(r.error_message, "the probe failed on purpose; pass ok=true");
    EXPECT_EQ(r.error_details()["reason"].as_string(), "testing");
    ASSERT_FALSE(r.suggestions.empty());
    EXPECT_EQ(r.suggestions.front(), "Call echo instead; fail always fails.");
    Json envelope = Json::parse(r.to_json());
    EXPECT_FALSE(envelope["ok"].as_bool());
    EXPECT_EQ(envelope["error"]["code"].as_string(), "PROBE_FAILED");
}

TEST_F(Testkit, TheCallContextComesFromTheSettings) {
    CallSettings settings;
    settings.user_id = "alice";
    settings.cognitive_mode = "emulation";
    settings.workspace_root = "/srv/alice";
    SkillCallResult r = plugin.call("context", "{}", settings);
    ASSERT_SKILL_OK(r);
    Json seen = r.result();
    EXPECT_EQ(seen["user_id"].as_string(), "alice");
    EXPECT_EQ(seen["cognitive_mode"].as_string(), "emulation");
    EXPECT_EQ(seen["workspace_root"].as_string(), "/srv/alice");
    EXPECT_EQ(fs::path(seen["data_dir"].as_string()), plugin.data_dir("alice"));
    EXPECT_TRUE(fs::is_directory(plugin.data_dir("alice")));
    EXPECT_TRUE(seen["has_deadline"].as_bool());  // the manifest's timeout becomes a deadline
}

TEST_F(Testkit, ATimeoutOverrideEndsTheCallAtItsDeadline) {
    CallSettings settings;
    settings.timeout = std::chrono::milliseconds(100);
    auto started = std::chrono::steady_clock::now();
    SkillCallResult r = plugin.call("sleep", R"({"ms":5000})", settings);
    EXPECT_SKILL_ERROR(r, "TIMEOUT");
    EXPECT_EQ(r.error_details()["timeout_ms"].as_int(), 100);
    // The skill itself sleeps on; the caller is answered at the deadline, long before it wakes.
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(4000));
}

TEST_F(Testkit, CancellingFromAnotherThreadStopsTheSkill) {
    CallSettings settings;
    settings.cancel = std::make_shared<std::atomic<bool>>(false);
    std::atomic<int> progress_reports{0};
    settings.on_progress = [&](double, double, std::string_view) {
        if (++progress_reports == 3) settings.cancel->store(true);
    };
    SkillCallResult r = plugin.call("wait", R"({"max_ms":8000})", settings);
    EXPECT_SKILL_ERROR(r, "CANCELLED");
    EXPECT_GE(progress_reports.load(), 3);
}

TEST_F(Testkit, InvalidJsonFromTheTestIsTheTestsMistake) {
    EXPECT_THROW(plugin.call("echo", "{message:"), std::invalid_argument);
}

TEST(TestkitGtest, AssertionsFailWithTheWholeOutcome) {
    SkillCallResult failed;
    failed.ok = false;
    failed.error_code = "NOTE_EMPTY";
    failed.error_message = "the note is empty";
    failed.error_details_json = "{}";
    SkillCallResult succeeded;
    succeeded.ok = true;
    succeeded.result_json = R"({"id":1})";

    EXPECT_NONFATAL_FAILURE(EXPECT_SKILL_OK(failed), "failed with NOTE_EMPTY: the note is empty");
    EXPECT_NONFATAL_FAILURE(EXPECT_SKILL_ERROR(succeeded, "NOTE_EMPTY"), "succeeded, expected error NOTE_EMPTY");
    EXPECT_NONFATAL_FAILURE(EXPECT_SKILL_ERROR(failed, "OTHER"), "failed with NOTE_EMPTY, expected OTHER");
    EXPECT_SKILL_OK(succeeded);
    EXPECT_SKILL_ERROR(failed, "NOTE_EMPTY");
}

}  // namespace
