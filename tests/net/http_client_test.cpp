#include "net/bounded_lookup.hpp"
#include "net/http_client.hpp"
#include "net/url.hpp"
#include "support/loopback_server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

namespace skillhost::http {
namespace {

using llm::testing::Connection;
using llm::testing::LoopbackServer;
using llm::testing::RecordedRequest;
using namespace std::chrono_literals;

HttpClientOptions fast_options() {
    HttpClientOptions options;
    options.connect_timeout = 1000ms;
    options.read_timeout = 1000ms;
    options.max_retries = 2;
    options.backoff_initial = 10ms;
    options.retry_after_cap = 50ms;
    return options;
}

TEST(HttpClient, PostsTheBodyAndHeadersAndReadsTheResponse) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.respond(200, R"({"hello":"world"})"); });
    HttpRequest request;
    request.url = server.url() + "/api/chat";
    request.headers = {{"Content-Type", "application/json"}, {"X-Test", "yes"}};
    request.body = R"({"q":1})";
    auto response = send_http_request(request, fast_options());
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, R"({"hello":"world"})");
    EXPECT_EQ(response->header("content-type"), "application/json");
    EXPECT_EQ(response->attempts, 1);
    const auto seen = server.requests();
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].method, "POST");
    EXPECT_EQ(seen[0].target, "/api/chat");
    EXPECT_EQ(seen[0].header("x-test"), "yes");
    EXPECT_EQ(seen[0].header("host"), "127.0.0.1:" + std::to_string(server.port()));
    EXPECT_EQ(seen[0].body, R"({"q":1})");
}

TEST(HttpClient, RetriesA503AndHonoursRetryAfterUpToTheCap) {
    std::atomic<int> calls{0};
    LoopbackServer server([&](const RecordedRequest&, Connection& c) {
        if (calls++ == 0) {
            c.respond(503, "busy", "text/plain", {{"Retry-After", "30"}});
        } else {
            c.respond(200, "done");
        }
    });
    const auto started = std::chrono::steady_clock::now();
    auto response = send_http_request({"GET", server.url() + "/", {}, ""}, fast_options());
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, "done");
    EXPECT_EQ(response->attempts, 2);
    // Retry-After: 30 s was capped at 50 ms.
    EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
}

TEST(HttpClient, GivesUpAfterTheRetriesAndReturnsTheLastStatus) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.respond(429, "slow down", "text/plain"); });
    auto response = send_http_request({"GET", server.url() + "/", {}, ""}, fast_options());
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status, 429);
    EXPECT_EQ(response->attempts, 3);
    EXPECT_EQ(server.requests().size(), 3u);
}

TEST(HttpClient, DoesNotRetryAServerError) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.respond(500, "boom", "text/plain"); });
    auto response = send_http_request({"GET", server.url() + "/", {}, ""}, fast_options());
    ASSERT_TRUE(response.ok());
    EXPECT_EQ(response->status, 500);
    EXPECT_EQ(response->body, "boom");
    EXPECT_EQ(server.requests().size(), 1u);
}

TEST(HttpClient, ConnectionRefusedIsUnreachableAfterRetries) {
    const int port = llm::testing::closed_port();
    auto response =
        send_http_request({"GET", "http://127.0.0.1:" + std::to_string(port) + "/", {}, ""}, fast_options());
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "HTTP_UNREACHABLE");
    EXPECT_EQ(response.error().details.at("attempts").as_int64(), 3);
    EXPECT_NE(response.error().message.find("127.0.0.1"), std::string::npos);
}

TEST(HttpClient, StreamsBodyPiecesAsTheyArrive) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.start_chunked();
        c.chunk("first\n");
        std::this_thread::sleep_for(100ms);
        c.chunk("second\n");
        c.end_chunked();
    });
    std::vector<std::string> pieces;
    auto response = send_http_request({"POST", server.url() + "/", {}, "{}"}, fast_options(),
                                      [&](std::string_view piece) { pieces.emplace_back(piece); });
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status, 200);
    EXPECT_TRUE(response->body.empty());  // delivered to the handler instead
    ASSERT_GE(pieces.size(), 2u);
    EXPECT_EQ(pieces.front(), "first\n");
    std::string joined;
    for (const auto& p : pieces) joined += p;
    EXPECT_EQ(joined, "first\nsecond\n");
}

