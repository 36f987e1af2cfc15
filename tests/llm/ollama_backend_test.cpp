#include "llm/ollama_backend.hpp"
#include "support/loopback_server.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace skillhost::llm {
namespace {

using testing::Connection;
using testing::LoopbackServer;
using testing::RecordedRequest;
using namespace std::chrono_literals;
namespace json = boost::json;

ModelSpec ollama_spec(const std::string& url) {
    ModelSpec spec;
    spec.name = "local";
    spec.backend = "ollama";
    spec.model = "qwen2.5:7b";
    spec.base_url = url;
    spec.options.temperature = 0.3;
    spec.options.context_size = 8192;
    spec.options.max_tokens = 512;
    spec.connect_timeout = 1000ms;
    spec.read_timeout = 1000ms;
    spec.retries = 2;
    spec.backoff_initial = 10ms;
    spec.retry_after_cap = 50ms;
    return spec;
}

ChatRequest planner_request() {
    ChatRequest request;
    request.role = "orchestrator";
    request.messages = {{"system", "You plan."}, {"user", "What tasks do I have?"}};
    request.json_schema = json::object{{"type", "object"},
                                       {"properties", json::object{{"thought", json::object{{"type", "string"}}}}},
                                       {"required", json::array{"thought"}}};
    return request;
}

constexpr const char* kAnswer =
    R"({"model":"qwen2.5:7b","message":{"role":"assistant","content":"{\"thought\":\"list them\"}"},"done":true,"prompt_eval_count":42,"eval_count":7})";

TEST(OllamaBackend, SendsModelMessagesSchemaAndOptions) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.respond(200, kAnswer); });
    OllamaBackend backend(ollama_spec(server.url()));
    ChatRequest request = planner_request();
    request.temperature = 0.0;  // the request's override wins over the model's option
    auto response = backend.chat(request, nullptr, {});
    ASSERT_TRUE(response.ok()) << response.error().message;

    const auto seen = server.requests();
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].method, "POST");
    EXPECT_EQ(seen[0].target, "/api/chat");
    const json::object body = seen[0].json();
    EXPECT_EQ(body.at("model").as_string(), "qwen2.5:7b");
    EXPECT_EQ(body.at("stream").as_bool(), false);
    const auto& messages = body.at("messages").as_array();
    ASSERT_EQ(messages.size(), 2u);
    EXPECT_EQ(messages[0].at("role").as_string(), "system");
    EXPECT_EQ(messages[1].at("content").as_string(), "What tasks do I have?");
    EXPECT_EQ(body.at("format"), json::value(*request.json_schema));
    const auto& options = body.at("options").as_object();
    EXPECT_EQ(options.at("temperature").to_number<double>(), 0.0);
    EXPECT_EQ(options.at("num_ctx").as_int64(), 8192);
    EXPECT_EQ(options.at("num_predict").as_int64(), 512);
}

TEST(OllamaBackend, ParsesANonStreamingAnswerWithUsage) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.respond(200, kAnswer); });
    OllamaBackend backend(ollama_spec(server.url()));
    auto response = backend.chat(planner_request(), nullptr, {});
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->content, R"({"thought":"list them"})");
    EXPECT_EQ(response->backend, "ollama");
    EXPECT_EQ(response->model, "qwen2.5:7b");
    EXPECT_EQ(response->prompt_tokens, 42);
    EXPECT_EQ(response->completion_tokens, 7);
    EXPECT_FALSE(response->tokens_estimated);
}

TEST(OllamaBackend, EstimatesTokensWhenTheServerReportsNone) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.respond(200, R"({"message":{"role":"assistant","content":"twelve chars"},"done":true})");
    });
    OllamaBackend backend(ollama_spec(server.url()));
    auto response = backend.chat(planner_request(), nullptr, {});
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_TRUE(response->tokens_estimated);
    EXPECT_EQ(response->completion_tokens, 3);
    EXPECT_GT(response->prompt_tokens, 0);
}

TEST(OllamaBackend, StreamsNdjsonDeltas) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.start_chunked();
        c.chunk(R"({"message":{"role":"assistant","content":"Hel"},"done":false})"
                "\n");
        std::this_thread::sleep_for(30ms);
        // A line split across two chunks must still parse.
        c.chunk(R"({"message":{"role":"assistant","con)");
        c.chunk(R"(tent":"lo"},"done":false})"
                "\n");
        c.chunk(
            R"({"model":"qwen2.5:7b","message":{"role":"assistant","content":""},"done":true,"prompt_eval_count":5,"eval_count":2})"
            "\n");
        c.end_chunked();
    });
    OllamaBackend backend(ollama_spec(server.url()));
    std::vector<std::string> deltas;
    auto response = backend.chat(planner_request(), nullptr, [&](std::string_view d) { deltas.emplace_back(d); });
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(server.requests()[0].json().at("stream").as_bool(), true);
    EXPECT_EQ(deltas, (std::vector<std::string>{"Hel", "lo"}));
    EXPECT_EQ(response->content, "Hello");
    EXPECT_EQ(response->prompt_tokens, 5);
    EXPECT_EQ(response->completion_tokens, 2);
}

