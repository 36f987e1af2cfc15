#include "llm/openai_backend.hpp"
#include "support/loopback_server.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

namespace skillhost::llm {
namespace {

using testing::Connection;
using testing::LoopbackServer;
using testing::RecordedRequest;
using namespace std::chrono_literals;
namespace json = boost::json;

ModelSpec openai_spec(const std::string& url) {
    ModelSpec spec;
    spec.name = "server";
    spec.backend = "openai";
    spec.model = "llama-3.1-8b";
    spec.base_url = url;
    spec.options.temperature = 0.2;
    spec.options.max_tokens = 256;
    spec.connect_timeout = 1000ms;
    spec.read_timeout = 1000ms;
    spec.retries = 2;
    spec.backoff_initial = 10ms;
    spec.retry_after_cap = 50ms;
    return spec;
}

ChatRequest structured_request() {
    ChatRequest request;
    request.role = "classifier";
    request.messages = {{"system", "Classify."}, {"user", "Hi there"}};
    request.json_schema = json::object{{"type", "object"},
                                       {"properties", json::object{{"intent", json::object{{"type", "string"}}}}},
                                       {"required", json::array{"intent"}}};
    request.schema_name = "intent";
    return request;
}

constexpr const char* kCompletion =
    R"({"id":"c1","model":"llama-3.1-8b","choices":[{"index":0,"message":{"role":"assistant","content":"{\"intent\":\"casual\"}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":31,"completion_tokens":6,"total_tokens":37}})";

TEST(OpenAiBackend, SendsModelMessagesResponseFormatAndTheKeyFromTheEnvironment) {
    ::setenv("SKILLHOST_TEST_OPENAI_KEY", "sk-test-123", 1);
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.respond(200, kCompletion); });
    ModelSpec spec = openai_spec(server.url());
    spec.api_key_env = "SKILLHOST_TEST_OPENAI_KEY";
    OpenAiBackend backend(spec);
    const ChatRequest request = structured_request();
    auto response = backend.chat(request, nullptr, {});
    ASSERT_TRUE(response.ok()) << response.error().message;

    const auto seen = server.requests();
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].target, "/v1/chat/completions");
    EXPECT_EQ(seen[0].header("authorization"), "Bearer sk-test-123");
    const json::object body = seen[0].json();
    EXPECT_EQ(body.at("model").as_string(), "llama-3.1-8b");
    EXPECT_EQ(body.at("stream").as_bool(), false);
    EXPECT_EQ(body.at("messages").as_array().size(), 2u);
    EXPECT_EQ(body.at("messages").as_array()[1].at("content").as_string(), "Hi there");
    EXPECT_DOUBLE_EQ(body.at("temperature").to_number<double>(), 0.2);
    EXPECT_EQ(body.at("max_tokens").as_int64(), 256);
    const auto& format = body.at("response_format").as_object();
    EXPECT_EQ(format.at("type").as_string(), "json_schema");
    EXPECT_EQ(format.at("json_schema").at("name").as_string(), "intent");
    EXPECT_EQ(format.at("json_schema").at("strict").as_bool(), true);
    EXPECT_EQ(format.at("json_schema").at("schema"), json::value(*request.json_schema));
    ::unsetenv("SKILLHOST_TEST_OPENAI_KEY");
}

TEST(OpenAiBackend, NoAuthorizationHeaderWithoutAKeyVariable) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.respond(200, kCompletion); });
    OpenAiBackend backend(openai_spec(server.url()));
    ASSERT_TRUE(backend.chat(structured_request(), nullptr, {}).ok());
    EXPECT_EQ(server.requests()[0].header("authorization"), "");
}

TEST(OpenAiBackend, AMissingKeyVariableIsReportedBeforeAnyRequest) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.respond(200, kCompletion); });
    ModelSpec spec = openai_spec(server.url());
    spec.api_key_env = "SKILLHOST_TEST_UNSET_KEY";
    ::unsetenv("SKILLHOST_TEST_UNSET_KEY");
    OpenAiBackend backend(spec);
    auto response = backend.chat(structured_request(), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_API_KEY_MISSING");
    EXPECT_NE(response.error().message.find("SKILLHOST_TEST_UNSET_KEY"), std::string::npos);
    EXPECT_TRUE(server.requests().empty());
}