TEST(HttpClient, ANoAnswerServerTimesOutInTheReadPhase) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.wait_for_client_close(60s); });
    auto options = fast_options();
    options.read_timeout = 200ms;
    const auto started = std::chrono::steady_clock::now();
    auto response = send_http_request({"GET", server.url() + "/", {}, ""}, options);
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "HTTP_TIMEOUT");
    EXPECT_EQ(response.error().details.at("phase").as_string(), "read");
    EXPECT_LT(std::chrono::steady_clock::now() - started, 30s) << "it waited for the server to give up";
    EXPECT_EQ(server.requests().size(), 1u);  // a read timeout is not retried
}

TEST(HttpClient, AStalledStreamTimesOutEvenAfterDataArrived) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.start_chunked();
        c.chunk("partial\n");
        c.wait_for_client_close(60s);
    });
    auto options = fast_options();
    options.read_timeout = 200ms;
    std::string received;
    auto response = send_http_request({"POST", server.url() + "/", {}, ""}, options,
                                      [&](std::string_view piece) { received += piece; });
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "HTTP_TIMEOUT");
    EXPECT_EQ(received, "partial\n");
}

TEST(HttpClient, ASlowButSteadyStreamDoesNotTimeOut) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.start_chunked();
        for (int i = 0; i < 12; ++i) {
            c.chunk("x");
            std::this_thread::sleep_for(100ms);
        }
        c.end_chunked();
    });
    auto options = fast_options();
    // Shorter than the whole response (at least 1.2 s), ten times each gap (so load cannot fake a stall).
    options.read_timeout = 1000ms;
    std::string received;
    auto response = send_http_request({"POST", server.url() + "/", {}, ""}, options,
                                      [&](std::string_view piece) { received += piece; });
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(received, "xxxxxxxxxxxx");
}

// A server that keeps sending, slowly enough never to trip the read timer, still ends at the
// total deadline.
TEST(HttpClient, AStreamThatNeverEndsStopsAtTheTotalDeadline) {
    std::atomic<bool> client_gone{false};
    LoopbackServer server([&](const RecordedRequest&, Connection& c) {
        c.start_chunked();
        for (int i = 0; i < 3000 && !client_gone.load(); ++i) {
            if (!c.chunk("x")) break;
            std::this_thread::sleep_for(20ms);
        }
    });
    auto options = fast_options();
    options.read_timeout = 60s;
    options.total_timeout = 300ms;
    std::string received;
    auto response = send_http_request({"POST", server.url() + "/", {}, ""}, options,
                                      [&](std::string_view piece) { received += piece; });
    client_gone = true;
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "HTTP_TIMEOUT");
    EXPECT_EQ(response.error().details.at("phase").as_string(), "total");
    EXPECT_FALSE(received.empty()) << "the stream had started";
}

TEST(HttpClient, CancellingAnInFlightRequestReturnsPromptlyAndClosesTheConnection) {
    std::atomic<bool> client_closed{false};
    LoopbackServer server([&](const RecordedRequest&, Connection& c) {
        c.start_chunked();
        c.chunk("thinking...");
        client_closed = c.wait_for_client_close(60s);
    });
    std::atomic<bool> cancel{false};
    auto options = fast_options();
    options.read_timeout = 60s;
    options.cancel = &cancel;
    const auto started = std::chrono::steady_clock::now();
    // Cancelled once the first piece arrived: the request is in flight, the server still holds it.
    auto response =
        send_http_request({"POST", server.url() + "/", {}, ""}, options, [&](std::string_view) { cancel = true; });
    const auto elapsed = std::chrono::steady_clock::now() - started;
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "HTTP_CANCELLED");
    EXPECT_LT(elapsed, 30s) << "it waited for the server, not the cancel";
}

