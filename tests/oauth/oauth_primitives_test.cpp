// The pieces of the OAuth client that need no server: reading a WWW-Authenticate challenge, the
// encodings, PKCE, the discovery URL orders the MCP spec gives, the
// resource comparison, the grant's JSON, the token endpoint authentication chosen, and client
// assertions a verifier accepts.
#include "oauth/base64.hpp"
#include "oauth/bearer_challenge.hpp"
#include "oauth/client_assertion.hpp"
#include "oauth/discovery.hpp"
#include "oauth/error_codes.hpp"
#include "oauth/form_encoding.hpp"
#include "oauth/grant.hpp"
#include "oauth/pkce.hpp"
#include "oauth/token_request.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <set>

namespace skillhost::oauth {
namespace {

namespace json = boost::json;

TEST(BearerChallenge, ReadsEveryParameterInAnyOrderAndSkipsOtherSchemes) {
    auto said = parse_bearer_challenge(
        R"(Bearer error="invalid_token", error_description="Missing Authorization header", scope="a b", )"
        R"(resource_metadata="http://h:1/.well-known/oauth-protected-resource/mcp")");
    ASSERT_TRUE(said);
    EXPECT_EQ(said->error, "invalid_token");
    EXPECT_EQ(said->error_description, "Missing Authorization header");
    EXPECT_EQ(said->scope, "a b");
    EXPECT_EQ(said->resource_metadata, "http://h:1/.well-known/oauth-protected-resource/mcp");

    said = parse_bearer_challenge(R"(Basic realm="x", Bearer scope="mcp:basic mcp:write", error="insufficient_scope")");
    ASSERT_TRUE(said);
    EXPECT_EQ(said->scope, "mcp:basic mcp:write");
    EXPECT_EQ(said->error, "insufficient_scope");

    // Another scheme's parameters after the Bearer challenge are not its own.
    said = parse_bearer_challenge(R"(bearer realm="api", DPoP algs="ES256", scope="not-this")");
    ASSERT_TRUE(said);
    EXPECT_EQ(said->scope, "");

    // Escapes in quoted strings, bare token values.
    said = parse_bearer_challenge(R"(Bearer error_description="say \"no\"", error=invalid_token)");
    ASSERT_TRUE(said);
    EXPECT_EQ(said->error_description, R"(say "no")");
    EXPECT_EQ(said->error, "invalid_token");
}

TEST(BearerChallenge, RefusesWhatIsNotABearerChallengeOrIsTooLong) {
    EXPECT_FALSE(parse_bearer_challenge(""));
    EXPECT_FALSE(parse_bearer_challenge(R"(Basic realm="x")"));
    EXPECT_FALSE(parse_bearer_challenge("Bearer scope=\"" + std::string(kMaxHeaderBytes, 'a') + "\""));
    // Garbage is stepped over in one pass, never loops.
    auto said = parse_bearer_challenge(std::string(4000, ',') + "Bearer " + std::string(3000, '"') + "=,=");
    ASSERT_TRUE(said);
    said = parse_bearer_challenge("Bearer scope=\"unterminated");
    ASSERT_TRUE(said);
    EXPECT_EQ(said->scope, "unterminated");
    // An over-long value is left out, the rest kept.
    said = parse_bearer_challenge("Bearer scope=\"" + std::string(kMaxParameterBytes + 1, 's') + "\", error=x");
    ASSERT_TRUE(said);
    EXPECT_EQ(said->scope, "");
    EXPECT_EQ(said->error, "x");
}

TEST(Encodings, Base64BothAlphabetsAndForms) {
    EXPECT_EQ(base64(""), "");
    EXPECT_EQ(base64("f"), "Zg==");
    EXPECT_EQ(base64("fo"), "Zm8=");
    EXPECT_EQ(base64("foo"), "Zm9v");
    EXPECT_EQ(base64("foob"), "Zm9vYg==");
    EXPECT_EQ(base64("\xfb\xff"), "+/8=");
    EXPECT_EQ(base64url("\xfb\xff"), "-_8");
    EXPECT_EQ(form_encode({{"a b", "c&d=e"}, {"redirect_uri", "http://h/cb?x=1"}}),
              "a%20b=c%26d%3De&redirect_uri=http%3A%2F%2Fh%2Fcb%3Fx%3D1");
    const FormFields back = query_of("http://localhost:3000/callback?x=1&code=abc%2Bd&state=s+t#frag");
    EXPECT_EQ(form_value(back, "code"), "abc+d");
    EXPECT_EQ(form_value(back, "state"), "s t");
    EXPECT_EQ(form_value(back, "x"), "1");
    EXPECT_EQ(form_value(back, "missing"), "");
    EXPECT_EQ(form_value(form_decode("bad=%zz&ok"), "bad"), "%zz");  // kept as written
}

TEST(Pkce, S256IsTheUnpaddedBase64urlOfTheVerifiersSha256) {
    // Computed independently: base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()) in Python.
    EXPECT_EQ(s256_challenge("dBjftJeZ4CVP-mJ92K27uhbUJU1p1r_wW1gFWFOEjXk"),
              "ngF5GsXcbwljx6u133FFr3Xht9xooA_DuaX_3QwODtc");
    std::set<std::string> seen;
    for (int i = 0; i < 20; ++i) {
        auto pkce = make_pkce();
        ASSERT_TRUE(pkce);
        EXPECT_EQ(pkce->verifier.size(), 43u);  // RFC 7636: 43..128 unreserved characters
        EXPECT_EQ(
            pkce->verifier.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"),
            std::string::npos);
        EXPECT_EQ(pkce->challenge, s256_challenge(pkce->verifier));
        EXPECT_TRUE(seen.insert(pkce->verifier).second);
    }
}

TEST(Discovery, ResourceMetadataUrlsFollowTheSpecOrder) {
    EXPECT_EQ(resource_metadata_urls("http://h:8/mcp", ""),
              (std::vector<std::string>{"http://h:8/.well-known/oauth-protected-resource/mcp",
                                        "http://h:8/.well-known/oauth-protected-resource"}));
    EXPECT_EQ(resource_metadata_urls("https://h/", ""),
              (std::vector<std::string>{"https://h/.well-known/oauth-protected-resource"}));
    // The challenge's URL alone: the well-known ones are not asked besides it.
    EXPECT_EQ(resource_metadata_urls("http://h:8/mcp", "http://h:8/custom.json"),
              (std::vector<std::string>{"http://h:8/custom.json"}));
}

TEST(Discovery, ServerMetadataUrlsInsertTheIssuersPath) {
    EXPECT_EQ(server_metadata_urls("https://as.example"),
              (std::vector<std::string>{"https://as.example/.well-known/oauth-authorization-server",
                                        "https://as.example/.well-known/openid-configuration"}));
    EXPECT_EQ(server_metadata_urls("https://as.example/tenant1/"),
              (std::vector<std::string>{"https://as.example/.well-known/oauth-authorization-server/tenant1",
                                        "https://as.example/.well-known/openid-configuration/tenant1",
                                        "https://as.example/tenant1/.well-known/openid-configuration"}));
    EXPECT_TRUE(server_metadata_urls("ftp://nope").empty());
}

TEST(Discovery, AResourceCoversItsServerOnlyOnTheSameOriginAndAPathPrefix) {
    EXPECT_EQ(canonical_resource("HTTPS://MCP.Example.com/mcp/#x"), "https://mcp.example.com/mcp");
    EXPECT_TRUE(resource_covers("http://localhost:9/mcp", "http://localhost:9/mcp"));
    EXPECT_TRUE(resource_covers("http://localhost:9", "http://localhost:9/mcp"));
    EXPECT_TRUE(resource_covers("http://LOCALHOST:9/", "http://localhost:9/mcp"));
    EXPECT_FALSE(resource_covers("https://evil.example.com/mcp", "http://localhost:9/mcp"));
    EXPECT_FALSE(resource_covers("http://localhost:9/mc", "http://localhost:9/mcp"));  // not a segment
    EXPECT_FALSE(resource_covers("http://localhost:10/mcp", "http://localhost:9/mcp"));
    EXPECT_FALSE(resource_covers("https://localhost:9/mcp", "http://localhost:9/mcp"));
    EXPECT_FALSE(resource_covers("http://localhost:9/mcp/deeper", "http://localhost:9/mcp"));
    EXPECT_FALSE(resource_covers("", "http://localhost:9/mcp"));
}

TEST(Discovery, OAuthRequestsGoOverHttpsOrToLoopbackOrTheServersOwnOrigin) {
    const std::string server = "http://mcp.lan:8080/mcp";
    EXPECT_TRUE(check_oauth_url("https://as.example/token", server, "its token_endpoint"));
    EXPECT_TRUE(check_oauth_url("http://localhost:9/token", server, "its token_endpoint"));
    EXPECT_TRUE(check_oauth_url("http://127.0.0.1:9/token", server, "its token_endpoint"));
    EXPECT_TRUE(check_oauth_url("http://mcp.lan:8080/oauth/token", server, "its token_endpoint"));
    for (const char* unsafe : {"http://169.254.169.254/latest/meta-data", "http://mcp.lan:8081/token",
                               "http://as.example/token", "file:///etc/passwd", "gopher://x/", "not a url"}) {
        const Status refused = check_oauth_url(unsafe, server, "its token_endpoint");
        ASSERT_FALSE(refused) << unsafe;
        EXPECT_TRUE(refused.error().is(errors::kOauthUnsafeServer));
        EXPECT_NE(refused.error().message.find("its token_endpoint"), std::string::npos);
    }
}

TEST(GrantJson, RoundTripsAndRefusesWhatItDidNotWrite) {
    Grant grant;
    grant.resource = "https://mcp.example/mcp";
    grant.client = {"https://as.example", "client-1", "s3cret", "client_secret_basic"};
    grant.tokens = {"access-1", "refresh-1", "read write", 1900000000};
    auto back = grant_from_json(json::parse(json::serialize(grant_to_json(grant))));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->resource, grant.resource);
    EXPECT_EQ(back->client.client_secret, "s3cret");
    EXPECT_EQ(back->client.auth_method, "client_secret_basic");
    EXPECT_EQ(back->tokens.refresh_token, "refresh-1");
    EXPECT_EQ(back->tokens.expires_at, 1900000000);
    for (const char* bad : {R"({})", R"([])", R"({"version":2,"client":{},"tokens":{}})", R"({"version":1})"}) {
        auto refused = grant_from_json(json::parse(bad));
        ASSERT_FALSE(refused) << bad;
        EXPECT_TRUE(refused.error().is(errors::kOauthFlowFailed));
    }
}

TEST(TokenEndpoint, TheClientAuthenticatesAsRegisteredElseAsTheServerOffers) {
    ServerMetadata server;
    ClientRegistration client{"i", "id", "secret", ""};
    EXPECT_EQ(token_auth_method(server, client), "client_secret_basic");  // RFC 8414's default
    server.token_endpoint_auth_methods_supported = {"client_secret_post"};
    EXPECT_EQ(token_auth_method(server, client), "client_secret_post");
    server.token_endpoint_auth_methods_supported = {"none"};
    EXPECT_EQ(token_auth_method(server, client), "none");  // a secret not asked for is not sent
    client.auth_method = "client_secret_basic";
    EXPECT_EQ(token_auth_method(server, client), "client_secret_basic");  // as registered
    EXPECT_EQ(token_auth_method(server, ClientRegistration{"i", "public", "", ""}), "none");
}

using KeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

KeyPtr make_key(bool ec) {
    std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> context(
        EVP_PKEY_CTX_new_id(ec ? EVP_PKEY_EC : EVP_PKEY_RSA, nullptr), EVP_PKEY_CTX_free);
    EVP_PKEY* key = nullptr;
    EXPECT_EQ(EVP_PKEY_keygen_init(context.get()), 1);
    if (ec)
        EXPECT_EQ(EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context.get(), NID_X9_62_prime256v1), 1);
    else
        EXPECT_EQ(EVP_PKEY_CTX_set_rsa_keygen_bits(context.get(), 2048), 1);
    EXPECT_EQ(EVP_PKEY_keygen(context.get(), &key), 1);
    return KeyPtr(key, EVP_PKEY_free);
}

std::string pem_of(EVP_PKEY* key) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
    EXPECT_EQ(PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr), 1);
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(size));
}

