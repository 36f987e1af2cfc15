// /v1/elicitations: a skill's questions that waited for their user (list, show), and the answer
// (POST /v1/elicitations/{id}), which runs the call that asked again with it and resumes the
// operator run that waited on it, if one did.
#include "server/api_decision_listing.hpp"
#include "server/api_services.hpp"
#include "server/error_codes.hpp"

#include "app/elicitation_actions.hpp"

#include <boost/json.hpp>

namespace skillhost::server {

namespace json = boost::json;

namespace {

Reply answer(ApiServices& s, ApiRequest& req) {
    req.allow_query({});
    json::object body = req.json_body();
    allow_fields(body, {"action", "content"});
    auto given = decisions::parse_elicitation_answer(body);
    if (!given) throw ApiFailure(given.error());
    const app::WaitingRun waiting{[&s](const std::string& run_id) { return s.operators.runs->get(run_id); },
                                  hub_resumer(s, &RunHub::resume_after_input)};
    auto resolution = app::answer_and_resume(s.host, req.param("id"), *req.user, *given, waiting);
    if (!resolution) throw ApiFailure(resolution.error());
    return json_response(http::status::ok, resolution->to_json());
}

}  // namespace

void add_elicitation_routes(RouteTable& routes, ApiServices& s) {
    add_decision_read_routes<decisions::ElicitationRecord, decisions::ElicitationState>(routes, s, "elicitations");
    routes.add(http::verb::post, "/v1/elicitations/{id}", [&s](ApiRequest& req) { return answer(s, req); });
}

}  // namespace skillhost::server
