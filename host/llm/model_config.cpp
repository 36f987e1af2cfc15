#include "llm/model_config.hpp"
#include "llm/error_codes.hpp"

#include "base/guarded_yaml.hpp"
#include "llm/chat_types.hpp"
#include "net/url.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <fstream>
#include <set>
#include <sstream>

namespace skillhost::llm {
namespace {

constexpr std::array<std::string_view, 4> kBackends = {"ollama", "openai", "scripted", "builtin"};

// Collects the position and field of a problem, so every message reads file:line:column.
class ConfigReader {
public:
    explicit ConfigReader(std::string_view source) : source_(source) {}

    Error error(const YAML::Node& node, std::string_view field, std::string_view problem) const {
        const YAML::Mark mark = node.Mark();
        const int line = mark.line >= 0 ? mark.line + 1 : 0;
        const int column = mark.column >= 0 ? mark.column + 1 : 0;
        Error error{errors::kModelsConfigInvalid,
                    source_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + std::string(field) +
                        ": " + std::string(problem),
                    {},
                    {}};
        error.details["file"] = source_;
        error.details["line"] = line;
        error.details["column"] = column;
        error.details["field"] = std::string(field);
        error.suggestions.push_back("see docs/models.md for the format of models.yaml");
        return error;
    }

    // Rejects keys outside `allowed`; a typo must not silently drop a setting.
    Status check_keys(const YAML::Node& map, std::string_view where,
                      std::initializer_list<std::string_view> allowed) const {
        for (const auto& entry : map) {
            const std::string key = entry.first.as<std::string>();
            bool known = false;
            for (auto name : allowed) known = known || key == name;
            if (!known) {
                std::string list;
                for (auto name : allowed) list += (list.empty() ? "" : ", ") + std::string(name);
                return error(entry.first, std::string(where) + "." + key,
                             "unknown key '" + key + "' (expected one of: " + list + ")");
            }
        }
        return {};
    }

    Result<std::string> string(const YAML::Node& node, std::string_view field) const {
        if (!node.IsScalar()) return error(node, field, "expected a string");
        return node.as<std::string>();
    }

    Result<std::int64_t> integer(const YAML::Node& node, std::string_view field, std::int64_t min,
                                 std::int64_t max) const {
        std::int64_t value = 0;
        if (!node.IsScalar() || !YAML::convert<std::int64_t>::decode(node, value)) {
            return error(node, field, "expected an integer");
        }
        if (value < min || value > max) {
            return error(node, field, "expected a value from " + std::to_string(min) + " to " + std::to_string(max));
        }
        return value;
    }

    Result<double> number(const YAML::Node& node, std::string_view field, double min, double max) const {
        double value = 0;
        if (!node.IsScalar() || !YAML::convert<double>::decode(node, value)) {
            return error(node, field, "expected a number");
        }
        if (value < min || value > max) {
            std::ostringstream range;
            range << "expected a value from " << min << " to " << max;
            return error(node, field, range.str());
        }
        return value;
    }

