// A run is continued only where the plugin versions its steps called are loaded.
#include "store/run_plugin_versions.hpp"

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <map>

namespace skillhost::store {
namespace {

LoadedPluginVersion loaded(std::map<std::string, std::string, std::less<>> plugins) {
    return [plugins = std::move(plugins)](std::string_view name) -> std::optional<std::string> {
        auto found = plugins.find(name);
        if (found == plugins.end()) return std::nullopt;
        return found->second;
    };
}

store::Run run_that_called(std::map<std::string, std::string> versions) {
    store::Run run;
    run.id = "run-00000000000000aa";
    run.plugin_versions = std::move(versions);
    return run;
}

TEST(RunPluginVersions, TheRecordedVersionsSurviveTheStoredRecord) {
    auto parsed = store::Run::from_json(run_that_called({{"fs", "1.2.0"}, {"tasks", "0.3.1"}}).to_json());
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->plugin_versions, (std::map<std::string, std::string>{{"fs", "1.2.0"}, {"tasks", "0.3.1"}}));
}

TEST(RunPluginVersions, ARunIsResumedWhereExactlyItsVersionsAreLoaded) {
    const auto run = run_that_called({{"fs", "1.2.0"}});
    EXPECT_TRUE(check_plugin_versions(run, loaded({{"fs", "1.2.0"}, {"other", "9"}})).ok());
    EXPECT_TRUE(check_plugin_versions(run_that_called({}), loaded({})).ok());  // no step called a skill yet
}

TEST(RunPluginVersions, AnotherLoadedVersionIsRefusedNamingBoth) {
    auto refused = check_plugin_versions(run_that_called({{"fs", "1.2.0"}}), loaded({{"fs", "1.3.0"}}));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "RUN_PLUGIN_VERSION_MISSING");
    EXPECT_EQ(refused.error().details.at("recorded_version"), "1.2.0");
    EXPECT_EQ(refused.error().details.at("loaded_version"), "1.3.0");
    EXPECT_NE(refused.error().message.find("fs 1.2.0"), std::string::npos) << refused.error().message;
    EXPECT_FALSE(refused.error().suggestions.empty());
}

TEST(RunPluginVersions, APluginThatIsNotLoadedAtAllIsRefused) {
    auto refused = check_plugin_versions(run_that_called({{"tasks", "0.3.1"}}), loaded({{"fs", "1.2.0"}}));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, "RUN_PLUGIN_VERSION_MISSING");
    EXPECT_FALSE(refused.error().details.contains("loaded_version"));
    EXPECT_NE(refused.error().message.find("no such plugin"), std::string::npos);
}

}  // namespace
}  // namespace skillhost::store
