#include "config/host_config.hpp"

#include <yaml-cpp/yaml.h>

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
    e.code = "CONFIG_INVALID";
    e.message = file.string() + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) +
                ": " + key + ": " + what;
    e.details["file"] = file.string();
    e.details["line"] = mark.line + 1;
    e.details["column"] = mark.column + 1;
    e.details["key"] = key;
    e.suggestions.push_back("see docs/configuration.md for the keys skillhost.yaml accepts");
    return e;
}

const std::set<std::string>& known_keys() {
    static const std::set<std::string> keys{"home", "plugin_dirs", "default_user", "default_workspace",
                                            "reload_debounce_ms", "include_builtin_plugins"};
    return keys;
}

}  // namespace

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
        fs::path beside = builtin_plugin_dir(sources.executable).parent_path().parent_path().parent_path() /
                          "etc" / "skillhost" / "skillhost.yaml";
        std::error_code ec;
        if (fs::exists(beside, ec)) file = beside;
    }

    bool include_builtin = true;
    std::optional<fs::path> home_from_file;
    if (file) {
        std::error_code ec;
        fs::path abs = fs::absolute(*file, ec);
        if (ec || !fs::exists(abs, ec)) {
            Error e{"CONFIG_NOT_FOUND", "configuration file " + file->string() + " does not exist",
                    {}, {"pass an existing file with --config, or omit --config to use the defaults"}};
            e.details["file"] = file->string();
            return e;
        }
        cfg.config_file = abs;
        cfg.etc_dir = abs.parent_path();
        YAML::Node root;
        try {
            root = YAML::LoadFile(abs.string());
        } catch (const YAML::Exception& ex) {
            return config_error(abs, ex.mark, "(file)", "not valid YAML: " + ex.msg);
        }
        if (root && !root.IsNull()) {
            if (!root.IsMap()) return config_error(abs, root.Mark(), "(file)", "expected a mapping of settings");
            for (const auto& kv : root) {
                const std::string key = kv.first.as<std::string>();
                const YAML::Node& v = kv.second;
                if (!known_keys().count(key)) {
                    std::string allowed;
                    for (const auto& k : known_keys()) allowed += (allowed.empty() ? "" : ", ") + k;
                    return config_error(abs, kv.first.Mark(), key, "unknown setting; allowed: " + allowed);
                }
                try {
                    if (key == "home") {
                        home_from_file = resolve_against(cfg.etc_dir, v.as<std::string>());
                    } else if (key == "plugin_dirs") {
                        if (!v.IsSequence()) return config_error(abs, v.Mark(), key, "expected a list of directories");
                        for (const auto& d : v) cfg.plugin_dirs.push_back(resolve_against(cfg.etc_dir, d.as<std::string>()));
                    } else if (key == "default_user") {
                        cfg.default_user = v.as<std::string>();
                    } else if (key == "default_workspace") {
                        cfg.default_workspace = resolve_against(cfg.etc_dir, v.as<std::string>());
                    } else if (key == "reload_debounce_ms") {
                        int ms = v.as<int>();
                        if (ms < 0 || ms > 60000)
                            return config_error(abs, v.Mark(), key, "expected 0..60000 milliseconds, got " + std::to_string(ms));
                        cfg.reload_debounce = std::chrono::milliseconds(ms);
                    } else if (key == "include_builtin_plugins") {
                        include_builtin = v.as<bool>();
                    }
                } catch (const YAML::BadConversion&) {
                    return config_error(abs, v.Mark(), key, "has the wrong type (see docs/configuration.md)");
                }
            }
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
    }
    if (cfg.default_workspace.empty()) cfg.default_workspace = cfg.home / "workspace";
    return cfg;
}

}  // namespace skillhost::config
