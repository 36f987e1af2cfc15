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
    // An install prefix of the test's own: a real /opt/skillhost/etc on this machine must not leak in.
    TempDir prefix;
    ConfigSources s;
    s.home = "/tmp/some-home";
    s.executable = prefix / "bin/skillhost";
    auto cfg = load_host_config(s);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    EXPECT_EQ(cfg->home, "/tmp/some-home");
    ASSERT_EQ(cfg->plugin_dirs.size(), 1u);
    EXPECT_EQ(cfg->plugin_dirs[0], std::filesystem::weakly_canonical(prefix.path()) / "lib/skillhost/plugins");
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

TEST(HostConfig, PackagesDirDefaultsToTheHomesAndResolvesRelativeToTheFile) {
    TempDir dir;
    ConfigSources s;
    s.home = (dir / "home").string();
    auto defaults = load_host_config(s);
    ASSERT_TRUE(defaults.ok()) << defaults.error().message;
    EXPECT_EQ(defaults->packages_dir, dir / "home/packages");

    write_file(dir / "conf/skillhost.yaml", "packages_dir: mcp-packages\n");
    s.config_file = dir / "conf/skillhost.yaml";
    auto set = load_host_config(s);
    ASSERT_TRUE(set.ok()) << set.error().message;
    EXPECT_EQ(set->packages_dir, dir / "conf/mcp-packages");
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
        // yaml-cpp 0.7 never returns on this line (it allocates until the process dies).
        {"home: /tmp/h\n ,  x:\n", "skillhost.yaml:2:2: (file): not valid YAML"},
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

TEST(HostConfig, IsolationLimitsAreReadAndBounded) {
    TempDir dir;
    write_file(dir / "skillhost.yaml", "isolation:\n  memory_mb: 256\n  max_tasks: 64\n");
    ConfigSources s;
    s.config_file = dir / "skillhost.yaml";
    auto cfg = load_host_config(s);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    EXPECT_EQ(cfg->isolation.memory_mb, 256u);
    EXPECT_EQ(cfg->isolation.max_tasks, 64u);
    write_file(dir / "skillhost.yaml", "isolation:\n  max_tasks: -1\n");
    auto bad = load_host_config(s);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("max_tasks"), std::string::npos) << bad.error().message;
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

namespace {

TEST(HostConfigServer, DefaultsAreLoopbackWithSaneLimits) {
    ConfigSources s;
    s.home = "/tmp/some-home";
    auto cfg = load_host_config(s);
    ASSERT_TRUE(cfg.ok());
    EXPECT_EQ(cfg->server.host, "127.0.0.1");
    EXPECT_EQ(cfg->server.port, 8787);
    EXPECT_FALSE(cfg->server.allow_remote);
    EXPECT_EQ(cfg->server.max_runs_per_user, 4u);
}

TEST(HostConfigServer, ReadsEverySettingAndNamesTheWrongOne) {
    TempDir dir;
    write_file(dir / "skillhost.yaml",
               "server:\n  listen: \"[::1]:9000\"\n  allow_remote: true\n  threads: 3\n  handler_threads: 8\n"
               "  max_body_bytes: 4096\n  max_runs_per_user: 2\n  max_streams: 5\n  shutdown_grace_ms: 1500\n"
               "  mcp_allowed_origins: [\"https://app.example\"]\n");
    ConfigSources s;
    s.config_file = dir / "skillhost.yaml";
    s.home = dir / "home";
    auto cfg = load_host_config(s);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    EXPECT_EQ(cfg->server.host, "::1");
    EXPECT_EQ(cfg->server.port, 9000);
    EXPECT_TRUE(cfg->server.allow_remote);
    EXPECT_EQ(cfg->server.threads, 3u);
    EXPECT_EQ(cfg->server.handler_threads, 8u);
    EXPECT_EQ(cfg->server.max_body_bytes, 4096u);
    EXPECT_EQ(cfg->server.max_runs_per_user, 2u);
    EXPECT_EQ(cfg->server.max_streams, 5u);
    EXPECT_EQ(cfg->server.shutdown_grace, std::chrono::milliseconds(1500));
    EXPECT_EQ(cfg->server.mcp_allowed_origins, std::vector<std::string>{"https://app.example"});

    for (const auto& [yaml, key] : std::vector<std::pair<std::string, std::string>>{
             {"server:\n  listen: 8787\n", "server.listen"},
             {"server:\n  listen: \"host:99999\"\n", "server.listen"},
             {"server:\n  threads: -1\n", "server.threads"},
             {"server:\n  max_body_bytes: 10\n", "server.max_body_bytes"},
             {"server:\n  porto: 1\n", "server.porto"},
             {"server:\n  mcp_allowed_origins: [app.example]\n", "server.mcp_allowed_origins"},
             {"server: [1]\n", "server"}}) {
        write_file(dir / "skillhost.yaml", yaml);
        auto bad = load_host_config(s);
        ASSERT_FALSE(bad.ok()) << yaml;
        EXPECT_EQ(bad.error().code, "CONFIG_INVALID");
        EXPECT_EQ(bad.error().details.at("key").as_string(), key) << bad.error().message;
        EXPECT_NE(bad.error().message.find("skillhost.yaml:"), std::string::npos) << bad.error().message;
    }
}

TEST(HostConfigServer, ReadsTheExhaustionLimits) {
    TempDir dir;
    write_file(dir / "skillhost.yaml",
               "server:\n  max_streams_per_user: 3\n  max_call_streams_per_user: 7\n  max_connections: 50\n"
               "  stream_write_timeout_ms: 250\n"
               "  max_call_timeout_ms: 9000\n  readiness_cache_ms: 0\n  audit_page_limit: 20\n"
               "  mcp_sessions_per_user: 2\n  mcp_idle_expiry_ms: 5000\n");
    ConfigSources s;
    s.config_file = dir / "skillhost.yaml";
    s.home = dir / "home";
    auto cfg = load_host_config(s);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    EXPECT_EQ(cfg->server.max_streams_per_user, 3u);
    EXPECT_EQ(cfg->server.max_call_streams_per_user, 7u);
    EXPECT_EQ(cfg->server.max_connections, 50u);
    EXPECT_EQ(cfg->server.stream_write_timeout, std::chrono::milliseconds(250));
    EXPECT_EQ(cfg->server.max_call_timeout, std::chrono::milliseconds(9000));
    EXPECT_EQ(cfg->server.readiness_cache, std::chrono::milliseconds(0));
    EXPECT_EQ(cfg->server.audit_page_limit, 20u);
    EXPECT_EQ(cfg->server.mcp_sessions_per_user, 2u);
    EXPECT_EQ(cfg->server.mcp_idle_expiry, std::chrono::milliseconds(5000));

    for (const auto& [yaml, key] : std::vector<std::pair<std::string, std::string>>{
             {"server:\n  max_connections: 0\n", "server.max_connections"},
             {"server:\n  stream_write_timeout_ms: 10\n", "server.stream_write_timeout_ms"},
             {"server:\n  max_call_timeout_ms: 0\n", "server.max_call_timeout_ms"},
             {"server:\n  audit_page_limit: 1000000\n", "server.audit_page_limit"},
             {"server:\n  mcp_sessions_per_user: 0\n", "server.mcp_sessions_per_user"},
             {"server:\n  mcp_idle_expiry_ms: 5\n", "server.mcp_idle_expiry_ms"}}) {
        write_file(dir / "skillhost.yaml", yaml);
        auto bad = load_host_config(s);
        ASSERT_FALSE(bad.ok()) << yaml;
        EXPECT_EQ(bad.error().details.at("key").as_string(), key) << bad.error().message;
    }
}

TEST(HostConfigServer, ListenAddressesParseOrSayWhatIsWrong) {
    std::string host;
    std::uint16_t port = 0;
    std::string problem;
    EXPECT_TRUE(skillhost::config::parse_listen_address("0.0.0.0:80", host, port, problem));
    EXPECT_EQ(host, "0.0.0.0");
    EXPECT_EQ(port, 80);
    EXPECT_TRUE(skillhost::config::parse_listen_address("localhost:0", host, port, problem));
    EXPECT_EQ(host, "127.0.0.1");
    EXPECT_FALSE(skillhost::config::parse_listen_address(":80", host, port, problem));
    EXPECT_NE(problem.find("host part"), std::string::npos);
    EXPECT_FALSE(skillhost::config::parse_listen_address("::1:80", host, port, problem));
    EXPECT_FALSE(skillhost::config::parse_listen_address("[::1]80", host, port, problem));
}

}  // namespace

namespace {

TEST(HostConfig, HomePluginDirIsSearchedWhenItExistsThenPluginDirOptions) {
    TempDir dir;
    ConfigSources s;
    s.home = dir / "home";
    auto without = load_host_config(s);
    ASSERT_TRUE(without.ok()) << without.error().message;
    EXPECT_TRUE(without->plugin_dirs.empty()) << "a missing <home>/plugins is not searched";

    std::filesystem::create_directories(dir / "home/plugins");
    std::filesystem::create_directories(dir / "build/plugins");
    s.extra_plugin_dirs = {dir / "build/plugins", dir / "home/plugins"};
    auto with = load_host_config(s);
    ASSERT_TRUE(with.ok()) << with.error().message;
    ASSERT_EQ(with->plugin_dirs.size(), 2u) << "the home's directory given again is not searched twice";
    EXPECT_EQ(with->plugin_dirs[0], dir / "build/plugins") << "the build being tried wins over an installed copy";
    EXPECT_EQ(with->plugin_dirs[1], dir / "home/plugins");

    write_file(dir / "skillhost.yaml", "include_home_plugins: false\n");
    s.config_file = dir / "skillhost.yaml";
    s.extra_plugin_dirs.clear();
    auto off = load_host_config(s);
    ASSERT_TRUE(off.ok()) << off.error().message;
    EXPECT_TRUE(off->plugin_dirs.empty());
}

TEST(HostConfig, PluginDirOptionThatIsNotADirectoryIsRefused) {
    TempDir dir;
    write_file(dir / "file", "x");
    for (const auto& bad : {dir / "missing", dir / "file"}) {
        ConfigSources s;
        s.home = dir / "home";
        s.extra_plugin_dirs = {bad};
        auto cfg = load_host_config(s);
        ASSERT_FALSE(cfg.ok()) << bad;
        EXPECT_EQ(cfg.error().code, "PLUGIN_DIR_NOT_FOUND");
        EXPECT_NE(cfg.error().message.find(bad.string()), std::string::npos) << cfg.error().message;
        EXPECT_FALSE(cfg.error().suggestions.empty());
    }
}

TEST(HostConfig, StorageDefaultsToSqliteAndReadsAPostgresUrl) {
    TempDir dir;
    ConfigSources s;
    s.home = dir / "home";
    auto defaults = load_host_config(s);
    ASSERT_TRUE(defaults.ok()) << defaults.error().message;
    EXPECT_EQ(defaults->storage.backend, "sqlite");
    EXPECT_EQ(defaults->storage.url, "");

    write_file(dir / "skillhost.yaml",
               "storage:\n  backend: postgres\n  url: postgresql://skillhost@db.internal:5432/skillhost\n");
    s.config_file = dir / "skillhost.yaml";
    auto cfg = load_host_config(s);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    EXPECT_EQ(cfg->storage.backend, "postgres");
    EXPECT_EQ(cfg->storage.url, "postgresql://skillhost@db.internal:5432/skillhost");
}

TEST(HostConfig, StorageReadsTheLeaseTimings) {
    TempDir dir;
    ConfigSources s;
    s.home = dir / "home";
    write_file(dir / "skillhost.yaml",
               "storage:\n  backend: postgres\n  url: postgresql://db/skillhost\n  lease_ttl_ms: 4000\n"
               "  lease_heartbeat_ms: 2000\n  sweep_interval_ms: 250\n");
    s.config_file = dir / "skillhost.yaml";
    auto cfg = load_host_config(s);
    ASSERT_TRUE(cfg.ok()) << cfg.error().message;
    EXPECT_EQ(cfg->storage.lease_ttl, std::chrono::milliseconds(4000));
    EXPECT_EQ(cfg->storage.lease_heartbeat, std::chrono::milliseconds(2000));
    EXPECT_EQ(cfg->storage.sweep_interval, std::chrono::milliseconds(250));
    // Defaults: 30 s leases extended every 10 s, swept every 5 s.
    write_file(dir / "skillhost.yaml", "storage:\n  backend: sqlite\n");
    auto defaults = load_host_config(s);
    ASSERT_TRUE(defaults.ok()) << defaults.error().message;
    EXPECT_EQ(defaults->storage.lease_ttl, std::chrono::milliseconds(30000));
    EXPECT_EQ(defaults->storage.lease_heartbeat, std::chrono::milliseconds(10000));
    EXPECT_EQ(defaults->storage.sweep_interval, std::chrono::milliseconds(5000));
}

TEST(HostConfig, StorageMistakesNameTheKeyAndWhatToWrite) {
    TempDir dir;
    struct Case {
        std::string yaml;
        std::string key;
        std::string says;
    };
    const std::vector<Case> cases = {
        {"storage:\n  backend: mysql\n", "storage.backend", "expected sqlite or postgres, got 'mysql'"},
        {"storage:\n  backend: postgres\n", "storage.url", "needs a connection string"},
        {"storage:\n  backend: sqlite\n  url: postgresql://x/y\n", "storage.url", "only read by the postgres backend"},
        {"storage:\n  backend: postgres\n  url: \"host=a\\u0001\"\n", "storage.url", "printable characters"},
        {"storage:\n  backend: postgres\n  url: \"\"\n", "storage.url", "printable characters"},
        {"storage:\n  pool: 4\n", "storage.pool", "unknown setting; allowed: backend, lease_heartbeat_ms"},
        {"storage:\n  lease_ttl_ms: 100\n", "storage.lease_ttl_ms", "expected 500..3600000, got 100"},
        {"storage:\n  lease_heartbeat_ms: 20000\n", "storage.lease_heartbeat_ms",
         "at most half of storage.lease_ttl_ms (30000)"},
        {"storage:\n  lease_ttl_ms: 2000\n  lease_heartbeat_ms: 1500\n", "storage.lease_heartbeat_ms",
         "at most half of storage.lease_ttl_ms (2000), got 1500"},
        {"storage:\n  sweep_interval_ms: soon\n", "storage.sweep_interval_ms", "a whole number of milliseconds"},
        {"storage: postgres\n", "storage", "expected a mapping (backend, url)"},
        {"storage:\n  backend: [sqlite]\n", "storage.backend", "expected text"},
        {"storage:\n  backend: postgres\n  url: \"" + std::string(5000, 'h') + "\"\n", "storage.url", "1..4096"},
    };
    for (const auto& c : cases) {
        write_file(dir / "skillhost.yaml", c.yaml);
        ConfigSources s;
        s.home = dir / "home";
        s.config_file = dir / "skillhost.yaml";
        auto cfg = load_host_config(s);
        ASSERT_FALSE(cfg.ok()) << c.yaml;
        EXPECT_EQ(cfg.error().code, "CONFIG_INVALID") << c.yaml;
        EXPECT_EQ(cfg.error().details.at("key").as_string(), c.key) << c.yaml;
        EXPECT_NE(cfg.error().message.find(c.says), std::string::npos) << cfg.error().message;
    }
}

}  // namespace