std::string unbase64url(std::string text) {
    for (char& c : text) c = c == '-' ? '+' : c == '_' ? '/' : c;
    while (text.size() % 4 != 0) text += '=';
    std::string out(text.size(), '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
    out.resize(static_cast<std::size_t>(n) - (text.ends_with("==") ? 2 : text.ends_with("=") ? 1 : 0));
    return out;
}

// Whether `jwt` verifies under `key`: what the authorization server does with the assertion.
bool verifies(const std::string& jwt, EVP_PKEY* key, bool ec) {
    const std::size_t last = jwt.rfind('.');
    const std::string input = jwt.substr(0, last);
    std::string signature = unbase64url(jwt.substr(last + 1));
    if (ec) {  // the JWS's R||S back into DER for OpenSSL
        if (signature.size() != 64) return false;
        ECDSA_SIG* sig = ECDSA_SIG_new();
        ECDSA_SIG_set0(sig, BN_bin2bn(reinterpret_cast<const unsigned char*>(signature.data()), 32, nullptr),
                       BN_bin2bn(reinterpret_cast<const unsigned char*>(signature.data()) + 32, 32, nullptr));
        unsigned char* der = nullptr;
        const int length = i2d_ECDSA_SIG(sig, &der);
        signature.assign(reinterpret_cast<char*>(der), static_cast<std::size_t>(length));
        OPENSSL_free(der);
        ECDSA_SIG_free(sig);
    }
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    EVP_DigestVerifyInit(context.get(), nullptr, EVP_sha256(), nullptr, key);
    return EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                            reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
}

TEST(ClientAssertion, Es256AndRs256AssertionsVerifyWithTheClaimsAServerChecks) {
    for (const bool ec : {true, false}) {
        KeyPtr key = make_key(ec);
        auto signer = client_assertion_signer(pem_of(key.get()), ec ? "ES256" : "RS256");
        ASSERT_TRUE(signer) << signer.error().message;
        auto jwt = (*signer)("client-7", "https://as.example");
        ASSERT_TRUE(jwt);
        EXPECT_TRUE(verifies(*jwt, key.get(), ec)) << (ec ? "ES256" : "RS256");
        const std::size_t dot = jwt->find('.');
        const json::value header = json::parse(unbase64url(jwt->substr(0, dot)));
        const json::value claims = json::parse(unbase64url(jwt->substr(dot + 1, jwt->rfind('.') - dot - 1)));
        EXPECT_EQ(header.at("alg").as_string(), ec ? "ES256" : "RS256");
        EXPECT_EQ(claims.at("iss").as_string(), "client-7");
        EXPECT_EQ(claims.at("sub").as_string(), "client-7");
        EXPECT_EQ(claims.at("aud").as_string(), "https://as.example");
        EXPECT_EQ(claims.at("exp").as_int64() - claims.at("iat").as_int64(), 300);
        EXPECT_NE((*signer)("client-7", "https://as.example").value(), *jwt);  // a fresh jti each time
        // A tampered assertion does not verify.
        std::string forged = *jwt;
        forged[dot + 3] = forged[dot + 3] == 'A' ? 'B' : 'A';
        EXPECT_FALSE(verifies(forged, key.get(), ec));
    }
}

TEST(ClientAssertion, RefusesKeysThatAreNotTheAlgorithmsOrNotKeys) {
    KeyPtr rsa = make_key(false);
    KeyPtr ec = make_key(true);
    for (auto [pem, algorithm] : std::vector<std::pair<std::string, std::string>>{{pem_of(rsa.get()), "ES256"},
                                                                                  {pem_of(ec.get()), "RS256"},
                                                                                  {"not a key", "ES256"},
                                                                                  {pem_of(ec.get()), "HS256"},
                                                                                  {std::string(70000, 'k'), "ES256"}}) {
        auto signer = client_assertion_signer(pem, algorithm);
        ASSERT_FALSE(signer) << algorithm;
        EXPECT_TRUE(signer.error().is(errors::kOauthFlowFailed));
        EXPECT_NE(signer.error().message.find(algorithm == "HS256" ? "ES256 or RS256" : "key"), std::string::npos)
            << signer.error().message;
    }
}

}  // namespace
}  // namespace skillhost::oauth
