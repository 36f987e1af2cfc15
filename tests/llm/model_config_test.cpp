#include "llm/model_config.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace skillhost::llm {
namespace {

Result<ModelsConfig> parse(const std::string& yaml) {
    return parse_models_config(yaml, "models.yaml", "/etc/skillhost");
}

void expect_error_at(const std::string& yaml, int line, const std::string& fragment) {
    auto config = parse(yaml);
    ASSERT_FALSE(config.ok()) << yaml;
    EXPECT_EQ(config.error().code, "MODELS_CONFIG_INVALID");
    EXPECT_EQ(config.error().details.at("line").as_int64(), line) << config.error().message;
    EXPECT_TRUE(config.error().message.starts_with("models.yaml:" + std::to_string(line) + ":"))
        << config.error().message;
    EXPECT_NE(config.error().message.find(fragment), std::string::npos) << config.error().message;
}

TEST(ModelsConfig, ParsesModelsRolesModesAndOptions) {
    auto config = parse(R"(
models:
  local:
    backend: ollama
    model: qwen2.5:7b
    base_url: http://127.0.0.1:11434
    options: {temperature: 0.2, context_size: 8192, max_tokens: 1024}
    timeouts: {connect_ms: 2000, read_ms: 90000}
    retries: 3
  cloud:
    backend: openai
    model: gpt-4o-mini
    base_url: https://api.openai.com/v1
    api_key_env: OPENAI_API_KEY
  demo:
    backend: scripted
    script: scripts/demo.yaml
roles:
  orchestrator: local
  persona: cloud
  fallback: builtin
modes:
  emulation:
    roles: {persona: local}
)");
    ASSERT_TRUE(config.ok()) << config.error().message;
    const ModelSpec& local = config->models.at("local");
    EXPECT_EQ(local.backend, "ollama");
    EXPECT_EQ(local.model, "qwen2.5:7b");
    EXPECT_DOUBLE_EQ(*local.options.temperature, 0.2);
    EXPECT_EQ(*local.options.context_size, 8192);
    EXPECT_EQ(*local.options.max_tokens, 1024);
    EXPECT_EQ(local.connect_timeout.count(), 2000);
    EXPECT_EQ(local.read_timeout.count(), 90000);
    EXPECT_EQ(local.retries, 3);
    EXPECT_EQ(config->models.at("cloud").api_key_env, "OPENAI_API_KEY");
    EXPECT_EQ(config->models.at("demo").script, std::filesystem::path("/etc/skillhost/scripts/demo.yaml"));
    EXPECT_TRUE(config->models.contains("builtin"));  // always available
    EXPECT_EQ(config->roles.at("persona"), "cloud");
    EXPECT_EQ(config->mode_roles.at("emulation").at("persona"), "local");
    EXPECT_FALSE(config->single_model.has_value());
}

TEST(ModelsConfig, DefaultsSendEveryRoleToTheBuiltinModel) {
    auto config = load_models_config("/nonexistent/skillhost/models.yaml");
    ASSERT_TRUE(config.ok());
    EXPECT_EQ(config->roles.size(), 6u);
    for (const auto& [role, model] : config->roles) EXPECT_EQ(model, "builtin") << role;
}

TEST(ModelsConfig, RemoteBackendsNeedAModelAndGetADefaultUrl) {
    auto config = parse("models:\n  local:\n    backend: ollama\n    model: llama3.2\n");
    ASSERT_TRUE(config.ok());
    EXPECT_EQ(config->models.at("local").base_url, "http://127.0.0.1:11434");
    expect_error_at("models:\n  local:\n    backend: ollama\n", 3, "needs the server's model name");
}

TEST(ModelsConfig, SingleModelTrueUsesTheOrchestratorsModel) {
    auto config = parse(R"(
models:
  big: {backend: ollama, model: qwen2.5:14b}
  small: {backend: ollama, model: qwen2.5:3b}
roles: {orchestrator: big, persona: small}
single_model: true
)");
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->single_model, "big");
    auto named = parse("models:\n  big: {backend: ollama, model: m}\nsingle_model: big\n");
    ASSERT_TRUE(named.ok());
    EXPECT_EQ(named->single_model, "big");
}

TEST(ModelsConfig, ErrorsPointAtTheLineAndSayWhatIsExpected) {
    expect_error_at("models:\n  local:\n    backend: ollama\n    model: m\n    temprature: 0.2\n", 5,
                    "unknown key 'temprature'");
    expect_error_at("models:\n  local:\n    backend: llamafile\n", 3, "unknown backend 'llamafile'");
    expect_error_at("models:\n  local: {backend: ollama, model: m}\nroles:\n  orchestrator: lcoal\n", 4,
                    "unknown model 'lcoal'");
    expect_error_at("models:\n  local: {backend: ollama, model: m}\nroles:\n  planner: local\n", 4,
                    "unknown role 'planner'");
    expect_error_at("models:\n  local:\n    backend: ollama\n    model: m\n    base_url: localhost:11434\n", 5,
                    "not a usable URL");
    expect_error_at("models:\n  local:\n    backend: ollama\n    model: m\n    options: {temperature: hot}\n", 5,
                    "expected a number");
    expect_error_at("models:\n  local:\n    backend: ollama\n    model: m\n    timeouts: {read_ms: -5}\n", 5,
                    "expected a value from 1");
    expect_error_at("modes:\n  dreaming:\n    roles: {persona: builtin}\n", 2, "unknown cognitive mode 'dreaming'");
    expect_error_at("models:\n  s:\n    backend: scripted\n", 3, "needs a script file");
    expect_error_at("single_model: nothing\n", 1, "unknown model 'nothing'");
    expect_error_at("models:\n  a: {backend: ollama, model: m\n", 3, "not valid YAML");
    // yaml-cpp 0.7 would allocate until the process dies on this line.
    expect_error_at(",\n", 1, "not valid YAML");
}

}  // namespace
}  // namespace skillhost::llm

namespace skillhost::llm {
namespace {

TEST(ModelsConfig, TheShippedFileIsValidAndUsesTheBuiltinModel) {
    const auto path = std::filesystem::path(SKILLHOST_TEST_FIXTURES_SOURCE_DIR) / ".." / ".." / "etc" / "models.yaml";
    ASSERT_TRUE(std::filesystem::exists(path));
    auto config = load_models_config(path);
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->roles.size(), 6u);
    for (const auto& [role, model] : config->roles) EXPECT_EQ(config->models.at(model).backend, "builtin") << role;
}

}  // namespace
}  // namespace skillhost::llm