TEST(OllamaBackend, MalformedJsonIsABadResponse) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.respond(200, "{\"message\": {oops"); });
    OllamaBackend backend(ollama_spec(server.url()));
    auto response = backend.chat(planner_request(), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_BAD_RESPONSE");
    EXPECT_NE(response.error().message.find("base_url"), std::string::npos);
}

TEST(OllamaBackend, AStreamWithoutDoneIsABadResponse) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.start_chunked();
        c.chunk(R"({"message":{"role":"assistant","content":"Hel"},"done":false})"
                "\n");
        c.end_chunked();
    });
    OllamaBackend backend(ollama_spec(server.url()));
    auto response = backend.chat(planner_request(), nullptr, [](std::string_view) {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_BAD_RESPONSE");
}

TEST(OllamaBackend, MissingModelSaysToPullIt) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.respond(404, R"({"error":"model \"qwen2.5:7b\" not found, try pulling it first"})");
    });
    OllamaBackend backend(ollama_spec(server.url()));
    auto response = backend.chat(planner_request(), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_MODEL_NOT_FOUND");
    EXPECT_NE(response.error().message.find("ollama pull qwen2.5:7b"), std::string::npos) << response.error().message;
}

TEST(OllamaBackend, ServerErrorCarriesTheServersText) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.respond(500, R"({"error":"llama runner process has terminated"})");
    });
    OllamaBackend backend(ollama_spec(server.url()));
    auto response = backend.chat(planner_request(), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_HTTP_ERROR");
    EXPECT_NE(response.error().message.find("llama runner process has terminated"), std::string::npos);
    EXPECT_EQ(response.error().details.at("status").as_int64(), 500);
    EXPECT_EQ(server.requests().size(), 1u);
}

TEST(OllamaBackend, RateLimitIsRetriedThenSucceeds) {
    std::atomic<int> calls{0};
    LoopbackServer server([&](const RecordedRequest&, Connection& c) {
        if (calls++ == 0) {
            c.respond(429, R"({"error":"too many requests"})", "application/json", {{"Retry-After", "1"}});
        } else {
            c.respond(200, kAnswer);
        }
    });
    OllamaBackend backend(ollama_spec(server.url()));
    auto response = backend.chat(planner_request(), nullptr, {});
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(server.requests().size(), 2u);
}

TEST(OllamaBackend, ServiceUnavailableAfterAllRetriesSaysSo) {
    LoopbackServer server(
        [](const RecordedRequest&, Connection& c) { c.respond(503, R"({"error":"loading model"})"); });
    OllamaBackend backend(ollama_spec(server.url()));
    auto response = backend.chat(planner_request(), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_HTTP_ERROR");
    EXPECT_EQ(response.error().details.at("attempts").as_int64(), 3);
    EXPECT_NE(response.error().message.find("503"), std::string::npos);
}

TEST(OllamaBackend, UnreachableServerSaysHowToStartIt) {
    const std::string url = "http://127.0.0.1:" + std::to_string(testing::closed_port());
    OllamaBackend backend(ollama_spec(url));
    auto response = backend.chat(planner_request(), nullptr, {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_UNREACHABLE");
    EXPECT_EQ(response.error().message,
              "Ollama is not reachable at " + url + " — start it with `ollama serve` or change models.yaml");
}

TEST(OllamaBackend, AStalledStreamTimesOut) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.start_chunked();
        c.chunk(R"({"message":{"role":"assistant","content":"Hel"},"done":false})"
                "\n");
        c.wait_for_client_close(3s);
    });
    ModelSpec spec = ollama_spec(server.url());
    spec.read_timeout = 200ms;
    OllamaBackend backend(spec);
    std::string streamed;
    auto response = backend.chat(planner_request(), nullptr, [&](std::string_view d) { streamed += d; });
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_TIMEOUT");
    EXPECT_NE(response.error().message.find("read_ms"), std::string::npos);
    EXPECT_EQ(streamed, "Hel");
}

TEST(OllamaBackend, CancellationReturnsPromptly) {
    // The server never answers; the client cancels once the server holds its request.
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.wait_for_client_close(60s); });
    ModelSpec spec = ollama_spec(server.url());
    spec.read_timeout = 60s;
    OllamaBackend backend(spec);
    std::atomic<bool> cancel{false};
    std::thread canceller([&] {
        while (server.requests().empty()) std::this_thread::sleep_for(5ms);
        cancel = true;
    });
    const auto started = std::chrono::steady_clock::now();
    auto response = backend.chat(planner_request(), &cancel, {});
    canceller.join();
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "LLM_CANCELLED");
    EXPECT_LT(std::chrono::steady_clock::now() - started, 30s) << "it waited for the server, not the cancel";
}

}  // namespace
}  // namespace skillhost::llm
