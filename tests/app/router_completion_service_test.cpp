// The completion service plugins reach through the ABI ("skillhost.llm/1" and the 1.0 member),
// served by the model router.
#include "app/router_completion_service.hpp"
#include "llm/model_router.hpp"
#include "llm/scripted_backend.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

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
    auto answer = service.complete("alice", "persona",
                                   R"({"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"tasks?"}],"temperature":0,"max_tokens":64})");
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    const auto parsed = json::parse(*answer).as_object();
    EXPECT_EQ(parsed.at("content").as_string(), "You have 2 tasks.");
    EXPECT_EQ(parsed.at("backend").as_string(), "scripted");
    EXPECT_TRUE(parsed.contains("model"));
}

TEST(RouterCompletionService, RejectsMalformedRequestsAndUnservedRoles) {
    auto router = std::make_shared<ModelRouter>(config_from("models:\n  a: {backend: ollama, model: m}\nroles: {orchestrator: a}\n"));
    RouterCompletionService service(router);
    auto malformed = service.complete("alice", "persona", R"({"messages":"hello"})");
    ASSERT_FALSE(malformed.ok());
    EXPECT_EQ(malformed.error().code, "LLM_BAD_REQUEST");
    auto bad_role = service.complete("alice", "persona", R"({"messages":[{"role":"robot","content":"x"}]})");
    ASSERT_FALSE(bad_role.ok());
    EXPECT_EQ(bad_role.error().code, "LLM_BAD_REQUEST");
    auto unserved = service.complete("alice", "persona", R"({"messages":[{"role":"user","content":"x"}]})");
    ASSERT_FALSE(unserved.ok());
    EXPECT_EQ(unserved.error().code, "LLM_UNAVAILABLE");  // the plugin sees SKILLHOST_STATUS_UNAVAILABLE
}

TEST(RouterCompletionService, PassesContextAndModeThrough) {
    auto request = chat_request_from_abi(
        "classifier", R"({"messages":[{"role":"user","content":"hi"}],"cognitive_mode":"emulation",
                          "context":{"task":"classify","message":"hi"},"json_schema":{"type":"object"}})");
    ASSERT_TRUE(request.ok()) << request.error().message;
    EXPECT_EQ(request->cognitive_mode, "emulation");
    EXPECT_EQ(request->context.at("task").as_string(), "classify");
    EXPECT_TRUE(request->json_schema.has_value());
}

}  // namespace
}  // namespace skillhost::app