TEST(OpenAiBackend, ABaseUrlEndingInV1IsNotDoubled) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.respond(200, kCompletion); });
    OpenAiBackend backend(openai_spec(server.url() + "/v1/"));
    ASSERT_TRUE(backend.chat(structured_request(), nullptr, {}).ok());
    EXPECT_EQ(server.requests()[0].target, "/v1/chat/completions");
}

TEST(OpenAiBackend, ParsesTheCompletionAndUsage) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.respond(200, kCompletion); });
    OpenAiBackend backend(openai_spec(server.url()));
    auto response = backend.chat(structured_request(), nullptr, {});
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->content, R"({"intent":"casual"})");
    EXPECT_EQ(response->backend, "openai");
    EXPECT_EQ(response->prompt_tokens, 31);
    EXPECT_EQ(response->completion_tokens, 6);
    EXPECT_FALSE(response->tokens_estimated);
}

TEST(OpenAiBackend, StreamsServerSentEvents) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.start_chunked(200, "text/event-stream");
        c.chunk("data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"}}]}\n\n");
        std::this_thread::sleep_for(30ms);
        c.chunk(": keep-alive comment\n\n");
        c.chunk("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" there\"}}]}\r\n\r\n");
        c.chunk("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2}}\n\n");
        c.chunk("data: [DONE]\n\n");
        c.end_chunked();
    });
    OpenAiBackend backend(openai_spec(server.url()));
    std::vector<std::string> deltas;
    ChatRequest request = structured_request();
    request.json_schema.reset();
    auto response = backend.chat(request, nullptr, [&](std::string_view d) { deltas.emplace_back(d); });
    ASSERT_TRUE(response.ok()) << response.error().message;
    const json::object body = server.requests()[0].json();
    EXPECT_EQ(body.at("stream").as_bool(), true);
    EXPECT_FALSE(body.contains("response_format"));
    EXPECT_EQ(deltas, (std::vector<std::string>{"Hi", " there"}));
    EXPECT_EQ(response->content, "Hi there");
    EXPECT_EQ(response->prompt_tokens, 9);
    EXPECT_EQ(response->completion_tokens, 2);
}

TEST(OpenAiBackend, AStreamCutBeforeDoneIsABadResponse) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.start_chunked(200, "text/event-stream");
        c.chunk("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n");
        c.end_chunked();
    });
    OpenAiBackend backend(openai_spec(server.url()));
    auto response = backend.chat(structured_request(), nullptr, [](std::string_view) {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_BAD_RESPONSE");
}

TEST(OpenAiBackend, MalformedJsonAndMissingChoicesAreBadResponses) {
    LoopbackServer broken([](const RecordedRequest&, Connection& c) { c.respond(200, "not json at all"); });
    auto first = OpenAiBackend(openai_spec(broken.url())).chat(structured_request(), nullptr, {});
    ASSERT_FALSE(first.ok());
    EXPECT_EQ(first.error().code, "LLM_BAD_RESPONSE");

    LoopbackServer empty(
        [](const RecordedRequest&, Connection& c) { c.respond(200, R"({"object":"chat.completion"})"); });
    auto second = OpenAiBackend(openai_spec(empty.url())).chat(structured_request(), nullptr, {});
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.error().code, "LLM_BAD_RESPONSE");
    EXPECT_NE(second.error().message.find("choices"), std::string::npos);
}

TEST(OpenAiBackend, RateLimitAfterAllRetriesIsReported) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.respond(429, R"({"error":{"message":"Rate limit reached","type":"requests"}})", "application/json",
                  {{"Retry-After", "1"}});
    });
    OpenAiBackend backend(openai_spec(server.url()));
    auto response = backend.chat(structured_request(), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_RATE_LIMITED");
    EXPECT_EQ(server.requests().size(), 3u);
    EXPECT_NE(response.error().message.find("retries"), std::string::npos);
}

TEST(OpenAiBackend, ServiceUnavailableIsRetriedThenSucceeds) {
    std::atomic<int> calls{0};
    LoopbackServer server([&](const RecordedRequest&, Connection& c) {
        if (calls++ < 2) {
            c.respond(503, R"({"error":{"message":"loading"}})");
        } else {
            c.respond(200, kCompletion);
        }
    });
    OpenAiBackend backend(openai_spec(server.url()));
    auto response = backend.chat(structured_request(), nullptr, {});
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(server.requests().size(), 3u);
}

