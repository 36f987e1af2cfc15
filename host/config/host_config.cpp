#include "config/host_config.hpp"
#include "config/error_codes.hpp"

#include "base/guarded_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>

namespace skillhost::config {
namespace {

namespace fs = std::filesystem;

fs::path expand_home(const std::string& text) {
    if (text == "~" || text.rfind("~/", 0) == 0) {
        const char* home = std::getenv("HOME");
        fs::path base = home && *home ? fs::path(home) : fs::path("/");
        return text.size() == 1 ? base : base / text.substr(2);
    }
    return fs::path(text);
}

fs::path resolve_against(const fs::path& base_dir, const std::string& text) {
    fs::path p = expand_home(text);
    return p.is_absolute() ? p.lexically_normal() : (base_dir / p).lexically_normal();
}

Error config_error(const fs::path& file, const YAML::Mark& mark, const std::string& key, const std::string& what) {
    Error e;
    e.recode(errors::kConfigInvalid);
    e.message = file.string() + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) + ": " +
                key + ": " + what;
    e.details["file"] = file.string();
    e.details["line"] = mark.line + 1;
    e.details["column"] = mark.column + 1;
    e.details["key"] = key;
    e.suggestions.push_back("see docs/configuration.md for the keys skillhost.yaml accepts");
    return e;
}

const std::set<std::string>& known_keys() {
    static const std::set<std::string> keys{"home",
                                            "plugin_dirs",
                                            "default_user",
                                            "default_workspace",
                                            "secret_key_file",
                                            "packages_dir",
                                            "reload_debounce_ms",
                                            "include_builtin_plugins",
                                            "include_home_plugins",
                                            "server",
                                            "isolation",
                                            "storage"};
    return keys;
}

std::string joined(const std::set<std::string>& names) {
    std::string out;
    for (const auto& k : names) out += (out.empty() ? "" : ", ") + k;
    return out;
}

template <class T>
std::optional<Error> read_bounded(const fs::path& file, const YAML::Node& v, const std::string& key, long long lo,
                                  long long hi, T& out) {
    const long long n = v.as<long long>();
    if (n < lo || n > hi) {
        return config_error(
            file, v.Mark(), key,
            "expected " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + std::to_string(n));
    }
    out = static_cast<T>(n);
    return std::nullopt;
}

std::optional<Error> read_server(const fs::path& file, const YAML::Node& node, ServerSettings& server) {
    if (!node.IsMap()) return config_error(file, node.Mark(), "server", "expected a mapping (listen, threads, ...)");
    static const std::set<std::string> keys{"listen",
                                            "allow_remote",
                                            "threads",
                                            "handler_threads",
                                            "max_body_bytes",
                                            "max_runs_per_user",
                                            "max_streams",
                                            "max_streams_per_user",
                                            "max_call_streams_per_user",
                                            "max_connections",
                                            "stream_write_timeout_ms",
                                            "max_call_timeout_ms",
                                            "readiness_cache_ms",
                                            "audit_page_limit",
                                            "mcp_sessions_per_user",
                                            "mcp_idle_expiry_ms",
                                            "shutdown_grace_ms",
                                            "mcp_allowed_origins",
                                            "mcp_client_sampling"};
    const auto read_ms = [&](const YAML::Node& v, const std::string& name, long long lo, long long hi,
                             std::chrono::milliseconds& out) {
        long long ms = 0;
        auto bad = read_bounded(file, v, name, lo, hi, ms);
        if (!bad) out = std::chrono::milliseconds(ms);
        return bad;
    };
    for (const auto& kv : node) {
        const std::string key = kv.first.as<std::string>();
        const std::string name = "server." + key;
        const YAML::Node& v = kv.second;
        if (!keys.count(key))
            return config_error(file, kv.first.Mark(), name, "unknown setting; allowed: " + joined(keys));
        try {
            std::optional<Error> bad;
            if (key == "listen") {
                std::string problem;
                if (!parse_listen_address(v.as<std::string>(), server.host, server.port, problem))
                    return config_error(file, v.Mark(), name, problem);
            } else if (key == "allow_remote") {
                server.allow_remote = v.as<bool>();
            } else if (key == "mcp_client_sampling") {
                server.mcp_client_sampling = v.as<bool>();
            } else if (key == "threads") {
                bad = read_bounded(file, v, name, 0, 256, server.threads);
            } else if (key == "handler_threads") {
                bad = read_bounded(file, v, name, 1, 1024, server.handler_threads);
            } else if (key == "max_body_bytes") {
                bad = read_bounded(file, v, name, 1024, 1LL << 30, server.max_body_bytes);
            } else if (key == "max_runs_per_user") {
                bad = read_bounded(file, v, name, 1, 1000, server.max_runs_per_user);
            } else if (key == "max_streams") {
                bad = read_bounded(file, v, name, 1, 100000, server.max_streams);
            } else if (key == "max_streams_per_user") {
                bad = read_bounded(file, v, name, 1, 100000, server.max_streams_per_user);
            } else if (key == "max_call_streams_per_user") {
                bad = read_bounded(file, v, name, 1, 100000, server.max_call_streams_per_user);
            } else if (key == "max_connections") {
                bad = read_bounded(file, v, name, 1, 1000000, server.max_connections);
            } else if (key == "stream_write_timeout_ms") {
                bad = read_ms(v, name, 100, 3600000, server.stream_write_timeout);
            } else if (key == "max_call_timeout_ms") {
                bad = read_ms(v, name, 1, 86400000, server.max_call_timeout);
            } else if (key == "readiness_cache_ms") {
                bad = read_ms(v, name, 0, 3600000, server.readiness_cache);
            } else if (key == "audit_page_limit") {
                bad = read_bounded(file, v, name, 1, 100000, server.audit_page_limit);
            } else if (key == "mcp_sessions_per_user") {
                bad = read_bounded(file, v, name, 1, 10000, server.mcp_sessions_per_user);
            } else if (key == "mcp_idle_expiry_ms") {
                bad = read_ms(v, name, 1000, 604800000, server.mcp_idle_expiry);
            } else if (key == "mcp_allowed_origins") {
                if (!v.IsSequence())
                    return config_error(file, v.Mark(), name, "expected a list of origins such as https://app.example");
                for (const auto& origin : v) {
                    const std::string text = origin.as<std::string>();
                    if (text.rfind("http://", 0) != 0 && text.rfind("https://", 0) != 0) {
                        return config_error(
                            file, origin.Mark(), name,
                            "'" + text + "' is not an origin; write scheme://host[:port], e.g. https://app.example");
                    }
                    server.mcp_allowed_origins.push_back(text);
                }
            } else if (key == "shutdown_grace_ms") {
                bad = read_ms(v, name, 0, 3600000, server.shutdown_grace);
            }
            if (bad) return bad;
        } catch (const YAML::BadConversion&) {
            return config_error(file, v.Mark(), name, "has the wrong type (see docs/configuration.md)");
        }
    }
    return std::nullopt;
}

std::optional<Error> read_mode(const fs::path& file, const YAML::Node& v, const std::string& name, std::string& out) {
    const std::string text = v.as<std::string>();
    if (text != "process" && text != "in_process")
        return config_error(file, v.Mark(), name, "expected process or in_process, got '" + text + "'");
    out = text;
    return std::nullopt;
}

std::optional<Error> read_isolation(const fs::path& file, const YAML::Node& node, IsolationSettings& iso) {
    if (!node.IsMap()) return config_error(file, node.Mark(), "isolation", "expected a mapping (mode, sandbox, ...)");
    static const std::set<std::string> keys{
        "mode",          "plugins",         "sandbox",          "runner",      "memory_mb",       "cpu_seconds",
        "open_files",    "max_tasks",       "max_result_bytes", "crash_limit", "crash_window_ms", "restart_backoff_ms",
        "kill_grace_ms", "idle_timeout_ms", "disk_budget_mb",   "runner_user"};
    for (const auto& kv : node) {
        const std::string key = kv.first.as<std::string>();
        const YAML::Node& v = kv.second;
        const std::string name = "isolation." + key;
        if (!keys.count(key))
            return config_error(file, kv.first.Mark(), name, "unknown setting; allowed: " + joined(keys));
        std::optional<Error> bad;
        long long ms = 0;
        try {
            if (key == "mode") {
                bad = read_mode(file, v, name, iso.default_mode);
            } else if (key == "plugins") {
                if (!v.IsMap()) return config_error(file, v.Mark(), name, "expected a mapping of plugin name to mode");
                for (const auto& entry : v) {
                    std::string mode;
                    const std::string plugin = entry.first.as<std::string>();
                    if (auto wrong = read_mode(file, entry.second, name + "." + plugin, mode)) return wrong;
                    iso.plugins.emplace_back(plugin, mode);
                }
            } else if (key == "sandbox") {
                const std::string text = v.as<std::string>();
                if (text != "require" && text != "best_effort" && text != "off")
                    return config_error(file, v.Mark(), name,
                                        "expected require, best_effort or off, got '" + text + "'");
                iso.sandbox = text;
            } else if (key == "runner") {
                iso.runner = resolve_against(file.parent_path(), v.as<std::string>());
            } else if (key == "memory_mb") {
                bad = read_bounded(file, v, name, 0, 1LL << 20, iso.memory_mb);
            } else if (key == "cpu_seconds") {
                bad = read_bounded(file, v, name, 0, 1LL << 30, iso.cpu_seconds);
            } else if (key == "open_files") {
                bad = read_bounded(file, v, name, 0, 1LL << 20, iso.open_files);
            } else if (key == "max_tasks") {
                bad = read_bounded(file, v, name, 0, 1LL << 22, iso.max_tasks);
            } else if (key == "disk_budget_mb") {
                bad = read_bounded(file, v, name, 0, 1LL << 24, iso.disk_budget_mb);
            } else if (key == "runner_user") {
                iso.runner_user = v.as<std::string>();
                if (iso.runner_user.empty() || iso.runner_user.size() > 64)
                    return config_error(file, v.Mark(), name, "expected a user name or uid[:gid] (1 to 64 characters)");
            } else if (key == "max_result_bytes") {
                bad = read_bounded(file, v, name, 1024, 1LL << 30, iso.max_result_bytes);
            } else if (key == "crash_limit") {
                bad = read_bounded(file, v, name, 0, 1000000, iso.crash_limit);
            } else {
                bad = read_bounded(file, v, name, 0, 86400000LL, ms);
                const std::chrono::milliseconds value(ms);
                if (key == "crash_window_ms") iso.crash_window = value;
                if (key == "restart_backoff_ms") iso.restart_backoff = value;
                if (key == "kill_grace_ms") iso.kill_grace = value;
                if (key == "idle_timeout_ms") iso.idle_timeout = value;
            }
            if (bad) return bad;
        } catch (const YAML::BadConversion&) {
            return config_error(file, v.Mark(), name, "has the wrong type (see docs/configuration.md)");
        }
    }
    return std::nullopt;
}

std::optional<Error> read_storage(const fs::path& file, const YAML::Node& node, StorageSettings& storage) {
    if (!node.IsMap()) return config_error(file, node.Mark(), "storage", "expected a mapping (backend, url)");
    static const std::set<std::string> keys{"backend", "url", "lease_ttl_ms", "lease_heartbeat_ms",
                                            "sweep_interval_ms"};
    std::optional<YAML::Mark> url_mark;
    std::optional<YAML::Mark> heartbeat_mark;
    for (const auto& kv : node) {
        const std::string key = kv.first.as<std::string>();
        const YAML::Node& v = kv.second;
        const std::string name = "storage." + key;
        if (!keys.count(key))
            return config_error(file, kv.first.Mark(), name, "unknown setting; allowed: " + joined(keys));
        if (!v.IsScalar()) return config_error(file, v.Mark(), name, "expected text");
        if (key.ends_with("_ms")) {
            long long ms = 0;
            std::optional<Error> bad;
            try {
                // A lease shorter than half a second would expire under ordinary database latency.
                bad = read_bounded(file, v, name, key == "lease_ttl_ms" ? 500 : 100, 3600000, ms);
            } catch (const YAML::BadConversion&) {
                return config_error(file, v.Mark(), name, "expected a whole number of milliseconds");
            }
            if (bad) return bad;
            const std::chrono::milliseconds value(ms);
            if (key == "lease_ttl_ms") {
                storage.lease_ttl = value;
            } else if (key == "lease_heartbeat_ms") {
                storage.lease_heartbeat = value;
                heartbeat_mark = v.Mark();
            } else {
                storage.sweep_interval = value;
            }
            continue;
        }
        const std::string text = v.as<std::string>();
        if (key == "backend") {
            if (text != "sqlite" && text != "postgres")
                return config_error(file, v.Mark(), name, "expected sqlite or postgres, got '" + text + "'");
            storage.backend = text;
        } else {
            // libpq reads the string up to a NUL; a control character is a paste mistake, not a setting.
            if (text.empty() || text.size() > 4096 ||
                std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
                return config_error(file, v.Mark(), name,
                                    "expected a PostgreSQL connection string of 1..4096 printable characters, e.g. "
                                    "postgresql://skillhost@db.internal:5432/skillhost");
            storage.url = text;
            url_mark = v.Mark();
        }
    }
    if (storage.backend == "postgres" && storage.url.empty())
        return config_error(file, node.Mark(), "storage.url",
                            "the postgres backend needs a connection string, e.g. url: "
                            "postgresql://skillhost@db.internal:5432/skillhost");
    // Two heartbeats per ttl: one late or failed heartbeat does not cost a live instance its runs.
    if (storage.lease_heartbeat * 2 > storage.lease_ttl)
        return config_error(
            file, heartbeat_mark ? *heartbeat_mark : node.Mark(), "storage.lease_heartbeat_ms",
            "must be at most half of storage.lease_ttl_ms (" + std::to_string(storage.lease_ttl.count()) + "), got " +
                std::to_string(storage.lease_heartbeat.count()) + "; lower the heartbeat or raise the ttl");
    if (storage.backend == "sqlite" && url_mark)
        return config_error(file, *url_mark, "storage.url",
                            "is only read by the postgres backend; the sqlite backend keeps its file at "
                            "<home>/skillhost.db (remove url, or set backend: postgres)");
    return std::nullopt;
}

}  // namespace

bool parse_listen_address(std::string_view text, std::string& host, std::uint16_t& port, std::string& problem) {
    std::string_view h;
    std::string_view p;
    if (!text.empty() && text.front() == '[') {
        const auto close = text.find(']');
        if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
            problem = "expected [IPV6]:PORT, e.g. [::1]:8787, got '" + std::string(text) + "'";
            return false;
        }
        h = text.substr(1, close - 1);
        p = text.substr(close + 2);
    } else {
        const auto colon = text.rfind(':');
        if (colon == std::string_view::npos || text.find(':') != colon) {
            problem = "expected HOST:PORT, e.g. 127.0.0.1:8787, got '" + std::string(text) + "'";
            return false;
        }
        h = text.substr(0, colon);
        p = text.substr(colon + 1);
    }
    if (h.empty()) {
        problem = "the host part of '" + std::string(text) + "' is empty; use 127.0.0.1 (this machine only) or 0.0.0.0";
        return false;
    }
    unsigned value = 0;
    if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string_view::npos ||
        (value = static_cast<unsigned>(std::stoul(std::string(p)))) > 65535) {
        problem = "the port in '" + std::string(text) + "' must be a number from 0 to 65535";
        return false;
    }
    host = h == "localhost" ? std::string("127.0.0.1") : std::string(h);  // listen on an address, not a name
    port = static_cast<std::uint16_t>(value);
    return true;
}

