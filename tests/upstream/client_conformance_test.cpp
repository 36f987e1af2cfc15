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
    std::string problems;
    for (const auto& entry : fs::directory_iterator(results)) problems += failed_checks(entry.path() / "checks.json");
    return problems;
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

// The client scenarios of 0.1.16 that apply to a client connecting to servers (the auth/ ones do
// not: skillhost's upstream has no OAuth client; docs/gateway.md).
INSTANTIATE_TEST_SUITE_P(McpClientScenarios, ClientConformance,
                         ::testing::Values("initialize", "tools_call", "elicitation-sep1034-client-defaults",
                                           "sse-retry"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                             std::string name;
                             for (const char c : param.param)
                                 name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                             return name;
                         });

}  // namespace
}  // namespace skillhost::testing
