// OAuthAuthorizer against authorization servers that misbehave, on loopback: each refusal it cannot
// answer safely is an error with its code, and nothing is asked of a server it has stopped trusting
// (no registration, no authorization, no token request). Concurrent refusals share one refresh, and
// a grant kept elsewhere (a login in another process) is taken up without a flow.
#include "oauth/error_codes.hpp"
#include "oauth/http_json.hpp"
#include "oauth/oauth_authorizer.hpp"
#include "support/loopback_server.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace skillhost::oauth {
namespace {

namespace json = boost::json;
using llm::testing::Connection;
using llm::testing::LoopbackServer;
using llm::testing::RecordedRequest;

// An authorization server (and the resource's metadata) whose answers a test changes.
class FakeAuthorizationServer {
public:
    FakeAuthorizationServer()
        : server_([this](const RecordedRequest& request, Connection& connection) { handle(request, connection); }) {}

    std::string base() const { return server_.url(); }
    std::string resource() const { return base() + "/mcp"; }
    int count(const std::string& path) const {
        std::lock_guard lock(mutex_);
        const auto it = hits_.find(path);
        return it == hits_.end() ? 0 : it->second;
    }

    json::object metadata() const {
        return json::object{{"issuer", base()},
                            {"authorization_endpoint", base() + "/authorize"},
                            {"token_endpoint", base() + "/token"},
                            {"registration_endpoint", base() + "/register"},
                            {"code_challenge_methods_supported", json::array{"S256"}}};
    }

    // Overrides by path: status and body.
    std::function<std::pair<int, std::string>(const RecordedRequest&)> on_metadata = [this](const RecordedRequest&) {
        return std::pair<int, std::string>{200, json::serialize(metadata())};
    };
    std::function<std::pair<int, std::string>(const RecordedRequest&)> on_token = [](const RecordedRequest& request) {
        const bool refresh = request.body.find("grant_type=refresh_token") != std::string::npos;
        return std::pair<int, std::string>{
            200, json::serialize(json::object{{"access_token", refresh ? "refreshed-token" : "fresh-token"},
                                              {"token_type", "Bearer"},
                                              {"refresh_token", "refresh-2"}})};
    };
    std::string prm_resource;  // "" = the resource itself
    bool prm_without_servers = false;
    std::string redirect_extra;  // appended to the redirect's query
    std::string redirect_base;   // "" = the redirect_uri asked for

private:
    void handle(const RecordedRequest& request, Connection& connection) {
        const std::string path = request.target.substr(0, request.target.find('?'));
        {
            std::lock_guard lock(mutex_);
            ++hits_[path];
        }
        if (path == "/.well-known/oauth-protected-resource/mcp") {
            json::object prm{{"resource", prm_resource.empty() ? resource() : prm_resource}};
            if (!prm_without_servers) prm["authorization_servers"] = json::array{base()};
            connection.respond(200, json::serialize(prm));
        } else if (path == "/.well-known/oauth-authorization-server") {
            auto [status, body] = on_metadata(request);
            connection.respond(status, body);
        } else if (path == "/register") {
            connection.respond(201, R"({"client_id":"registered"})");
        } else if (path == "/authorize") {
            const std::size_t at = request.target.find("state=");
            const std::string state = request.target.substr(at + 6, request.target.find('&', at) - at - 6);
            const std::size_t r = request.target.find("redirect_uri=");
            std::string redirect = request.target.substr(r + 13, request.target.find('&', r) - r - 13);
            for (std::size_t p; (p = redirect.find("%3A")) != std::string::npos;) redirect.replace(p, 3, ":");
            for (std::size_t p; (p = redirect.find("%2F")) != std::string::npos;) redirect.replace(p, 3, "/");
            const std::string base = redirect_base.empty() ? redirect : redirect_base;
            connection.respond(302, "", "text/plain",
                               {{"Location", base + "?code=the-code&state=" + state + redirect_extra}});
        } else if (path == "/token") {
            auto [status, body] = on_token(request);
            connection.respond(status, body);
        } else {
            connection.respond(404, "{}");
        }
    }

    mutable std::mutex mutex_;
    std::map<std::string, int> hits_;
    LoopbackServer server_;
};

// The browser of a person who consents at once: the redirect's Location.
Result<std::string> consenting_browser(const std::string& url, Clock::time_point) {
    // The fake server's /authorize is read by a plain HTTP GET; its Location is the answer.
    auto reply =
        get_json(url, "the authorization page", Clock::now() + std::chrono::seconds(5), errors::kOauthFlowFailed);
    if (!reply) return reply.error();
    return reply->location;
}

class OAuthAuthorizerTest : public ::testing::Test {
protected:
    FakeAuthorizationServer as;

