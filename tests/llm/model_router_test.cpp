#include "llm/model_router.hpp"
#include "llm/role_check.hpp"
#include "llm/scripted_backend.hpp"
#include "support/loopback_server.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace skillhost::llm {
namespace {

namespace json = boost::json;
using testing::Connection;
using testing::LoopbackServer;
using testing::RecordedRequest;

ModelsConfig config_from(const std::string& yaml) {
    auto config = parse_models_config(yaml, "models.yaml", ".");
    EXPECT_TRUE(config.ok()) << config.error().message;
    return std::move(*config);
}

ChatRequest request_for(const std::string& role, const std::string& mode = "") {
    ChatRequest request;
    request.role = role;
    request.cognitive_mode = mode;
    request.messages = {{"user", "Hi there"}};
    return request;
}

std::shared_ptr<ScriptedBackend> script(std::vector<ScriptEntry> entries) {
    auto backend = ScriptedBackend::create(std::move(entries));
    EXPECT_TRUE(backend.ok());
    return *backend;
}

constexpr const char* kTwoModels = R"(
models:
  planner: {backend: scripted, script: unused.yaml}
  talker: {backend: scripted, script: unused.yaml}
roles:
  orchestrator: planner
  persona: talker
  fallback: talker
modes:
  emulation:
    roles: {persona: planner}
)";

TEST(ModelRouter, ResolvesByRoleModeAndFallback) {
    ModelRouter router(config_from(kTwoModels));
    EXPECT_EQ(router.resolve("orchestrator")->model_name, "planner");
    EXPECT_EQ(router.resolve("persona")->model_name, "talker");
    EXPECT_EQ(router.resolve("persona")->source, "role");
    EXPECT_EQ(router.resolve("persona", "emulation")->model_name, "planner");
    EXPECT_EQ(router.resolve("persona", "emulation")->source, "mode");
    EXPECT_EQ(router.resolve("critic")->model_name, "talker");
    EXPECT_EQ(router.resolve("critic")->source, "fallback");
    auto unknown = router.resolve("poet");
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().code, "LLM_NO_MODEL");
}

TEST(ModelRouter, ARoleWithoutModelOrFallbackIsAClearError) {
    ModelRouter router(config_from("models:\n  a: {backend: ollama, model: m}\nroles: {orchestrator: a}\n"));
    auto missing = router.resolve("critic");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, "LLM_NO_MODEL");
    EXPECT_NE(missing.error().message.find("roles: {critic: MODEL}"), std::string::npos) << missing.error().message;
    const auto all = router.describe();
    ASSERT_EQ(all.size(), 6u);
    EXPECT_EQ(all[0].role, "orchestrator");
    EXPECT_EQ(all[0].model_name, "a");
    EXPECT_EQ(all[3].role, "critic");
    EXPECT_TRUE(all[3].model_name.empty());
}

TEST(ModelRouter, SingleModelSendsEveryRoleToOneModel) {
    ModelRouter router(config_from(std::string(kTwoModels) + "single_model: talker\n"));
    for (const auto& resolution : router.describe("emulation")) {
        EXPECT_EQ(resolution.model_name, "talker") << resolution.role;
        EXPECT_EQ(resolution.source, "single_model");
    }
}

TEST(ModelRouter, RoutesCallsAndReportsThemToTheObserver) {
    auto observer = std::make_shared<CollectingLlmCallObserver>();
    ModelRouter router(config_from(kTwoModels), observer);
    ASSERT_TRUE(router
                    .set_backend("planner", script({{std::nullopt, std::nullopt, R"({"thought":"ok"})", 0},
                                                    {std::nullopt, std::nullopt, "not json", 0}}))
                    .ok());
    ASSERT_TRUE(router.set_backend("talker", script({{std::nullopt, std::nullopt, "Hello!", 0}})).ok());

    ChatRequest planning = request_for("orchestrator");
    planning.json_schema = json::object{{"type", "object"}};
    auto planned = router.chat(planning);
    ASSERT_TRUE(planned.ok());
    EXPECT_EQ(planned->content, R"({"thought":"ok"})");
    EXPECT_EQ(router.chat(request_for("persona"))->content, "Hello!");
    auto broken = router.chat(planning);  // the script's second answer is not JSON
    ASSERT_TRUE(broken.ok());
    auto exhausted = router.chat(request_for("persona"));
    ASSERT_FALSE(exhausted.ok());

    const auto records = observer->records();
    ASSERT_EQ(records.size(), 4u);
    EXPECT_EQ(records[0].role, "orchestrator");
    EXPECT_EQ(records[0].model_name, "planner");
    EXPECT_EQ(records[0].backend, "scripted");
    EXPECT_TRUE(records[0].structured_output_requested);
    EXPECT_FALSE(records[0].structured_output_parse_failed);
    EXPECT_TRUE(records[0].tokens_estimated);
    EXPECT_GT(records[0].completion_tokens, 0);
    EXPECT_EQ(records[1].model_name, "talker");
    EXPECT_FALSE(records[1].structured_output_requested);
    EXPECT_TRUE(records[2].structured_output_parse_failed);
    EXPECT_FALSE(records[3].ok);
    EXPECT_EQ(records[3].error_code, "LLM_SCRIPT_EXHAUSTED");
}

TEST(ModelRouter, AModelOfAKindNobodyGaveAFactoryForIsUnavailable) {
    // The model layer serves ollama, openai and scripted itself; the default models are `builtin`,
    // which only the host's assembly (app/) provides.
    ModelRouter router(default_models_config());
    auto response = router.chat(request_for("persona"));
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_UNAVAILABLE");
    EXPECT_EQ(response.error().details.at("backend").as_string(), "builtin");
    EXPECT_TRUE(router.answer_attributions().empty());
}

