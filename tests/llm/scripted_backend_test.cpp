#include "llm/scripted_backend.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace skillhost::llm {
namespace {

namespace fs = std::filesystem;

class TempDir {
public:
    TempDir() {
        std::random_device random;
        path_ = fs::temp_directory_path() / ("skillhost-llm-test-" + std::to_string(random()));
        fs::create_directories(path_);
    }
    ~TempDir() { fs::remove_all(path_); }
    fs::path write(const std::string& name, const std::string& text) const {
        std::ofstream(path_ / name) << text;
        return path_ / name;
    }

private:
    fs::path path_;
};

ChatRequest ask(const std::string& role, const std::string& message) {
    ChatRequest request;
    request.role = role;
    request.messages = {{"system", "rules"}, {"user", message}};
    return request;
}

TEST(ScriptedBackend, MatchesByRoleAndTextBeforeOrder) {
    TempDir dir;
    const auto script = dir.write("demo.yaml", R"(
- response: first in order
- role: classifier
  response: {intent: task, confidence: 0.9}
- match: "readme.md"
  response: '{"thought":"read it","action":{"tool":"fs_read","args":{"path":"README.md"}}}'
- response: second in order
)");
    auto backend = ScriptedBackend::load(script);
    ASSERT_TRUE(backend.ok()) << backend.error().message;
    auto& scripted = **backend;

    auto readme = scripted.chat(ask("orchestrator", "Show me README.md"), nullptr, {});
    ASSERT_TRUE(readme.ok());
    EXPECT_EQ(readme->content, R"({"thought":"read it","action":{"tool":"fs_read","args":{"path":"README.md"}}})");
    EXPECT_EQ(readme->backend, "scripted");

    auto classified = scripted.chat(ask("classifier", "What tasks do I have?"), nullptr, {});
    ASSERT_TRUE(classified.ok());
    // A YAML mapping response is sent as JSON, with numbers as numbers.
    EXPECT_EQ(boost::json::parse(classified->content), boost::json::parse(R"({"intent":"task","confidence":0.9})"));

    EXPECT_EQ(scripted.chat(ask("persona", "anything"), nullptr, {})->content, "first in order");
    EXPECT_EQ(scripted.chat(ask("orchestrator", "anything else"), nullptr, {})->content, "second in order");
    EXPECT_EQ(scripted.remaining(), 0u);
    ASSERT_EQ(scripted.requests().size(), 4u);
    EXPECT_EQ(scripted.requests()[1].role, "classifier");
}

TEST(ScriptedBackend, AConstrainedEntryIsNotUsedForOtherRoles) {
    auto backend = ScriptedBackend::create({{"critic", std::nullopt, "looks fine", 0}});
    ASSERT_TRUE(backend.ok());
    auto response = (*backend)->chat(ask("persona", "hello"), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_SCRIPT_EXHAUSTED");
}

TEST(ScriptedBackend, ExhaustionNamesTheScriptAndWhatWasAsked) {
    TempDir dir;
    const auto script = dir.write(
        "short.jsonl",
        "{\"response\": \"only one\"}\n\n{\"role\": \"classifier\", \"response\": {\"intent\": \"casual\"}}\n");
    auto backend = ScriptedBackend::load(script);
    ASSERT_TRUE(backend.ok()) << backend.error().message;
    EXPECT_EQ((*backend)->chat(ask("orchestrator", "first"), nullptr, {})->content, "only one");
    EXPECT_EQ((*backend)->chat(ask("classifier", "hi"), nullptr, {})->content, R"({"intent":"casual"})");
    auto exhausted = (*backend)->chat(ask("orchestrator", "Create a task to call the dentist"), nullptr, {});
    ASSERT_FALSE(exhausted.ok());
    EXPECT_EQ(exhausted.error().code, "LLM_SCRIPT_EXHAUSTED");
    EXPECT_NE(exhausted.error().message.find(script.string()), std::string::npos);
    EXPECT_NE(exhausted.error().message.find("Create a task to call the dentist"), std::string::npos);
    EXPECT_NE(exhausted.error().message.find("orchestrator"), std::string::npos);
    EXPECT_EQ(exhausted.error().details.at("used").as_int64(), 2);
}

TEST(ScriptedBackend, StreamsTheWholeResponseAsOneDelta) {
    auto backend = ScriptedBackend::create({{std::nullopt, std::nullopt, "streamed text", 0}});
    ASSERT_TRUE(backend.ok());
    std::string streamed;
    auto response = (*backend)->chat(ask("persona", "x"), nullptr, [&](std::string_view d) { streamed += d; });
    ASSERT_TRUE(response.ok());
    EXPECT_EQ(streamed, "streamed text");
}

TEST(ScriptedBackend, BadScriptsAreReportedWithTheirLine) {
    TempDir dir;
    auto missing_response =
        ScriptedBackend::load(dir.write("a.yaml", "- role: persona\n  response: ok\n- role: critic\n"));
    ASSERT_FALSE(missing_response.ok());
    EXPECT_EQ(missing_response.error().code, "LLM_SCRIPT_INVALID");
    EXPECT_EQ(missing_response.error().details.at("line").as_int64(), 3);

    auto empty_match = ScriptedBackend::load(dir.write("b.yaml", "- match: \"\"\n  response: x\n"));
    ASSERT_FALSE(empty_match.ok());
    EXPECT_EQ(empty_match.error().code, "LLM_SCRIPT_INVALID");
    EXPECT_NE(empty_match.error().message.find("`match` is empty"), std::string::npos);

    auto bad_json = ScriptedBackend::load(dir.write("c.jsonl", "{\"response\":\"ok\"}\n{not json}\n"));
    ASSERT_FALSE(bad_json.ok());
    EXPECT_EQ(bad_json.error().details.at("line").as_int64(), 2);

    // yaml-cpp 0.7 would allocate until the process dies on a line like this one.
    auto comma_root = ScriptedBackend::load(dir.write("e.yaml", "- response: ok\n,\n"));
    ASSERT_FALSE(comma_root.ok());
    EXPECT_EQ(comma_root.error().code, "LLM_SCRIPT_INVALID");
    EXPECT_EQ(comma_root.error().details.at("line").as_int64(), 2);

    auto absent = ScriptedBackend::load(dir.write("d.yaml", "").parent_path() / "nope.yaml");
    ASSERT_FALSE(absent.ok());
    EXPECT_EQ(absent.error().code, "LLM_SCRIPT_NOT_FOUND");
}

TEST(ScriptedBackend, ACancelledRequestConsumesNothing) {
    auto backend = ScriptedBackend::create({{std::nullopt, std::nullopt, "kept", 0}});
    ASSERT_TRUE(backend.ok());
    std::atomic<bool> cancel{true};
    auto response = (*backend)->chat(ask("persona", "x"), &cancel, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_CANCELLED");
    EXPECT_EQ((*backend)->remaining(), 1u);
}

}  // namespace
}  // namespace skillhost::llm