    AuthorizerOptions options(bool with_browser = true) {
        AuthorizerOptions o;
        o.server_url = as.resource();
        o.label = "the test server";
        o.identity.redirect_uri = "http://127.0.0.1:9/callback";
        if (with_browser) o.user_agent = consenting_browser;
        o.login_hint = "skillhost oauth login test";
        return o;
    }
    upstream::HttpRefusal refusal(int status = 401, std::string header = {}, std::string authorization = {}) {
        if (header.empty())
            header = "Bearer error=\"invalid_token\", resource_metadata=\"" + as.base() +
                     "/.well-known/oauth-protected-resource/mcp\"";
        return upstream::HttpRefusal{status, header, as.resource(), std::move(authorization)};
    }
    static Clock::time_point soon() { return Clock::now() + std::chrono::seconds(10); }
};

TEST_F(OAuthAuthorizerTest, TheWholeFlowEndsWithABearerTokenForTheResource) {
    OAuthAuthorizer authorizer(options());
    ASSERT_TRUE(authorizer.answer(refusal(), soon()));
    EXPECT_EQ(authorizer.authorization(), "Bearer fresh-token");
    EXPECT_EQ(as.count("/register"), 1);
    EXPECT_EQ(as.count("/authorize"), 1);
    EXPECT_EQ(as.count("/token"), 1);
    EXPECT_EQ(authorizer.grant()->client.client_id, "registered");
}

TEST_F(OAuthAuthorizerTest, AServerWithoutS256OrWithAnotherIssuerIsNotAuthorizedWith) {
    as.on_metadata = [this](const RecordedRequest&) {
        json::object m = as.metadata();
        m["code_challenge_methods_supported"] = json::array{"plain"};
        return std::pair<int, std::string>{200, json::serialize(m)};
    };
    OAuthAuthorizer plain(options());
    auto refused = plain.answer(refusal(), soon());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errors::kOauthUnsafeServer)) << refused.error().message;
    EXPECT_NE(refused.error().message.find("S256"), std::string::npos);

    as.on_metadata = [this](const RecordedRequest&) {
        json::object m = as.metadata();
        m["issuer"] = "https://elsewhere.example";
        return std::pair<int, std::string>{200, json::serialize(m)};
    };
    OAuthAuthorizer mixed(options());
    refused = mixed.answer(refusal(), soon());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errors::kOauthUnsafeServer)) << refused.error().message;
    EXPECT_EQ(as.count("/register") + as.count("/authorize") + as.count("/token"), 0);
}

TEST_F(OAuthAuthorizerTest, MetadataCannotSendTheFlowInTheClearOrIntoTheHostsNetwork) {
    for (const char* endpoint : {"token_endpoint", "authorization_endpoint", "registration_endpoint"}) {
        as.on_metadata = [this, endpoint](const RecordedRequest&) {
            json::object m = as.metadata();
            m[endpoint] = "http://169.254.169.254/latest";
            return std::pair<int, std::string>{200, json::serialize(m)};
        };
        OAuthAuthorizer authorizer(options());
        auto refused = authorizer.answer(refusal(), soon());
        ASSERT_FALSE(refused) << endpoint;
        EXPECT_TRUE(refused.error().is(errors::kOauthUnsafeServer)) << refused.error().message;
        EXPECT_NE(refused.error().message.find(endpoint), std::string::npos) << refused.error().message;
    }
    EXPECT_EQ(as.count("/register") + as.count("/authorize") + as.count("/token"), 0);
    // A challenge pointing the resource metadata elsewhere in the clear is not followed either.
    OAuthAuthorizer authorizer(options());
    auto refused =
        authorizer.answer(refusal(401, "Bearer resource_metadata=\"http://10.1.2.3/.well-known/x\""), soon());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errors::kOauthUnsafeServer)) << refused.error().message;
}

TEST_F(OAuthAuthorizerTest, DiscoveryThatFailsSaysWhatWasAskedAndWhatCameBack) {
    as.on_metadata = [](const RecordedRequest&) {
        return std::pair<int, std::string>{200, "{\"issuer\":\"" + std::string(300 * 1024, 'x') + "\"}"};
    };
    OAuthAuthorizer huge(options());
    auto refused = huge.answer(refusal(), soon());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errors::kOauthDiscoveryFailed)) << refused.error().message;

    as.on_metadata = [](const RecordedRequest&) { return std::pair<int, std::string>{404, "{}"}; };
    OAuthAuthorizer missing(options());
    refused = missing.answer(refusal(), soon());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errors::kOauthDiscoveryFailed));
    EXPECT_NE(refused.error().message.find("openid-configuration"), std::string::npos) << refused.error().message;

    as.prm_without_servers = true;
    OAuthAuthorizer nowhere(options());
    refused = nowhere.answer(refusal(), soon());
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("authorization_servers"), std::string::npos) << refused.error().message;

    as.prm_without_servers = false;
    as.prm_resource = "https://evil.example/mcp";
    OAuthAuthorizer mismatch(options());
    refused = mismatch.answer(refusal(), soon());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errors::kOauthResourceMismatch));
    EXPECT_EQ(as.count("/authorize"), 0);
}

