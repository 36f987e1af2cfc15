// Shared by the isolation tests: a loader whose plugins run in real runner processes.
#pragma once

#include "fixtures/fixture_support.hpp"
#include "plugin/plugin_loader.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace skillhost::plugin::testing {

class IsolationTest : public ::testing::Test {
protected:
    test::TempDir cache{"skillhost-cache"};
    test::TempDir home{"skillhost-home"};
    LoaderOptions options;

    void SetUp() override {
        options.cache_dir = cache.path();
        options.isolation.default_mode = IsolationMode::process;
        options.isolation.kill_grace = std::chrono::milliseconds(300);
        options.isolation.restart_backoff = std::chrono::milliseconds(1);
        options.isolation.crash_limit = 100;
    }

    std::shared_ptr<LoadedPlugin> load(std::string_view fixture) const {
        auto loaded = PluginLoader(options).load_file(test::fixture_manifest(fixture));
        if (!loaded.ok()) ADD_FAILURE() << "loading " << fixture << ": " << loaded.error().message;
        return loaded.ok() ? loaded.value() : nullptr;
    }

    Call context(std::string skill_id, std::string user = "alice", CallControl* control = nullptr) const {
        Call c;
        c.skill_id = std::move(skill_id);
        c.call_id = "call-1";
        c.user_id = user;
        c.data_dir = home.path() / "users" / user / "plugins" / "fixture";
        c.control = control;
        return c;
    }

    // A context whose deadline is `ms` from now, with a control the test can cancel.
    Call timed(std::string skill_id, std::int64_t ms, CallControl* control) const {
        Call c = context(std::move(skill_id), "alice", control);
        c.deadline_unix_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count() +
            ms;
        return c;
    }
};

inline boost::json::object details_of(const RawOutcome& outcome) {
    return boost::json::parse(outcome.error_details_json).as_object();
}

}  // namespace skillhost::plugin::testing
