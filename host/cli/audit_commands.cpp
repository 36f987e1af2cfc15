// `skillhost audit tail [--follow] [--user U] [--skill S] [--kind K] [--since T] [--grep TEXT] [--json]`.
#include "app/storage_schema.hpp"
#include "base/json_text.hpp"
#include "cli/cli_context.hpp"
#include "cli/output.hpp"
#include "audit/audit_reader.hpp"
#include "base/utc_time.hpp"

#include <boost/json/serialize.hpp>

#include <atomic>
#include <csignal>
#include <thread>
#include <iostream>

namespace skillhost::cli {
namespace {

std::atomic<bool> g_stop_follow{false};
extern "C" void on_interrupt(int) {
    g_stop_follow = true;
}

struct AuditArgs {
    std::string user, skill, kind, since, grep;
    bool follow = false;
    bool json = false;
    std::size_t lines = 50;
};

std::string field(const boost::json::object& r, const char* key) {
    auto it = r.find(key);
    if (it == r.end()) return {};
    return it->value().is_string() ? std::string(it->value().as_string()) : compact_json(it->value());
}

void print_record(const boost::json::object& r, bool json) {
    if (json) {
        std::cout << compact_json(r) << "\n";
        return;
    }
    std::cout << field(r, "ts") << "  " << field(r, "kind") << "  " << field(r, "user");
    for (const char* key : {"skill", "outcome", "step", "transition", "approval_id", "duration_ms", "role", "model"}) {
        std::string v = field(r, key);
        if (!v.empty()) std::cout << "  " << key << "=" << v;
    }
    std::cout << "\n";
}

int run_tail(CliContext& ctx, const AuditArgs& a) {
    auto cfg = ctx.load_config();
    if (!cfg) return fail_setup(cfg.error(), a.json);
    audit::AuditFilter filter;
    if (!a.user.empty()) filter.user = a.user;
    if (!a.skill.empty()) filter.skill = a.skill;
    if (!a.kind.empty()) filter.kind = a.kind;
    if (!a.since.empty()) {
        auto t = parse_time_or_age(a.since, std::chrono::system_clock::now());
        if (!t) return fail_setup(t.error(), a.json);
        filter.since = t.value();
    }
    if (!a.follow) {
        // Only the last `lines` records: read backwards, not the whole history.
        auto page = audit::read_audit_page(
            app::audit_source(cfg.value()), filter, a.lines,
            [&a](const boost::json::object& r) { return a.grep.empty() || audit::contains_text(r, a.grep); });
        if (!page) return fail_setup(page.error(), a.json);
        for (const auto& r : page->batch.records) print_record(r, a.json);
        for (const auto& p : page->batch.problems) std::cerr << "warning: " << p << "\n";
        return kExitOk;
    }
    auto tail = audit::AuditFollower::open(app::audit_source(cfg.value()), filter);
    if (!tail) return fail_setup(tail.error(), a.json);
    auto first = (*tail)->poll();
    if (!first) return fail_setup(first.error(), a.json);
    const auto& recs = first->records;
    const auto shown = [&a](const boost::json::object& r) { return a.grep.empty() || audit::contains_text(r, a.grep); };
    std::vector<const boost::json::object*> matching;
    for (const auto& r : recs)
        if (shown(r)) matching.push_back(&r);
    const std::size_t start = matching.size() > a.lines ? matching.size() - a.lines : 0;
    for (std::size_t i = start; i < matching.size(); ++i) print_record(*matching[i], a.json);
    for (const auto& p : first->problems) std::cerr << "warning: " << p << "\n";
    std::cout.flush();
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    while (!g_stop_follow) {
        auto batch = (*tail)->poll();
        if (!batch) return fail_setup(batch.error(), a.json);
        for (const auto& r : batch->records)
            if (shown(r)) print_record(r, a.json);
        std::cout.flush();
        for (int i = 0; i < 5 && !g_stop_follow; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return kExitOk;
}

}  // namespace

void register_audit_commands(CLI::App& app, CliContext& ctx) {
    auto* audit = app.add_subcommand("audit", "Read the audit log (decisions, skill calls, approvals, LLM calls)");
    audit->require_subcommand(1);
    auto a = std::make_shared<AuditArgs>();
    auto* tail = audit->add_subcommand("tail", "The latest audit records, optionally following new ones");
    tail->add_flag("--follow,-f", a->follow, "Keep printing new records until interrupted");
    tail->add_option("--user", a->user, "Only this user's records");
    tail->add_option("--skill", a->skill, "Only this skill (a glob such as fs_* works)");
    tail->add_option("--kind", a->kind,
                     "decision | skill_call | approval | elicitation | definition_change | llm_call | reload | "
                     "plugin_supervision | secret_set | secret_deleted")
        ->check(CLI::IsMember({"decision", "skill_call", "approval", "elicitation", "definition_change", "llm_call",
                               "reload", "plugin_supervision", "secret_set", "secret_deleted"}));
    tail->add_option("--since", a->since,
                     "From this time: 2026-11-21, 2026-11-21T12:00, or an age such as 15m, 2h, 7d");
    tail->add_option("--grep", a->grep,
                     "Only records whose JSON contains this text (plain text, not a pattern), e.g. a call id");
    tail->add_option("-n,--lines", a->lines, "How many of the latest records to print first")->capture_default_str();
    tail->add_flag("--json", a->json, "One JSON object per line");
    ctx.add_global_options(*tail);
    tail->callback([&ctx, a] { ctx.exit_code = run_tail(ctx, *a); });
}

}  // namespace skillhost::cli