TEST_F(OAuthAuthorizerTest, ATokenEndpointThatRefusesOrAnswersNonsenseIsTheCallsError) {
    as.on_token = [](const RecordedRequest&) {
        return std::pair<int, std::string>{400, R"({"error":"invalid_grant","error_description":"code used"})"};
    };
    OAuthAuthorizer refusing(options());
    auto refused = refusing.answer(refusal(), soon());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errors::kOauthTokenFailed));
    EXPECT_NE(refused.error().message.find("invalid_grant: code used"), std::string::npos) << refused.error().message;

    for (const char* nonsense :
         {"not json", R"({"token_type":"Bearer"})", R"({"access_token":"t","token_type":"MAC"})"}) {
        as.on_token = [nonsense](const RecordedRequest&) { return std::pair<int, std::string>{200, nonsense}; };
        OAuthAuthorizer odd(options());
        refused = odd.answer(refusal(), soon());
        ASSERT_FALSE(refused) << nonsense;
        EXPECT_TRUE(refused.error().is(errors::kOauthTokenFailed)) << nonsense;
        EXPECT_EQ(odd.authorization(), "") << nonsense;
    }
}

TEST_F(OAuthAuthorizerTest, ARedirectElsewhereOrFromAnotherIssuerIsNotUsed) {
    as.redirect_base = "http://127.0.0.1:9/other";
    OAuthAuthorizer elsewhere(options());
    auto refused = elsewhere.answer(refusal(), soon());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errors::kOauthAuthorizationDenied)) << refused.error().message;

    as.redirect_base.clear();
    as.redirect_extra = "&iss=https%3A%2F%2Fattacker.example";
    OAuthAuthorizer mixed(options());
    refused = mixed.answer(refusal(), soon());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errors::kOauthAuthorizationDenied));
    EXPECT_NE(refused.error().message.find("RFC 9207"), std::string::npos) << refused.error().message;
    EXPECT_EQ(as.count("/token"), 0) << "no code of an unverified redirect is exchanged";
}

TEST_F(OAuthAuthorizerTest, WithoutABrowserTheUserIsToldHowToAuthorizeAndNothingIsRegistered) {
    OAuthAuthorizer headless(options(false));
    auto refused = headless.answer(refusal(), soon());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errors::kOauthAuthorizationRequired));
    EXPECT_NE(refused.error().message.find("skillhost oauth login test"), std::string::npos);
    EXPECT_EQ(as.count("/register"), 0);
}

TEST_F(OAuthAuthorizerTest, AForbiddenRequestThatAsksForNoScopeStartsNoFlow) {
    OAuthAuthorizer authorizer(options());
    auto refused = authorizer.answer(refusal(403, "Bearer error=\"access_denied\""), soon());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errors::kOauthAuthorizationDenied));
    EXPECT_EQ(as.count("/.well-known/oauth-authorization-server"), 0);
}

TEST_F(OAuthAuthorizerTest, ConcurrentRefusalsOfOneExpiredTokenShareOneRefresh) {
    AuthorizerOptions o = options(false);
    Grant held;
    held.client = {as.base(), "registered", "", "none"};
    held.tokens = {"expired-token", "refresh-1", "", 0};
    o.grant = held;
    std::atomic<int> kept{0};
    o.on_grant = [&kept](const Grant&) { ++kept; };
    OAuthAuthorizer authorizer(o);
    std::vector<std::thread> callers;
    std::atomic<int> answered{0};
    for (int i = 0; i < 8; ++i)
        callers.emplace_back([&] {
            if (authorizer.answer(refusal(401, {}, "Bearer expired-token"), soon())) ++answered;
        });
    for (auto& caller : callers) caller.join();
    EXPECT_EQ(answered.load(), 8);
    EXPECT_EQ(as.count("/token"), 1);
    EXPECT_EQ(kept.load(), 1);
    EXPECT_EQ(authorizer.authorization(), "Bearer refreshed-token");
    EXPECT_EQ(authorizer.grant()->tokens.refresh_token, "refresh-2");  // rotated
}

TEST_F(OAuthAuthorizerTest, AGrantKeptElsewhereIsTakenUpWithoutAFlow) {
    AuthorizerOptions o = options(false);
    Grant newer;
    newer.client = {as.base(), "registered", "", "none"};
    newer.tokens = {"logged-in-elsewhere", "", "", 0};
    o.reload = [newer] { return std::optional<Grant>(newer); };
    OAuthAuthorizer authorizer(o);
    ASSERT_TRUE(authorizer.answer(refusal(), soon()));
    EXPECT_EQ(authorizer.authorization(), "Bearer logged-in-elsewhere");
    EXPECT_EQ(as.count("/token") + as.count("/authorize"), 0);
}

}  // namespace
}  // namespace skillhost::oauth
