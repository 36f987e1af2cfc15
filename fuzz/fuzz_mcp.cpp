// libFuzzer target: MCP (JSON-RPC 2.0) messages as a client sends them, one per line, into a real
// McpSession over a real (empty) catalog, policy engine, approval queue and audit log. Whatever
// arrives, the session answers with JSON-RPC or stays silent; it never crashes.
#include "exec/call_pipeline.hpp"
#include "exec/executor.hpp"
#include "mcp/mcp_session.hpp"
#include "decisions/approval_queue.hpp"
#include "audit/audit_log.hpp"
#include "policy/policy_engine.hpp"
#include "reload/live_catalog.hpp"

#include <boost/json/parse.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string_view>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace skillhost;

struct Host {
    fs::path dir;
    std::unique_ptr<policy::PolicyEngine> engine;
    std::unique_ptr<audit::AuditLog> audit;
    std::unique_ptr<decisions::ApprovalQueue> approvals;
    exec::Executor executor;
    std::unique_ptr<exec::CallPipeline> pipeline;
    std::unique_ptr<reload::LiveCatalog> catalog;

    Host() {
        dir = fs::temp_directory_path() / ("skillhost-fuzz-mcp-" + std::to_string(::getpid()));
        fs::create_directories(dir / "plugins");
        engine = std::make_unique<policy::PolicyEngine>(policy::PolicyConfig{});
        audit = std::move(require(audit::AuditLog::open(dir / "audit")));
        decisions::ApprovalQueueOptions qo;
        qo.audit = audit.get();
        approvals = std::move(require(decisions::ApprovalQueue::open(dir / "skillhost.db", qo)));
        exec::PipelineParts parts;
        parts.policy = engine.get();
        parts.approvals = approvals.get();
        parts.audit = audit.get();
        parts.executor = &executor;
        parts.users_dir = dir / "users";
        pipeline = std::make_unique<exec::CallPipeline>(std::move(parts));
        reload::LiveCatalogOptions co;
        co.plugin_dirs = {dir / "plugins"};
        co.loader.cache_dir = dir / "plugin-cache";
        fs::create_directories(co.loader.cache_dir);
        catalog = std::make_unique<reload::LiveCatalog>(co);
        catalog->rescan();
    }

    template <class T>
    static T require(Result<T> r) {
        if (!r) {
            std::fprintf(stderr, "fuzz_mcp: setup failed: %s\n", r.error().message.c_str());
            std::abort();
        }
        return std::move(r.value());
    }
};

Host& host() {
    static Host h;
    return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Host& h = host();
    auth::UserContext user;
    user.user_id = "fuzz";
    user.role = auth::Role::owner;
    user.workspace = h.dir / "workspace";
    mcp::McpSession session(*h.pipeline, *h.catalog, user, mcp::McpSessionOptions{}, [](const std::string& text) {
        boost::system::error_code ec;
        (void)boost::json::parse(text, ec);
        if (ec) {
            std::fprintf(stderr, "fuzz_mcp: the session sent something that is not JSON: %s\n", text.c_str());
            std::abort();
        }
    });
    // Each line is one message, as on the stdio transport.
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    while (!rest.empty()) {
        const auto newline = rest.find('\n');
        session.handle_line(rest.substr(0, newline));
        if (newline == std::string_view::npos) break;
        rest.remove_prefix(newline + 1);
    }
    session.close();
    return 0;
}
