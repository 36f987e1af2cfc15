// The secrets of a foreign server's instance: formatted into the variables or headers its
// declaration names, refused when the user has not set one, and redacted from what it sends back
// however deep it nests them, keys included.
#include "plugin/foreign_secrets.hpp"
#include "upstream/error_codes.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <map>

namespace skillhost::plugin {
namespace {
namespace json = boost::json;

class MapSecrets final : public SecretSource {
public:
    std::map<std::pair<std::string, std::string>, std::string> values;
    Result<std::optional<std::string>> secret(std::string_view user, std::string_view name) const override {
        const auto found = values.find({std::string(user), std::string(name)});
        if (found == values.end()) return std::optional<std::string>();
        return std::optional<std::string>(found->second);
    }
};

manifest::ForeignServer server_with_secrets() {
    manifest::ForeignServer server;
    server.name = "github";
    server.secrets.push_back({"GITHUB_TOKEN", "GITHUB_PERSONAL_ACCESS_TOKEN", "", "{value}"});
    server.secrets.push_back({"API_KEY", "", "Authorization", "Bearer {value}"});
    return server;
}

TEST(ForeignSecrets, EachSecretGoesWhereTheDeclarationSaysFormatted) {
    MapSecrets source;
    source.values[{"alice", "GITHUB_TOKEN"}] = "ghp_alice-token";
    source.values[{"alice", "API_KEY"}] = "key-of-alice-123";
    auto injected = inject_secrets(server_with_secrets(), &source, "alice", true);
    ASSERT_TRUE(injected) << injected.error().message;
    ASSERT_EQ(injected->env.size(), 1u);
    EXPECT_EQ(injected->env[0],
              std::make_pair(std::string("GITHUB_PERSONAL_ACCESS_TOKEN"), std::string("ghp_alice-token")));
    ASSERT_EQ(injected->headers.size(), 1u);
    EXPECT_EQ(injected->headers[0].second, "Bearer key-of-alice-123");
    EXPECT_FALSE(injected->fingerprint.empty());

    source.values[{"alice", "API_KEY"}] = "key-of-alice-456";
    auto changed = inject_secrets(server_with_secrets(), &source, "alice", true);
    ASSERT_TRUE(changed);
    EXPECT_NE(changed->fingerprint, injected->fingerprint);
}

TEST(ForeignSecrets, AMissingSecretIsRefusedForACallAndLeftOutOfTheListing) {
    MapSecrets source;
    source.values[{"alice", "GITHUB_TOKEN"}] = "ghp_alice-token";
    auto refused = inject_secrets(server_with_secrets(), &source, "alice", true);
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errors::kUpstreamSecretMissing));
    EXPECT_NE(refused.error().message.find("skillhost secrets set API_KEY --user alice"), std::string::npos)
        << refused.error().message;
    auto listing = inject_secrets(server_with_secrets(), &source, "alice", false);
    ASSERT_TRUE(listing);
    EXPECT_EQ(listing->left_out, std::vector<std::string>{"API_KEY"});
    EXPECT_EQ(listing->env.size(), 1u);
    EXPECT_TRUE(listing->headers.empty());
    // Without a source (or a user) nothing is injected.
    auto none = inject_secrets(server_with_secrets(), nullptr, "", false);
    ASSERT_TRUE(none);
    EXPECT_EQ(none->left_out.size(), 2u);
    EXPECT_TRUE(none->fingerprint.empty());
}

TEST(ForeignSecrets, ValuesAreRedactedEverywhereInWhatComesBack) {
    SecretRedactor redactor;
    redactor.add("SHORT", "abcdefgh");
    redactor.add("LONG", "abcdefgh-and-more");
    std::string text = "x abcdefgh-and-more y abcdefgh zabcdefghabcdefgh";
    redactor.redact(text);
    EXPECT_EQ(text, "x [secret LONG] y [secret SHORT] z[secret SHORT][secret SHORT]");

    json::value deep = json::object{{"content", json::array{json::object{{"text", "token=abcdefgh"}}}}};
    json::value* inner = &deep;
    for (int i = 0; i < 2000; ++i) inner = &(inner->as_object()["n"] = json::array{json::object{}}).as_array()[0];
    *inner = json::object{{"abcdefgh", "key holds it"}, {"v", "abcdefgh-and-more"}};
    redactor.redact(deep);
    const std::string out = json::serialize(deep);
    EXPECT_EQ(out.find("abcdefgh\""), std::string::npos);
    EXPECT_EQ(out.find("abcdefgh-"), std::string::npos);
    EXPECT_NE(out.find("\"[secret SHORT]\":\"key holds it\""), std::string::npos);
    EXPECT_NE(out.find("token=[secret SHORT]"), std::string::npos);

    Error error{errors::kUpstreamToolError, "bad token abcdefgh"};
    error.details["echo"] = "abcdefgh";
    error.suggestions.push_back("retry with abcdefgh");
    redactor.redact(error);
    EXPECT_EQ(error.message, "bad token [secret SHORT]");
    EXPECT_EQ(error.details["echo"], "[secret SHORT]");
    EXPECT_EQ(error.suggestions[0], "retry with [secret SHORT]");
}

}  // namespace
}  // namespace skillhost::plugin