// The settings of the file's mapping into `cfg` (and what is decided only after --home and the
// environment are known); the first problem found, with its place.
static std::optional<Error> read_file_settings(const fs::path& abs, const YAML::Node& root, HostConfig& cfg,
                                               std::optional<fs::path>& home_from_file, bool& include_builtin,
                                               bool& include_home) {
    if (root && !root.IsNull()) {
        if (!root.IsMap()) return config_error(abs, root.Mark(), "(file)", "expected a mapping of settings");
        for (const auto& kv : root) {
            const std::string key = kv.first.as<std::string>();
            const YAML::Node& v = kv.second;
            if (!known_keys().count(key)) {
                return config_error(abs, kv.first.Mark(), key, "unknown setting; allowed: " + joined(known_keys()));
            }
            try {
                if (key == "home") {
                    home_from_file = resolve_against(cfg.etc_dir, v.as<std::string>());
                } else if (key == "plugin_dirs") {
                    if (!v.IsSequence()) return config_error(abs, v.Mark(), key, "expected a list of directories");
                    for (const auto& d : v)
                        cfg.plugin_dirs.push_back(resolve_against(cfg.etc_dir, d.as<std::string>()));
                } else if (key == "default_user") {
                    cfg.default_user = v.as<std::string>();
                } else if (key == "default_workspace") {
                    cfg.default_workspace = resolve_against(cfg.etc_dir, v.as<std::string>());
                } else if (key == "secret_key_file") {
                    cfg.secret_key_file = resolve_against(cfg.etc_dir, v.as<std::string>());
                } else if (key == "packages_dir") {
                    cfg.packages_dir = resolve_against(cfg.etc_dir, v.as<std::string>());
                } else if (key == "reload_debounce_ms") {
                    int ms = v.as<int>();
                    if (ms < 0 || ms > 60000)
                        return config_error(abs, v.Mark(), key,
                                            "expected 0..60000 milliseconds, got " + std::to_string(ms));
                    cfg.reload_debounce = std::chrono::milliseconds(ms);
                } else if (key == "include_builtin_plugins") {
                    include_builtin = v.as<bool>();
                } else if (key == "include_home_plugins") {
                    include_home = v.as<bool>();
                } else if (key == "server") {
                    if (auto bad = read_server(abs, v, cfg.server)) return *bad;
                } else if (key == "isolation") {
                    if (auto bad = read_isolation(abs, v, cfg.isolation)) return *bad;
                } else if (key == "storage") {
                    if (auto bad = read_storage(abs, v, cfg.storage)) return *bad;
                }
            } catch (const YAML::BadConversion&) {
                return config_error(abs, v.Mark(), key, "has the wrong type (see docs/configuration.md)");
            }
        }
    }
    return std::nullopt;
}

