// etc/models.yaml: named models, the role → model map, per-mode overrides and single-model mode.
#pragma once

#include "base/error.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace skillhost::llm {

struct ModelOptions {
    std::optional<double> temperature;
    std::optional<int> context_size;  // Ollama num_ctx
    std::optional<int> max_tokens;    // Ollama num_predict, OpenAI max_tokens
};

struct ModelSpec {
    std::string name;     // the key under `models:`
    std::string backend;  // ollama | openai | scripted | builtin
    std::string model;    // the server's model name; empty for builtin/scripted
    std::string base_url;
    std::string api_key_env;       // name of the environment variable holding the key (openai)
    std::filesystem::path script;  // scripted: resolved against the config file's directory
    ModelOptions options;
    std::chrono::milliseconds connect_timeout{5000};
    std::chrono::milliseconds read_timeout{120000};
    // One model call from first byte sent to last byte read, retries included (timeouts.total_ms).
    std::chrono::milliseconds total_timeout{300000};
    std::chrono::milliseconds backoff_initial{250};
    std::chrono::milliseconds retry_after_cap{10000};
    int retries = 2;
};

// The built-in model every configuration has, even when models.yaml does not define it.
inline constexpr std::string_view kBuiltinModelName = "builtin";

struct ModelsConfig {
    std::map<std::string, ModelSpec> models;
    std::map<std::string, std::string> roles;                              // role -> model name
    std::map<std::string, std::map<std::string, std::string>> mode_roles;  // mode -> role -> model
    std::optional<std::string> single_model;                               // every role goes to this model
    std::string source;                                                    // file the config came from, or "(defaults)"
};

// Every role served by the builtin model: what a fresh install uses when models.yaml is absent.
ModelsConfig default_models_config();

// Parses models.yaml text. `source_name` is used in error messages (file:line:column) and
// `base_dir` resolves relative script paths. Errors: MODELS_CONFIG_INVALID with details
// {file, line, column, field}.
Result<ModelsConfig> parse_models_config(std::string_view yaml_text, std::string_view source_name,
                                         const std::filesystem::path& base_dir);

// Loads the file, or the defaults when it does not exist.
Result<ModelsConfig> load_models_config(const std::filesystem::path& path);

}  // namespace skillhost::llm
