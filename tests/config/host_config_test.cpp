#include "config/host_config.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

using skillhost::config::ConfigSources;
using skillhost::config::load_host_config;
using skillhost::testing::TempDir;
using skillhost::testing::write_file;

TEST(HostConfig, DefaultsIncludeBuiltinPluginsBesideTheExecutable) {
    ConfigSources s;
    s.home = "/tmp/some-home";
    s.executable = "/opt/skillhost/bin/skillhost";
    auto cfg = load_host_config(s);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    EXPECT_EQ(cfg->home, "/tmp/some-home");
    ASSERT_EQ(cfg->plugin_dirs.size(), 1u);
    EXPECT_EQ(cfg->plugin_dirs[0], "/opt/skillhost/lib/skillhost/plugins");
    EXPECT_EQ(cfg->users_dir(), "/tmp/some-home/users");
    EXPECT_EQ(cfg->default_user, "owner");
}

TEST(HostConfig, FileValuesResolveRelativeToTheFile) {
    TempDir dir;
    write_file(dir / "conf/skillhost.yaml",
               "home: state\nplugin_dirs: [extra, /abs/plugins]\ndefault_user: ada\nreload_debounce_ms: 250\n"
               "include_builtin_plugins: false\n");
    ConfigSources s;
    s.config_file = dir / "conf/skillhost.yaml";
    auto cfg = load_host_config(s);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    EXPECT_EQ(cfg->home, dir / "conf/state");
    ASSERT_EQ(cfg->plugin_dirs.size(), 2u);
    EXPECT_EQ(cfg->plugin_dirs[0], dir / "conf/extra");
    EXPECT_EQ(cfg->plugin_dirs[1], "/abs/plugins");
    EXPECT_EQ(cfg->default_user, "ada");
    EXPECT_EQ(cfg->reload_debounce.count(), 250);
    EXPECT_EQ(cfg->etc_dir, dir / "conf");
}

TEST(HostConfig, HomeOptionWinsOverFileAndEnvironment) {
    TempDir dir;
    write_file(dir / "skillhost.yaml", "home: from-file\n");
    setenv("SKILLHOST_HOME", "/tmp/from-env", 1);
    ConfigSources s;
    s.config_file = dir / "skillhost.yaml";
    auto env_cfg = load_host_config(s);
    s.home = "/tmp/from-flag";
    auto flag_cfg = load_host_config(s);
    unsetenv("SKILLHOST_HOME");
    ASSERT_TRUE(env_cfg.ok() && flag_cfg.ok());
    EXPECT_EQ(env_cfg->home, "/tmp/from-env");
    EXPECT_EQ(flag_cfg->home, "/tmp/from-flag");
}

TEST(HostConfig, ErrorsNameFileLineColumnAndKey) {
    TempDir dir;
    auto file = dir / "skillhost.yaml";
    struct Case {
        std::string yaml, expected;
    } cases[] = {
        {"home: x\nplugin_dir: []\n", ":2:1: plugin_dir: unknown setting"},
        {"plugin_dirs: just-one\n", ":1:14: plugin_dirs: expected a list of directories"},
        {"reload_debounce_ms: 999999\n", ":1:21: reload_debounce_ms: expected 0..60000 milliseconds"},
        {"include_builtin_plugins: maybe\n", ":1:26: include_builtin_plugins: has the wrong type"},
        {"home: [unclosed\n", "not valid YAML"},
        {"- a list\n", "expected a mapping of settings"},
    };
    for (const auto& c : cases) {
        write_file(file, c.yaml);
        ConfigSources s;
        s.config_file = file;
        auto cfg = load_host_config(s);
        ASSERT_FALSE(cfg.ok()) << c.yaml;
        EXPECT_EQ(cfg.error().code, "CONFIG_INVALID");
        EXPECT_NE(cfg.error().message.find(c.expected), std::string::npos) << cfg.error().message;
    }
}

TEST(HostConfig, MissingFileSaysSo) {
    ConfigSources s;
    s.config_file = "/nonexistent/skillhost.yaml";
    auto cfg = load_host_config(s);
    ASSERT_FALSE(cfg.ok());
    EXPECT_EQ(cfg.error().code, "CONFIG_NOT_FOUND");
    EXPECT_NE(cfg.error().message.find("/nonexistent/skillhost.yaml"), std::string::npos);
}

}  // namespace