fs::path builtin_plugin_dir(const fs::path& exe) {
    std::error_code ec;
    fs::path real = fs::weakly_canonical(exe, ec);
    if (ec) real = exe;
    return (real.parent_path().parent_path() / "lib" / "skillhost" / "plugins").lexically_normal();
}

Result<HostConfig> load_host_config(const ConfigSources& sources) {
    HostConfig cfg;
    std::optional<fs::path> file = sources.config_file;
    if (!file) {
        if (const char* env = std::getenv("SKILLHOST_CONFIG"); env && *env) file = fs::path(env);
    }
    if (!file && !sources.executable.empty()) {
        fs::path beside = builtin_plugin_dir(sources.executable).parent_path().parent_path().parent_path() / "etc" /
                          "skillhost" / "skillhost.yaml";
        std::error_code ec;
        if (fs::exists(beside, ec)) file = beside;
    }

    bool include_builtin = true;
    bool include_home = true;
    std::optional<fs::path> home_from_file;
    if (file) {
        std::error_code ec;
        fs::path abs = fs::absolute(*file, ec);
        if (ec || !fs::exists(abs, ec)) {
            Error e{errors::kConfigNotFound,
                    "configuration file " + file->string() + " does not exist",
                    {},
                    {"pass an existing file with --config, or omit --config to use the defaults"}};
            e.details["file"] = file->string();
            return e;
        }
        cfg.config_file = abs;
        cfg.etc_dir = abs.parent_path();
        YAML::Node root;
        try {
            root = load_guarded_yaml_file(abs);
        } catch (const YAML::Exception& ex) {
            return config_error(abs, ex.mark, "(file)", "not valid YAML: " + ex.msg);
        }
        // Whatever shape the file has (a key that is a list, a value of the wrong kind anywhere),
        // it is refused with a place, never a crash.
        try {
            if (auto bad = read_file_settings(abs, root, cfg, home_from_file, include_builtin, include_home))
                return *bad;
        } catch (const YAML::Exception& ex) {
            return config_error(abs, ex.mark, "(file)", "not a valid configuration: " + ex.msg);
        }
    }

    if (sources.home) {
        cfg.home = fs::absolute(expand_home(sources.home->string())).lexically_normal();
    } else if (const char* env = std::getenv("SKILLHOST_HOME"); env && *env) {
        cfg.home = fs::absolute(expand_home(env)).lexically_normal();
    } else if (home_from_file) {
        cfg.home = *home_from_file;
    } else {
        cfg.home = expand_home("~/.skillhost");
    }
    if (cfg.etc_dir.empty()) cfg.etc_dir = cfg.home / "etc";
    if (include_builtin && !sources.executable.empty()) {
        cfg.plugin_dirs.insert(cfg.plugin_dirs.begin(), builtin_plugin_dir(sources.executable));
        cfg.builtin_plugin_dirs.push_back(cfg.plugin_dirs.front());
    }
    std::vector<fs::path> extra;
    for (const auto& dir : sources.extra_plugin_dirs) {
        std::error_code ec;
        const fs::path abs = fs::absolute(expand_home(dir.string()), ec).lexically_normal();
        if (ec || !fs::is_directory(abs, ec)) {
            Error e{errors::kPluginDirNotFound,
                    "--plugin-dir " + dir.string() + " is not a directory",
                    {},
                    {"pass the directory that holds the plugin's manifest and library, e.g. "
                     "--plugin-dir build/plugins after `cmake --build build`"}};
            e.details["plugin_dir"] = abs.string();
            return e;
        }
        extra.push_back(abs);
    }
    // --plugin-dir goes before the file's directories and the home's, so the build an author is
    // trying wins over an installed copy of the same plugin (the later one is a DUPLICATE_PLUGIN).
    cfg.plugin_dirs.insert(cfg.plugin_dirs.begin() + (include_builtin && !sources.executable.empty() ? 1 : 0),
                           extra.begin(), extra.end());
    // Only when it exists: a missing optional directory is not a failure worth reporting on every command.
    if (std::error_code ec; include_home && fs::is_directory(cfg.home_plugin_dir(), ec)) {
        cfg.plugin_dirs.push_back(cfg.home_plugin_dir());
    }
    // The same directory twice would load every plugin in it twice (and fail on duplicate skill ids).
    std::vector<fs::path> unique_dirs;
    for (auto& dir : cfg.plugin_dirs) {
        if (std::find(unique_dirs.begin(), unique_dirs.end(), dir.lexically_normal()) == unique_dirs.end())
            unique_dirs.push_back(dir.lexically_normal());
    }
    cfg.plugin_dirs = std::move(unique_dirs);
    if (cfg.default_workspace.empty()) cfg.default_workspace = cfg.home / "workspace";
    if (cfg.secret_key_file.empty()) cfg.secret_key_file = cfg.home / "secret.key";
    if (cfg.packages_dir.empty()) cfg.packages_dir = cfg.home / "packages";
    return cfg;
}

}  // namespace skillhost::config