TEST(OpenAiBackend, RefusedCredentialsNameTheKeyVariable) {
    ::setenv("SKILLHOST_TEST_BAD_KEY", "wrong", 1);
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.respond(401, R"({"error":{"message":"Incorrect API key provided"}})");
    });
    ModelSpec spec = openai_spec(server.url());
    spec.api_key_env = "SKILLHOST_TEST_BAD_KEY";
    auto response = OpenAiBackend(spec).chat(structured_request(), nullptr, {});
    ::unsetenv("SKILLHOST_TEST_BAD_KEY");
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_HTTP_ERROR");
    EXPECT_NE(response.error().message.find("SKILLHOST_TEST_BAD_KEY"), std::string::npos);
    EXPECT_NE(response.error().message.find("Incorrect API key"), std::string::npos);
    EXPECT_EQ(response.error().message.find("wrong"), std::string::npos);  // the key itself is never shown
}

TEST(OpenAiBackend, UnknownModelIsModelNotFound) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.respond(404, R"({"error":{"message":"The model `llama-3.1-8b` does not exist"}})");
    });
    auto response = OpenAiBackend(openai_spec(server.url())).chat(structured_request(), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_MODEL_NOT_FOUND");
    EXPECT_NE(response.error().message.find("/v1/models"), std::string::npos);
}

TEST(OpenAiBackend, HttpServerErrorIsReported) {
    LoopbackServer server(
        [](const RecordedRequest&, Connection& c) { c.respond(500, "upstream exploded", "text/plain"); });
    auto response = OpenAiBackend(openai_spec(server.url())).chat(structured_request(), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_HTTP_ERROR");
    EXPECT_NE(response.error().message.find("upstream exploded"), std::string::npos);
}

TEST(OpenAiBackend, UnreachableServerSaysWhatToDo) {
    const std::string url = "http://127.0.0.1:" + std::to_string(testing::closed_port());
    auto response = OpenAiBackend(openai_spec(url)).chat(structured_request(), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_UNREACHABLE");
    EXPECT_NE(response.error().message.find(url), std::string::npos);
    EXPECT_NE(response.error().message.find("models.yaml"), std::string::npos);
}

TEST(OpenAiBackend, ASlowAnswerTimesOut) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        if (!c.wait_for_client_close(30s)) c.respond(200, kCompletion);
    });
    ModelSpec spec = openai_spec(server.url());
    spec.read_timeout = 150ms;
    auto response = OpenAiBackend(spec).chat(structured_request(), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_TIMEOUT");
}

TEST(OpenAiBackend, CancellingAStreamReturnsPromptly) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.start_chunked(200, "text/event-stream");
        c.chunk("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Once\"}}]}\n\n");
        c.wait_for_client_close(60s);
    });
    ModelSpec spec = openai_spec(server.url());
    spec.read_timeout = 60s;
    std::atomic<bool> cancel{false};
    std::string streamed;
    const auto started = std::chrono::steady_clock::now();
    auto response = OpenAiBackend(spec).chat(structured_request(), &cancel, [&](std::string_view d) {
        streamed += d;
        cancel = true;  // the reader decides it has seen enough
    });
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_CANCELLED");
    EXPECT_EQ(streamed, "Once");
    EXPECT_LT(std::chrono::steady_clock::now() - started, 30s) << "it waited for the server, not the cancel";
}

}  // namespace
}  // namespace skillhost::llm

namespace skillhost::llm {
namespace {

// Some servers answer 200 with only an error object (e.g. a proxy in front of the model).
TEST(OpenAiBackend, ASuccessfulAnswerCarryingAnErrorObjectIsAnHttpErrorWithTheServersMessage) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.respond(200, R"({"error":{"message":"model is loading, try again","type":"unavailable"}})");
    });
    OpenAiBackend backend(openai_spec(server.url()));
    auto response = backend.chat(structured_request(), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_HTTP_ERROR");
    EXPECT_NE(response.error().message.find("model is loading"), std::string::npos) << response.error().message;
}

}  // namespace
}  // namespace skillhost::llm
