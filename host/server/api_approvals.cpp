// /v1/approvals: list, show, approve (runs the call; a waiting operator run resumes), reject.
#include "server/api_decision_listing.hpp"
#include "server/api_services.hpp"
#include "server/error_codes.hpp"

#include "app/approval_actions.hpp"

#include <boost/json.hpp>

namespace skillhost::server {

namespace json = boost::json;

namespace {

Reply approve(ApiServices& s, ApiRequest& req) {
    req.allow_query({});
    allow_fields(req.json_body(), {});
    const std::string id = req.param("id");
    (void)visible_decision<decisions::ApprovalRecord>(s, req, id);
    auto resolution = app::approve_and_resume(s.host, id, *req.user, hub_resumer(s, &RunHub::resume_after_approval));
    if (!resolution) throw ApiFailure(resolution.error());
    return json_response(http::status::ok, resolution->to_json());
}

Reply reject(ApiServices& s, ApiRequest& req) {
    req.allow_query({});
    json::object body = req.json_body();
    const std::string reason = decision_reason(body, "say why the call is refused (the requester sees it)");
    const std::string id = req.param("id");
    (void)visible_decision<decisions::ApprovalRecord>(s, req, id);
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
    add_decision_read_routes<decisions::ApprovalRecord, decisions::ApprovalState>(routes, s, "approvals");
    routes.add(http::verb::post, "/v1/approvals/{id}/approve", [&s](ApiRequest& req) { return approve(s, req); });
    routes.add(http::verb::post, "/v1/approvals/{id}/reject", [&s](ApiRequest& req) { return reject(s, req); });
}

}  // namespace skillhost::server