TEST(ModelRouter, AFactoryServesItsKindAndTheBackendsTraitsAreAskedThroughTheRouter) {
    struct Declaring final : ChatBackend {
        Result<ChatResponse> chat(const ChatRequest&, const std::atomic<bool>*, const StreamDeltaHandler&) override {
            ChatResponse response;
            response.content = "made by the factory\n(signed)";
            response.backend = "builtin";
            return response;
        }
        std::string_view kind() const override { return "builtin"; }
        ChatBackendTraits traits() const override { return {.reads_context = true, .answer_attribution = "(signed)"}; }
    };
    int made = 0;
    ChatBackendFactories factories;
    factories.emplace("builtin", [&made](const ModelSpec& spec) -> Result<std::shared_ptr<ChatBackend>> {
        ++made;
        EXPECT_EQ(spec.backend, "builtin");
        return std::shared_ptr<ChatBackend>(std::make_shared<Declaring>());
    });
    ModelRouter router(default_models_config(), nullptr, std::move(factories));
    auto traits = router.traits("orchestrator");
    ASSERT_TRUE(traits.ok()) << traits.error().message;
    EXPECT_TRUE(traits->reads_context);
    auto response = router.chat(request_for("persona"));
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->content, "made by the factory\n(signed)");
    EXPECT_EQ(made, 1) << "one model, made once and reused";
    EXPECT_EQ(router.answer_attributions(), std::vector<std::string>{"(signed)"});

    ModelRouter scripted(
        config_from("models:\n  s: {backend: scripted, script: /nonexistent/demo.yaml}\nroles: {persona: s}\n"));
    auto unmade = scripted.traits("persona");
    ASSERT_TRUE(unmade.ok()) << "a backend that cannot be made declares nothing";
    EXPECT_FALSE(unmade->reads_context);
    EXPECT_FALSE(scripted.traits("critic").ok()) << "no model for the role";
}

TEST(ModelRouter, AScriptedModelLoadsItsScriptFromTheConfig) {
    auto router = ModelRouter(
        config_from("models:\n  s: {backend: scripted, script: /nonexistent/demo.yaml}\nroles: {persona: s}\n"));
    auto response = router.chat(request_for("persona"));
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_SCRIPT_NOT_FOUND");
    EXPECT_EQ(response.error().details.at("model_name").as_string(), "s");
}

TEST(ModelRouter, ReachesAnOllamaServerNamedInTheConfig) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.respond(
            200,
            R"({"model":"llama3.2","message":{"role":"assistant","content":"{\"ok\":true}"},"done":true,"prompt_eval_count":20,"eval_count":4})");
    });
    auto observer = std::make_shared<CollectingLlmCallObserver>();
    ModelRouter router(config_from("models:\n  local:\n    backend: ollama\n    model: llama3.2\n    base_url: " +
                                   server.url() + "\nroles: {fallback: local}\n"),
                       observer);
    const RoleTestResult result = test_role(router, "critic");
    EXPECT_TRUE(result.ok) << (result.error ? result.error->message : "");
    EXPECT_TRUE(result.structured_output_ok);
    EXPECT_EQ(result.model_name, "local");
    EXPECT_EQ(result.backend, "ollama");
    EXPECT_EQ(result.model, "llama3.2");
    const auto body = server.requests().at(0).json();
    EXPECT_EQ(body.at("format").at("required").as_array().at(0).as_string(), "ok");
    ASSERT_EQ(observer->records().size(), 1u);
    EXPECT_EQ(observer->records()[0].prompt_tokens, 20);
    EXPECT_FALSE(observer->records()[0].tokens_estimated);
}

TEST(RoleTest, ReportsAnUnreachableModelWithoutThrowing) {
    const std::string url = "http://127.0.0.1:" + std::to_string(testing::closed_port());
    ModelRouter router(
        config_from("models:\n  local:\n    backend: ollama\n    model: m\n    retries: 0\n    base_url: " + url +
                    "\nroles: {orchestrator: local}\n"));
    const RoleTestResult result = test_role(router, "orchestrator");
    EXPECT_FALSE(result.ok);
    ASSERT_TRUE(result.error.has_value());
    EXPECT_EQ(result.error->code, "LLM_UNREACHABLE");
    EXPECT_NE(result.error->message.find("ollama serve"), std::string::npos);
}

}  // namespace
}  // namespace skillhost::llm

namespace skillhost::llm {
namespace {

TEST(ModelRouter, LoadsModelsYamlAndReportsItsErrorsWithThePath) {
    const auto dir = std::filesystem::temp_directory_path() / ("skillhost-router-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "script.yaml") << "- response: scripted hello\n";
    std::ofstream(dir / "models.yaml")
        << "models:\n  demo:\n    backend: scripted\n    script: script.yaml\nroles:\n  persona: demo\n";
    std::ofstream(dir / "broken.yaml") << "models:\n  demo:\n    backend: scripted\n    scrpt: script.yaml\n";

    auto router = ModelRouter::load(dir / "models.yaml");
    ASSERT_TRUE(router.ok()) << router.error().message;
    std::string streamed;
    auto response = (*router)->chat(request_for("persona"), nullptr, [&](std::string_view d) { streamed += d; });
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->content, "scripted hello");
    EXPECT_EQ(streamed, "scripted hello");

    auto broken = ModelRouter::load(dir / "broken.yaml");
    ASSERT_FALSE(broken.ok());
    EXPECT_TRUE(broken.error().message.starts_with((dir / "broken.yaml").string() + ":4:5:")) << broken.error().message;

    auto defaults = ModelRouter::load(dir / "absent.yaml");
    ASSERT_TRUE(defaults.ok());
    EXPECT_EQ((*defaults)->resolve("persona")->model_name, "builtin");
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace skillhost::llm