    const std::string& source() const { return source_; }

private:
    std::string source_;
};

#define SKILLHOST_TRY(var, expr)                    \
    auto var##_result = (expr);                     \
    if (!var##_result) return var##_result.error(); \
    auto var = std::move(var##_result.value())

#define SKILLHOST_CHECK(expr)                                        \
    do {                                                             \
        if (auto status_ = (expr); !status_) return status_.error(); \
    } while (false)

Result<ModelSpec> parse_model(const ConfigReader& reader, const std::string& name, const YAML::Node& node,
                              const std::filesystem::path& base_dir) {
    const std::string where = "models." + name;
    if (!node.IsMap()) return reader.error(node, where, "expected a mapping with at least `backend`");
    SKILLHOST_CHECK(reader.check_keys(
        node, where, {"backend", "model", "base_url", "api_key_env", "script", "options", "timeouts", "retries"}));
    ModelSpec spec;
    spec.name = name;
    if (!node["backend"])
        return reader.error(node, where + ".backend", "missing (ollama, openai, scripted or builtin)");
    SKILLHOST_TRY(backend, reader.string(node["backend"], where + ".backend"));
    if (std::find(kBackends.begin(), kBackends.end(), backend) == kBackends.end()) {
        return reader.error(node["backend"], where + ".backend",
                            "unknown backend '" + backend + "' (expected ollama, openai, scripted or builtin)");
    }
    spec.backend = backend;
    if (node["model"]) {
        SKILLHOST_TRY(model, reader.string(node["model"], where + ".model"));
        spec.model = model;
    }
    if (node["base_url"]) {
        SKILLHOST_TRY(url, reader.string(node["base_url"], where + ".base_url"));
        if (auto parsed = http::parse_url(url); !parsed) {
            return reader.error(node["base_url"], where + ".base_url", parsed.error().message);
        }
        spec.base_url = url;
    }
    if (node["api_key_env"]) {
        SKILLHOST_TRY(env, reader.string(node["api_key_env"], where + ".api_key_env"));
        spec.api_key_env = env;
    }
    if (node["script"]) {
        SKILLHOST_TRY(script, reader.string(node["script"], where + ".script"));
        std::filesystem::path path(script);
        spec.script = path.is_absolute() ? path : base_dir / path;
    }
    if (const auto options = node["options"]) {
        if (!options.IsMap()) return reader.error(options, where + ".options", "expected a mapping");
        SKILLHOST_CHECK(reader.check_keys(options, where + ".options", {"temperature", "context_size", "max_tokens"}));
        if (options["temperature"]) {
            SKILLHOST_TRY(t, reader.number(options["temperature"], where + ".options.temperature", 0.0, 2.0));
            spec.options.temperature = t;
        }
        if (options["context_size"]) {
            SKILLHOST_TRY(c, reader.integer(options["context_size"], where + ".options.context_size", 256, 10'000'000));
            spec.options.context_size = static_cast<int>(c);
        }
        if (options["max_tokens"]) {
            SKILLHOST_TRY(m, reader.integer(options["max_tokens"], where + ".options.max_tokens", 1, 10'000'000));
            spec.options.max_tokens = static_cast<int>(m);
        }
    }
    if (const auto timeouts = node["timeouts"]) {
        if (!timeouts.IsMap()) return reader.error(timeouts, where + ".timeouts", "expected a mapping");
        SKILLHOST_CHECK(reader.check_keys(timeouts, where + ".timeouts",
                                          {"connect_ms", "read_ms", "total_ms", "backoff_ms", "retry_after_max_ms"}));
        const auto ms = [&](const char* key, std::chrono::milliseconds& out) -> Status {
            if (!timeouts[key]) return {};
            auto value = reader.integer(timeouts[key], where + ".timeouts." + key, 1, 3'600'000);
            if (!value) return value.error();
            out = std::chrono::milliseconds(*value);
            return {};
        };
        SKILLHOST_CHECK(ms("connect_ms", spec.connect_timeout));
        SKILLHOST_CHECK(ms("read_ms", spec.read_timeout));
        SKILLHOST_CHECK(ms("total_ms", spec.total_timeout));
        SKILLHOST_CHECK(ms("backoff_ms", spec.backoff_initial));
        SKILLHOST_CHECK(ms("retry_after_max_ms", spec.retry_after_cap));
    }
    if (node["retries"]) {
        SKILLHOST_TRY(retries, reader.integer(node["retries"], where + ".retries", 0, 10));
        spec.retries = static_cast<int>(retries);
    }

    // What each backend cannot work without.
    if (spec.backend == "ollama" || spec.backend == "openai") {
        if (spec.model.empty()) {
            return reader.error(node, where + ".model",
                                "missing: the " + spec.backend + " backend needs the server's model name");
        }
        if (spec.base_url.empty()) {
            spec.base_url = spec.backend == "ollama" ? "http://127.0.0.1:11434" : "http://127.0.0.1:8080";
        }
    }
    if (spec.backend == "scripted" && spec.script.empty()) {
        return reader.error(node, where + ".script",
                            "missing: the scripted backend needs a script file (YAML or JSONL)");
    }
    return spec;
}

Result<std::map<std::string, std::string>> parse_roles(const ConfigReader& reader, const YAML::Node& node,
                                                       const std::string& where) {
    if (!node.IsMap()) return reader.error(node, where, "expected a mapping of role: model name");
    std::map<std::string, std::string> roles;
    for (const auto& entry : node) {
        const std::string role = entry.first.as<std::string>();
        if (!is_known_role(role)) {
            return reader.error(entry.first, where + "." + role,
                                "unknown role '" + role +
                                    "' (expected orchestrator, persona, classifier, critic, summarizer or fallback)");
        }
        SKILLHOST_TRY(model, reader.string(entry.second, where + "." + role));
        roles[role] = model;
    }
    return roles;
}

// Every model a role or mode names must exist; `builtin` always does.
Status check_references(const ConfigReader& reader, const YAML::Node& roles_node,
                        const std::map<std::string, std::string>& roles, const ModelsConfig& config,
                        const std::string& where) {
    for (const auto& [role, model] : roles) {
        if (!config.models.contains(model)) {
            std::string known;
            for (const auto& [name, spec] : config.models) known += (known.empty() ? "" : ", ") + name;
            return reader.error(roles_node[role], where + "." + role,
                                "unknown model '" + model + "' (models defined: " + known + ")");
        }
    }
    return {};
}

}  // namespace

ModelsConfig default_models_config() {
    ModelsConfig config;
    ModelSpec builtin;
    builtin.name = std::string(kBuiltinModelName);
    builtin.backend = "builtin";
    config.models.emplace(builtin.name, builtin);
    for (auto role : kRoles) config.roles.emplace(std::string(role), builtin.name);
    config.source = "(defaults)";
    return config;
}

Result<ModelsConfig> parse_models_config(std::string_view yaml_text, std::string_view source_name,
                                         const std::filesystem::path& base_dir) {
    const ConfigReader reader(source_name);
    YAML::Node root;
    try {
        root = load_guarded_yaml(yaml_text);
    } catch (const YAML::Exception& e) {
        Error error{errors::kModelsConfigInvalid,
                    std::string(source_name) + ":" + std::to_string(e.mark.line + 1) + ":" +
                        std::to_string(e.mark.column + 1) + ": not valid YAML: " + e.msg,
                    {},
                    {"fix the YAML syntax at that position"}};
        error.details["file"] = std::string(source_name);
        error.details["line"] = e.mark.line + 1;
        error.details["column"] = e.mark.column + 1;
        return error;
    }

    ModelsConfig config;
    config.source = std::string(source_name);
    ModelSpec builtin;
    builtin.name = std::string(kBuiltinModelName);
    builtin.backend = "builtin";
    config.models.emplace(builtin.name, builtin);
    if (root.IsNull()) return config;
    if (!root.IsMap()) return reader.error(root, "(top level)", "expected a mapping with models and roles");

    try {
        SKILLHOST_CHECK(reader.check_keys(root, "(top level)", {"models", "roles", "modes", "single_model"}));
        if (const auto models = root["models"]) {
            if (!models.IsMap()) return reader.error(models, "models", "expected a mapping of name: model");
            for (const auto& entry : models) {
                const std::string name = entry.first.as<std::string>();
                SKILLHOST_TRY(spec, parse_model(reader, name, entry.second, base_dir));
                config.models[name] = std::move(spec);
            }
        }
        if (const auto roles = root["roles"]) {
            SKILLHOST_TRY(parsed, parse_roles(reader, roles, "roles"));
            SKILLHOST_CHECK(check_references(reader, roles, parsed, config, "roles"));
            config.roles = std::move(parsed);
        }
        if (const auto modes = root["modes"]) {
            if (!modes.IsMap()) return reader.error(modes, "modes", "expected a mapping of mode: {roles: ...}");
            for (const auto& entry : modes) {
                const std::string mode = entry.first.as<std::string>();
                const std::string where = "modes." + mode;
                if (!is_known_mode(mode)) {
                    return reader.error(entry.first, where,
                                        "unknown cognitive mode '" + mode + "' (expected dual, agent or emulation)");
                }
                if (!entry.second.IsMap()) return reader.error(entry.second, where, "expected a mapping with `roles`");
                SKILLHOST_CHECK(reader.check_keys(entry.second, where, {"roles"}));
                if (const auto roles = entry.second["roles"]) {
                    SKILLHOST_TRY(parsed, parse_roles(reader, roles, where + ".roles"));
                    SKILLHOST_CHECK(check_references(reader, roles, parsed, config, where + ".roles"));
                    config.mode_roles[mode] = std::move(parsed);
                }
            }
        }
        if (const auto single = root["single_model"]) {
            if (!single.IsScalar()) return reader.error(single, "single_model", "expected true, false or a model name");
            const std::string value = single.as<std::string>();
            if (value == "false" || value == "no" || value == "off") {
                // explicit off
            } else if (value == "true" || value == "yes" || value == "on") {
                if (config.roles.contains("orchestrator")) {
                    config.single_model = config.roles["orchestrator"];
                } else if (config.models.size() == 2) {
                    for (const auto& [name, spec] : config.models) {
                        if (name != kBuiltinModelName) config.single_model = name;
                    }
                } else {
                    return reader.error(single, "single_model",
                                        "`true` needs roles.orchestrator (or exactly one model) to know which "
                                        "model to use — or name the model: single_model: NAME");
                }
            } else if (config.models.contains(value)) {
                config.single_model = value;
            } else {
                return reader.error(single, "single_model", "unknown model '" + value + "'");
            }
        }
    } catch (const YAML::Exception& e) {
        Error error{errors::kModelsConfigInvalid,
                    std::string(source_name) + ":" + std::to_string(e.mark.line + 1) + ":" +
                        std::to_string(e.mark.column + 1) + ": " + e.msg,
                    {},
                    {"see docs/models.md for the format of models.yaml"}};
        error.details["file"] = std::string(source_name);
        return error;
    }
    return config;
}

Result<ModelsConfig> load_models_config(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return default_models_config();
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        Error error{
            errors::kModelsConfigUnreadable, "cannot read " + path.string() + " — check its permissions", {}, {}};
        error.details["file"] = path.string();
        return error;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse_models_config(text.str(), path.string(), path.parent_path());
}

}  // namespace skillhost::llm
