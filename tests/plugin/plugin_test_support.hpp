// Shared by the plugin subsystem tests: a loader with a temporary cache, and JSON helpers.
#pragma once

#include "fixtures/fixture_support.hpp"
#include "plugin/plugin_loader.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace skillhost::plugin::testing {

class LoaderTest : public ::testing::Test {
protected:
    test::TempDir cache{"skillhost-cache"};
    test::TempDir home{"skillhost-home"};

    PluginLoader make_loader(std::shared_ptr<CompletionService> completions = nullptr) const {
        return PluginLoader(LoaderOptions{cache.path(), std::move(completions)});
    }

    std::shared_ptr<LoadedPlugin> load_fixture(std::string_view fixture) const {
        auto loaded = make_loader().load_file(test::fixture_manifest(fixture));
        if (!loaded.ok()) ADD_FAILURE() << "loading " << fixture << ": " << loaded.error().message;
        return loaded.ok() ? loaded.value() : nullptr;
    }

    Call context(std::string skill_id, CallControl* control = nullptr) const {
        Call c;
        c.skill_id = std::move(skill_id);
        c.call_id = "call-1";
        c.user_id = "alice";
        c.data_dir = home.path() / "users" / "alice" / "plugins" / "fixture";
        c.control = control;
        return c;
    }
};

inline boost::json::value parse(std::string_view text) {
    return boost::json::parse(text);
}

}  // namespace skillhost::plugin::testing
