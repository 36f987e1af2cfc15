// The completion service plugins reach through the ABI ("skillhost.llm/1" and the 1.0 member),
// served by the model router.
#include "app/router_completion_service.hpp"
#include "llm/model_router.hpp"
#include "llm/scripted_backend.hpp"
#include "plugin/plugin_loader.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include <memory>
#include <string>
#include <vector>

namespace skillhost::app {
namespace {

namespace json = boost::json;
using llm::ModelRouter;
using llm::ScriptedBackend;
using llm::ScriptEntry;

llm::ModelsConfig config_from(const std::string& yaml) {
    auto config = llm::parse_models_config(yaml, "models.yaml", ".");
    EXPECT_TRUE(config.ok()) << config.error().message;
    return std::move(*config);
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

TEST(RouterCompletionService, ServesThePluginCompletionByRole) {
    auto router = std::make_shared<ModelRouter>(config_from(kTwoModels));
    ASSERT_TRUE(router->set_backend("talker", script({{"persona", std::nullopt, "You have 2 tasks.", 0}})).ok());
    RouterCompletionService service(router);
    auto answer = service.complete(
        {"alice", "run-1"}, "persona",
        R"({"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"tasks?"}],"temperature":0,"max_tokens":64})");
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    const auto parsed = json::parse(*answer).as_object();
    EXPECT_EQ(parsed.at("content").as_string(), "You have 2 tasks.");
    EXPECT_EQ(parsed.at("backend").as_string(), "scripted");
    EXPECT_TRUE(parsed.contains("model"));
}

TEST(RouterCompletionService, RejectsMalformedRequestsAndUnservedRoles) {
    auto router = std::make_shared<ModelRouter>(
        config_from("models:\n  a: {backend: ollama, model: m}\nroles: {orchestrator: a}\n"));
    RouterCompletionService service(router);
    auto malformed = service.complete({"alice", ""}, "persona", R"({"messages":"hello"})");
    ASSERT_FALSE(malformed.ok());
    EXPECT_EQ(malformed.error().code, "LLM_BAD_REQUEST");
    auto bad_role = service.complete({"alice", ""}, "persona", R"({"messages":[{"role":"robot","content":"x"}]})");
    ASSERT_FALSE(bad_role.ok());
    EXPECT_EQ(bad_role.error().code, "LLM_BAD_REQUEST");
    auto unserved = service.complete({"alice", ""}, "persona", R"({"messages":[{"role":"user","content":"x"}]})");
    ASSERT_FALSE(unserved.ok());
    EXPECT_EQ(unserved.error().code, "LLM_UNAVAILABLE");  // the plugin sees SKILLHOST_STATUS_UNAVAILABLE
}

TEST(RouterCompletionService, PassesContextAndModeThrough) {
    auto request = chat_request_from_abi("classifier",
                                         R"({"messages":[{"role":"user","content":"hi"}],"cognitive_mode":"emulation",
                          "context":{"task":"classify","message":"hi"},"json_schema":{"type":"object"}})");
    ASSERT_TRUE(request.ok()) << request.error().message;
    EXPECT_EQ(request->cognitive_mode, "emulation");
    EXPECT_EQ(request->context.at("task").as_string(), "classify");
    EXPECT_TRUE(request->json_schema.has_value());
}