TEST(HttpClient, CancellingDuringBackoffStopsTheRetries) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) {
        c.respond(503, "busy", "text/plain", {{"Retry-After", "60"}});
    });
    std::atomic<bool> cancel{false};
    auto options = fast_options();
    options.retry_after_cap = 60s;
    options.cancel = &cancel;
    // Cancels once the first answer was given, i.e. while the client backs off for 60 s.
    std::thread canceller([&] {
        while (server.requests().empty()) std::this_thread::sleep_for(5ms);
        cancel = true;
    });
    const auto started = std::chrono::steady_clock::now();
    auto response = send_http_request({"GET", server.url() + "/", {}, ""}, options);
    canceller.join();
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "HTTP_CANCELLED");
    EXPECT_LT(std::chrono::steady_clock::now() - started, 30s) << "it backed off the whole 60 s";
    EXPECT_EQ(server.requests().size(), 1u);
}

// A server that sends more than max_response_bytes is cut off with a clear error, whether it
// announced the size (Content-Length) or streams without end; a body at the limit is fine.
TEST(HttpClient, AResponseLargerThanTheLimitIsRefusedNotBuffered) {
    LoopbackServer server([](const RecordedRequest& request, Connection& c) {
        if (request.target == "/exact") {
            c.respond(200, std::string(4096, 'a'));
        } else if (request.target == "/announced") {
            c.respond(200, std::string(4097, 'b'));
        } else {
            c.start_chunked();
            for (int i = 0; i < 64; ++i) c.chunk(std::string(1024, 'c'));  // 64 KiB, far past the limit
            c.end_chunked();
        }
    });
    auto options = fast_options();
    options.max_response_bytes = 4096;
    auto exact = send_http_request({"GET", server.url() + "/exact", {}, ""}, options);
    ASSERT_TRUE(exact.ok()) << exact.error().message;
    EXPECT_EQ(exact->body.size(), 4096u);

    auto announced = send_http_request({"GET", server.url() + "/announced", {}, ""}, options);
    ASSERT_FALSE(announced.ok());
    EXPECT_EQ(announced.error().code, "HTTP_RESPONSE_TOO_LARGE");
    EXPECT_EQ(announced.error().details.at("limit_bytes").to_number<std::uint64_t>(), 4096u);
    EXPECT_NE(announced.error().message.find("larger than 4096 bytes"), std::string::npos) << announced.error().message;

    std::size_t delivered = 0;
    auto streamed = send_http_request({"POST", server.url() + "/stream", {}, ""}, options,
                                      [&](std::string_view piece) { delivered += piece.size(); });
    ASSERT_FALSE(streamed.ok());
    EXPECT_EQ(streamed.error().code, "HTTP_RESPONSE_TOO_LARGE");
    EXPECT_LE(delivered, 4096u) << "pieces past the limit reached the caller";
}

// A DNS server that never answers must not hold a request past its connect timeout: the lookup
// is abandoned at the deadline (its thread finishes by itself when the resolver returns).
TEST(HttpClient, ANameLookupThatNeverAnswersTimesOutInTheConnectPhase) {
    auto release = std::make_shared<std::promise<void>>();
    std::shared_future<void> released = release->get_future().share();
    HttpClientOptions o;
    o.connect_timeout = std::chrono::milliseconds(300);
    o.max_retries = 0;
    o.resolver = [released](const std::string&, const std::string&) {
        released.wait();
        return LookupResult{};
    };
    HttpRequest r;
    r.url = "http://models.example.test:8080/v1/models";
    auto result = send_http_request(r, o);
    release->set_value();
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, "HTTP_TIMEOUT") << result.error().message;
    EXPECT_EQ(result.error().details.at("phase").as_string(), "connect");
    EXPECT_NE(result.error().message.find("models.example.test"), std::string::npos) << result.error().message;

    std::atomic<bool> cancel{true};
    o.cancel = &cancel;
    o.connect_timeout = std::chrono::hours(1);
    auto release_again = std::make_shared<std::promise<void>>();
    std::shared_future<void> released_again = release_again->get_future().share();
    o.resolver = [released_again](const std::string&, const std::string&) {
        released_again.wait();
        return LookupResult{};
    };
    auto cancelled = send_http_request(r, o);
    release_again->set_value();
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().code, "HTTP_CANCELLED");
}

