// /v1/audit: query the audit log with filters, or follow it as an event stream.
#include "app/storage_schema.hpp"
#include "audit/audit_reader.hpp"
#include "base/utc_time.hpp"
#include "server/api_services.hpp"
#include "server/error_codes.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <thread>

namespace skillhost::server {

namespace json = boost::json;

namespace {

// Non-owners see only their own records.
audit::AuditFilter audit_filter(const ApiRequest& req) {
    audit::AuditFilter filter;
    if (auto user = req.query_string("user")) filter.user = *user;
    if (req.user->role != auth::Role::owner) {
        if (filter.user && *filter.user != req.user->user_id) {
            Error e{errors::kForbidden, "only owners may read other users' audit records", {}, {}};
            e.details["step"] = "role";
            throw ApiFailure(std::move(e));
        }
        filter.user = req.user->user_id;
    }
    if (auto skill = req.query_string("skill")) filter.skill = *skill;
    if (auto kind = req.query_string("kind")) {
        if (*kind != "decision" && *kind != "skill_call" && *kind != "approval" && *kind != "llm_call" &&
            *kind != "reload" && *kind != "plugin_supervision" && *kind != "elicitation" &&
            *kind != "definition_change") {
            Error e{errors::kInvalidQuery,
                    "kind must be decision, skill_call, approval, elicitation, definition_change, llm_call, reload or "
                    "plugin_supervision, "
                    "not '" +
                        *kind + "'",
                    {},
                    {}};
            e.details["parameter"] = "kind";
            throw ApiFailure(std::move(e));
        }
        filter.kind = *kind;
    }
    if (auto since = req.query_string("since")) {
        auto t = parse_time_or_age(*since, std::chrono::system_clock::now());
        if (!t) {
            Error e = t.error();
            e.recode(errors::kInvalidQuery);
            e.details["parameter"] = "since";
            throw ApiFailure(std::move(e));
        }
        filter.since = t.value();
    }
    return filter;
}

Reply query_audit(ApiServices& s, ApiRequest& req) {
    req.allow_query({"user", "skill", "kind", "since", "limit"});
    const auto filter = audit_filter(req);
    // At most server.audit_page_limit records per request: older ones are reached with since.
    const std::int64_t page_limit = s.settings.audit_page_limit;
    const auto limit = static_cast<std::size_t>(
        req.query_int("limit", 1, page_limit).value_or(std::min<std::int64_t>(100, page_limit)));
    auto page = audit::read_audit_page(app::audit_source(s.host.config()), filter, limit);
    if (!page) throw ApiFailure(page.error());
    json::array out;
    for (auto& record : page->batch.records) out.push_back(std::move(record));
    json::array problems;
    for (const auto& p : page->batch.problems) problems.emplace_back(p);
    return json_response(
        http::status::ok,
        json::object{{"records", std::move(out)}, {"problems", std::move(problems)}, {"more", page->more}});
}

Reply follow_audit(ApiServices& s, ApiRequest& req) {
    req.allow_query({"user", "skill", "kind", "since"});
    audit::AuditFilter filter = audit_filter(req);
    if (!filter.since) filter.since = std::chrono::system_clock::now();
    StreamResponse stream;
    stream.produce = [source = app::audit_source(s.host.config()), filter](EventStreamWriter& writer) {
        auto tail = audit::AuditFollower::open(source, filter);
        if (!tail) {
            writer.send("error", json::serialize(json::object{{"error", tail.error().to_json()}}));
            return;
        }
        auto quiet_since = std::chrono::steady_clock::now();
        while (!writer.stopping()) {
            auto batch = (*tail)->poll();
            if (!batch) {
                writer.send("error", json::serialize(json::object{{"error", batch.error().to_json()}}));
                return;
            }
            for (const auto& record : batch->records) {
                if (!writer.send("audit", json::serialize(record))) return;
                quiet_since = std::chrono::steady_clock::now();
            }
            if (std::chrono::steady_clock::now() - quiet_since >= std::chrono::seconds(15)) {
                if (!writer.heartbeat()) return;
                quiet_since = std::chrono::steady_clock::now();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
    };
    return stream;
}

}  // namespace

void add_audit_routes(RouteTable& routes, ApiServices& s) {
    routes.add(http::verb::get, "/v1/audit", [&s](ApiRequest& req) { return query_audit(s, req); });
    routes.add(http::verb::get, "/v1/audit/stream", [&s](ApiRequest& req) { return follow_audit(s, req); });
}

}  // namespace skillhost::server
