// A tools/call through an MCP session alone: the line parsed, the call admitted and run through the
// pipeline on the calling thread (as the stdio reader runs it), the result rendered and the answer
// serialised, with no transport. Set against BM_PipelineEchoCallOnCallerThread (the same call
// without the session) and bench/mcp's CPU per call over stdio (the session plus the pipes), it
// says where a call's time goes (docs/performance.md).
#include "pipeline_fixture.hpp"

#include "mcp/mcp_session.hpp"
#include "reload/live_catalog.hpp"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using namespace skillhost;
using skillhost::bench::must;
using skillhost::bench::Pipeline;

struct Session {
    Pipeline p;
    std::unique_ptr<reload::LiveCatalog> catalog;
    std::unique_ptr<mcp::McpSession> session;
    std::size_t answers = 0;
    std::string last;

    Session() {
        reload::LiveCatalogOptions options;
        options.plugin_dirs = {std::filesystem::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / "echo"};
        options.loader = plugin::LoaderOptions{p.home.path() / "session-plugin-cache", {}};
        catalog = std::make_unique<reload::LiveCatalog>(std::move(options));
        catalog->rescan();
        mcp::McpSessionOptions session_options;
        // As `skillhost mcp` has it: a call runs on the thread that read it.
        session_options.reader_handover = [] { return std::function<void()>([] {}); };
        session = std::make_unique<mcp::McpSession>(*p.pipeline, *catalog, p.request.user, session_options,
                                                    [this](const mcp::OutgoingMessage& message) {
                                                        ++answers;
                                                        last = message.text;
                                                    });
        session->handle_line(
            R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
            R"("capabilities":{},"clientInfo":{"name":"bench","version":"1"}}})");
        session->handle_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    }
    ~Session() { session->close(); }
};

void BM_McpSessionEchoCall(benchmark::State& state) {
    Session s;
    const std::string line = R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo",)"
                             R"("arguments":{"text":"hello from the MCP benchmark"}}})";
    for (auto _ : state) {
        const std::size_t before = s.answers;
        s.session->handle_line(line);
        if (s.answers != before + 1 || s.last.find("\"isError\":true") != std::string::npos ||
            s.last.find("\"result\"") == std::string::npos) {
            state.SkipWithError(("the call was not answered on this thread, or failed: " + s.last).c_str());
            break;
        }
    }
}
BENCHMARK(BM_McpSessionEchoCall)->MeasureProcessCPUTime()->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