// Each abandoned lookup keeps its thread until the resolver returns. A resolver that never answers
// must not let requests pile up threads: past the cap a lookup fails at once and says why, and the
// slots come back when the resolver finally answers.
TEST(HttpClient, NameLookupsWaitingForADeadResolverAreCapped) {
    auto release = std::make_shared<std::promise<void>>();
    std::shared_future<void> released = release->get_future().share();
    const NameResolver silent = [released](const std::string&, const std::string&) {
        released.wait();
        return LookupResult{};
    };
    for (int i = 0; i < kMaxLookupsInFlight; ++i) {
        const auto late = resolve_within("dead.example.test", "80", std::chrono::milliseconds(5), nullptr,
                                         std::chrono::milliseconds(5), silent);
        ASSERT_TRUE(late.timed_out) << i << ": " << late.error;
    }
    EXPECT_EQ(lookups_in_flight(), kMaxLookupsInFlight);

    const auto refused =
        resolve_within("dead.example.test", "80", std::chrono::hours(1), nullptr, std::chrono::milliseconds(5), silent);
    EXPECT_TRUE(refused.busy);
    EXPECT_FALSE(refused.ok());
    EXPECT_NE(refused.error.find("already waiting for the DNS server"), std::string::npos) << refused.error;

    release->set_value();
    for (int i = 0; i < 1000 && lookups_in_flight() > 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(lookups_in_flight(), 0);

    const NameResolver answering = [](const std::string&, const std::string& port) {
        return resolve_within("127.0.0.1", port, std::chrono::seconds(1), nullptr, std::chrono::milliseconds(5));
    };
    const auto after = resolve_within("local.example.test", "8080", std::chrono::seconds(30), nullptr,
                                      std::chrono::milliseconds(5), answering);
    ASSERT_TRUE(after.ok()) << after.error;
    EXPECT_EQ(after.endpoints.front().port(), 8080);
}

TEST(HttpClient, RejectsAUrlItCannotUse) {
    auto response = send_http_request({"GET", "ftp://example.com/", {}, ""}, fast_options());
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "HTTP_BAD_URL");
    EXPECT_NE(response.error().message.find("http"), std::string::npos);
}

TEST(HttpClient, HttpsAgainstAPlainServerIsATlsError) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.respond(400, "not tls", "text/plain"); });
    auto options = fast_options();
    options.max_retries = 0;
    auto response =
        send_http_request({"GET", "https://127.0.0.1:" + std::to_string(server.port()) + "/", {}, ""}, options);
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "HTTP_TLS_ERROR");
}

TEST(HttpClient, MalformedHttpIsAProtocolError) {
    LoopbackServer server([](const RecordedRequest&, Connection& c) { c.write("this is not http\r\n\r\n"); });
    auto options = fast_options();
    auto response = send_http_request({"GET", server.url() + "/", {}, ""}, options);
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, "HTTP_PROTOCOL_ERROR");
}

TEST(Url, ParsesHostPortAndPath) {
    auto url = parse_url("https://api.example.com/v1");
    ASSERT_TRUE(url.ok());
    EXPECT_EQ(url->host, "api.example.com");
    EXPECT_EQ(url->port, "443");
    EXPECT_EQ(url->target, "/v1");
    EXPECT_EQ(url->host_header(), "api.example.com");
    auto local = parse_url("http://[::1]:11434");
    ASSERT_TRUE(local.ok());
    EXPECT_EQ(local->host, "::1");
    EXPECT_EQ(local->port, "11434");
    EXPECT_EQ(local->target, "/");
    EXPECT_FALSE(parse_url("http://host:99999").ok());
    EXPECT_FALSE(parse_url("localhost:11434").ok());
    EXPECT_EQ(join_url("http://h:1/", "/api/chat"), "http://h:1/api/chat");
}

}  // namespace
}  // namespace skillhost::http
