// The official MCP conformance suite's client scenarios (@modelcontextprotocol/conformance, pinned
// in tests/mcp/conformance/package.json) against skillhost's upstream side: for each scenario the
// suite starts its server and runs skillhost_mcp_conformance_client with its URL (McpClient over
// the Streamable HTTP transport). A scenario passes when the suite says so (no check failed or
// warned, the client exited 0). Which scenarios apply and which do not: docs/gateway.md.
#include "support/conformance_checks.hpp"
#include "support/subprocess.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>

namespace skillhost::testing {
namespace {

namespace fs = std::filesystem;

// The checks of the scenario's results that failed or warned ("" when none).
std::string problems_in(const fs::path& results) {
    if (!fs::exists(results)) return "no results were written";
    // <results>/<scenario>-<time>/checks.json; an auth/ scenario's one level deeper.
    std::string problems;
    int read = 0;
    for (const auto& entry : fs::recursive_directory_iterator(results)) {
        if (entry.path().filename() != "checks.json") continue;
        problems += failed_checks(entry.path());
        ++read;
    }
    return read > 0 ? problems : "no checks.json was written";
}

class ClientConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(ClientConformance, ScenarioPasses) {
    const std::string scenario = GetParam();
    const fs::path out = fs::path(SKILLHOST_CLIENT_CONFORMANCE_OUT) / scenario;
    auto r = run_process({"/bin/sh", SKILLHOST_CLIENT_CONFORMANCE_SCRIPT, SKILLHOST_MCP_CONFORMANCE_CACHE, out.string(),
                          SKILLHOST_CONFORMANCE_CLIENT, scenario},
                         {}, {}, 110000);
    if (r.exit_code == 77) GTEST_SKIP() << "npm is not installed (outside CI only): " << r.err;
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(problems_in(out / "results"), "") << r.out << r.err;
}

// Every client scenario of 0.1.16: the four of a plain session, and the 22 auth/ ones, which the
// session passes with skillhost's OAuth client (host/oauth): discovery in its variants (path-based
// and root resource metadata, RFC 8414 and OpenID Connect, issuers with a path, the 2025-03-26
// fallbacks), client registration (dynamic, beforehand, a client ID metadata document), scope
// selection and step-up with its limit, the three token endpoint authentications, a resource that
// is not the server (refused), offline access, and the extensions (client credentials with a
// secret or a signed JWT, enterprise-managed authorization through an identity provider).
INSTANTIATE_TEST_SUITE_P(McpClientScenarios, ClientConformance,
                         ::testing::Values("initialize", "tools_call", "elicitation-sep1034-client-defaults",
                                           "sse-retry", "auth/metadata-default", "auth/metadata-var1",
                                           "auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd",
                                           "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
                                           "auth/scope-omitted-when-undefined", "auth/scope-step-up",
                                           "auth/scope-retry-limit", "auth/token-endpoint-auth-basic",
                                           "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
                                           "auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
                                           "auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch",
                                           "auth/offline-access-scope", "auth/offline-access-not-supported",
                                           "auth/client-credentials-jwt", "auth/client-credentials-basic",
                                           "auth/cross-app-access-complete-flow"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                             std::string name;
                             for (const char c : param.param)
                                 name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                             return name;
                         });

}  // namespace
}  // namespace skillhost::testing
