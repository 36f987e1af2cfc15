// /v1/approvals: list, show, approve (runs the call; a waiting operator run resumes), reject.
#include "server/api_decision_listing.hpp"
#include "server/api_services.hpp"
#include "server/error_codes.hpp"

#include "app/approval_actions.hpp"

#include <boost/json.hpp>

namespace skillhost::server {

namespace json = boost::json;

namespace {

decisions::ApprovalRecord visible_approval(ApiServices& s, const ApiRequest& req, const std::string& id) {
    auto record = app::visible_approval(s.host, *req.user, id);
    if (!record) throw ApiFailure(record.error());
    return std::move(record.value());
}

Reply list_approvals(ApiServices& s, ApiRequest& req) {
    const auto filter = decision_filter_from<decisions::ApprovalFilter>(
        req, decisions::parse_approval_state, "pending, approved, executed, failed, rejected, expired", "approvals");
    return json_response(http::status::ok,
                         decision_list_json(app::list_approvals(s.host, *req.user, filter), "approvals"));
}

Reply approve(ApiServices& s, ApiRequest& req) {
    req.allow_query({});
    allow_fields(req.json_body(), {});
    const std::string id = req.param("id");
    (void)visible_approval(s, req, id);
    auto resolution = app::approve_and_resume(s.host, id, *req.user, hub_resumer(s, &RunHub::resume_after_approval));
    if (!resolution) throw ApiFailure(resolution.error());
    return json_response(http::status::ok, resolution->to_json());
}

Reply reject(ApiServices& s, ApiRequest& req) {
    req.allow_query({});
    json::object body = req.json_body();
    allow_fields(body, {"reason"});
    const std::string reason = *string_field(body, "reason", true);
    if (reason.find_first_not_of(" \t\r\n") == std::string::npos) {
        throw bad_field(errors::kFieldEmpty, "reason",
                        "field 'reason' is empty; say why the call is refused (the requester sees it)");
    }
    const std::string id = req.param("id");
    (void)visible_approval(s, req, id);
    auto resolution =
        app::reject_and_resume(s.host, id, *req.user, reason, hub_resumer(s, &RunHub::resume_after_approval));
    if (!resolution) throw ApiFailure(resolution.error());
    return json_response(http::status::ok, resolution->to_json());
}

}  // namespace

app::RunResumer hub_resumer(ApiServices& s, Status (RunHub::*resume)(const std::string& run_id)) {
    return [&s, resume](const std::string& run_id) {
        app::RunResumption resumption{run_id, std::nullopt, {}};
        if (auto st = (s.runs.*resume)(run_id); !st) {
            resumption.error = st.error();
            resumption.details = json::object{{"resumed", false}};
        } else {
            resumption.details =
                json::object{{"resumed", true}, {"status", "running"}, {"events", "/v1/runs/" + run_id + "/events"}};
        }
        return resumption;
    };
}

void add_approval_routes(RouteTable& routes, ApiServices& s) {
    routes.add(http::verb::get, "/v1/approvals", [&s](ApiRequest& req) { return list_approvals(s, req); });
    routes.add(http::verb::get, "/v1/approvals/{id}", [&s](ApiRequest& req) -> Reply {
        req.allow_query({});
        return json_response(http::status::ok, visible_approval(s, req, req.param("id")).to_json());
    });
    routes.add(http::verb::post, "/v1/approvals/{id}/approve", [&s](ApiRequest& req) { return approve(s, req); });
    routes.add(http::verb::post, "/v1/approvals/{id}/reject", [&s](ApiRequest& req) { return reject(s, req); });
}

}  // namespace skillhost::server