// The real path of a plugin's completion, with no part replaced but the model: the built-in
// conversational_response plugin, loaded with dlopen by the PluginLoader, asks the host services,
// which RouterCompletionService serves from the ModelRouter and its (scripted) persona model.
class ConversationalResponse : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(router->set_backend("talker", persona).ok());
        plugin::PluginLoader loader(
            plugin::LoaderOptions{home.path() / "cache", std::make_shared<RouterCompletionService>(router)});
        auto loaded =
            loader.load_file(std::filesystem::path(SKILLHOST_BUILTIN_PLUGIN_DIR) / "conversational_response.yaml");
        ASSERT_TRUE(loaded.ok()) << loaded.error().message;
        plugin = loaded.value();
    }

    plugin::RawOutcome answer(const std::string& args) const {
        plugin::Call context;
        context.skill_id = "conversational_response";
        context.call_id = "call-1";
        context.user_id = "alice";
        context.data_dir = home.path() / "users" / "alice" / "plugins" / "conversational_response";
        return plugin->invoke(context, args);
    }

    void TearDown() override {
        plugin.reset();
        std::filesystem::remove_all(home_dir);
    }

    // A directory of this test's own (the plugin cache and data dirs).
    struct Home {
        std::filesystem::path dir;
        const std::filesystem::path& path() const { return dir; }
    };
    std::filesystem::path home_dir =
        std::filesystem::temp_directory_path() / ("skillhost-conversational-" + std::to_string(::getpid()) + "-" +
                                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    Home home{home_dir};
    std::shared_ptr<ModelRouter> router = std::make_shared<ModelRouter>(config_from(kTwoModels));
    std::shared_ptr<ScriptedBackend> persona =
        script({{"persona", std::nullopt, "You have one task: Water the plants.", 0}});
    std::shared_ptr<plugin::LoadedPlugin> plugin;
};

TEST_F(ConversationalResponse, AnswersFromTheObservationsWithThePersonaModel) {
    auto out = answer(R"({"goal":"What tasks do I have?","style":"strict","history":["User: hi"],
                          "observations":[{"tool":"task_list","ok":true,"data":{"tasks":[{"title":"Water the plants"}]}}]})");
    ASSERT_EQ(out.written, plugin::RawOutcome::Written::result) << out.error_code << ": " << out.error_message;
    const auto result = json::parse(out.result_json).as_object();
    EXPECT_EQ(result.at("answer").as_string(), "You have one task: Water the plants.");
    EXPECT_EQ(result.at("style").as_string(), "strict");

    // What reached the model: the persona role, temperature 0 for strict, the observations and the
    // history in the prompt, and the structured context the builtin model reads.
    const auto requests = persona->requests();
    ASSERT_EQ(requests.size(), 1u);
    const llm::ChatRequest& sent = requests[0];
    EXPECT_EQ(sent.role, "persona");
    ASSERT_TRUE(sent.temperature.has_value());
    EXPECT_EQ(*sent.temperature, 0.0);
    ASSERT_EQ(sent.messages.size(), 2u);
    EXPECT_EQ(sent.messages[0].role, "system");
    EXPECT_NE(sent.messages[0].content.find("EXACTLY"), std::string::npos) << sent.messages[0].content;
    EXPECT_NE(sent.messages[1].content.find("Water the plants"), std::string::npos) << sent.messages[1].content;
    EXPECT_NE(sent.messages[1].content.find("User: hi"), std::string::npos) << sent.messages[1].content;
    EXPECT_EQ(sent.context.at("task").as_string(), "answer");
    EXPECT_EQ(sent.context.at("style").as_string(), "strict");
}

TEST_F(ConversationalResponse, AnEmptyAnswerOrNoPersonaModelIsAStructuredError) {
    ASSERT_TRUE(router->set_backend("talker", script({{"persona", std::nullopt, "", 0}})).ok());
    auto empty = answer(R"({"goal":"g","observations":[]})");
    EXPECT_EQ(empty.error_code, "EMPTY_ANSWER") << empty.error_message;

    auto unserved_router = std::make_shared<ModelRouter>(
        config_from("models:\n  a: {backend: ollama, model: m}\nroles: {orchestrator: a}\n"));
    plugin::PluginLoader loader(
        plugin::LoaderOptions{home.path() / "cache2", std::make_shared<RouterCompletionService>(unserved_router)});
    auto loaded =
        loader.load_file(std::filesystem::path(SKILLHOST_BUILTIN_PLUGIN_DIR) / "conversational_response.yaml");
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    plugin = loaded.value();
    auto unserved = answer(R"({"goal":"g","observations":[]})");
    EXPECT_EQ(unserved.error_code, "LLM_UNAVAILABLE") << unserved.error_message;
}

}  // namespace
}  // namespace skillhost::app
