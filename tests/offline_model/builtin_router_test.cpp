// The offline model as the host uses it: a chat backend the model router makes from the factory.
#include "llm/model_router.hpp"
#include "llm/role_check.hpp"
#include "offline_model/builtin_answer.hpp"
#include "offline_model/builtin_backend_factory.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace skillhost::offline_model {
namespace {

namespace json = boost::json;

llm::ChatBackendFactories factories() {
    llm::ChatBackendFactories out;
    out.emplace(kBackendKind, &make_builtin_backend);
    return out;
}

llm::ChatRequest request_for(const std::string& role) {
    llm::ChatRequest request;
    request.role = role;
    request.messages = {{"user", "Hi there"}};
    return request;
}

TEST(BuiltinThroughTheRouter, DefaultConfigAnswersWithTheBuiltinModel) {
    llm::ModelRouter router(llm::default_models_config(), nullptr, factories());
    llm::ChatRequest request = request_for("classifier");
    request.context = json::object{{"task", "classify"}, {"message", "What did I do yesterday?"}};
    auto response = router.chat(request);
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->backend, "builtin");
    EXPECT_EQ(json::parse(response->content).at("intent").as_string(), "temporal");
}

TEST(BuiltinThroughTheRouter, TheBuiltinModelPassesTheStructuredOutputCheck) {
    llm::ModelRouter router(llm::default_models_config(), nullptr, factories());
    const llm::RoleTestResult result = llm::test_role(router, "orchestrator");
    EXPECT_TRUE(result.ok);
    EXPECT_TRUE(result.structured_output_ok);
    EXPECT_EQ(result.backend, "builtin");
}

TEST(BuiltinThroughTheRouter, DeclaresThatItReadsTheContextAndSignsItsAnswers) {
    llm::ModelRouter router(llm::default_models_config(), nullptr, factories());
    auto traits = router.traits("orchestrator");
    ASSERT_TRUE(traits.ok()) << traits.error().message;
    EXPECT_TRUE(traits->reads_context);
    EXPECT_EQ(traits->answer_attribution, kBuiltinMarker);
    EXPECT_EQ(router.answer_attributions(), std::vector<std::string>{std::string(kBuiltinMarker)});
}

}  // namespace
}  // namespace skillhost::offline_model
