// /v1/elicitations: a skill's questions that waited for their user (list, show), and the answer
// (POST /v1/elicitations/{id}), which runs the call that asked again with it and resumes the
// operator run that waited on it, if one did.
#include "server/api_services.hpp"
#include "server/error_codes.hpp"

#include "app/elicitation_actions.hpp"

#include <boost/json.hpp>

namespace skillhost::server {

namespace json = boost::json;

namespace {

Reply list_elicitations(ApiServices& s, ApiRequest& req) {
    req.allow_query({"state", "user", "limit"});
    decisions::ElicitationFilter filter;
    filter.limit = static_cast<std::size_t>(req.query_int("limit", 1, 1000).value_or(100));
    const std::string state = req.query_string("state").value_or("pending");
    if (state != "all") {
        auto parsed = decisions::parse_elicitation_state(state);
        if (!parsed) {
            Error e{errors::kInvalidQuery,
                    "state must be pending, answered, completed, failed, expired or all, not '" + state + "'",
                    {},
                    {}};
            e.details["parameter"] = "state";
            throw ApiFailure(std::move(e));
        }
        filter.states = {*parsed};
    }
    if (auto wanted_user = req.query_string("user")) {
        if (req.user->role != auth::Role::owner && *wanted_user != req.user->user_id) {
            Error e{errors::kForbidden, "only owners may list other users' elicitations", {}, {}};
            e.details["step"] = "role";
            throw ApiFailure(std::move(e));
        }
        filter.user_id = *wanted_user;
    }
    auto records = app::list_elicitations(s.host, *req.user, filter);
    if (!records) throw ApiFailure(records.error());
    json::array out;
    for (const auto& r : records.value()) out.push_back(r.to_json());
    return json_response(http::status::ok, json::object{{"elicitations", std::move(out)}});
}

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
    routes.add(http::verb::get, "/v1/elicitations", [&s](ApiRequest& req) { return list_elicitations(s, req); });
    routes.add(http::verb::get, "/v1/elicitations/{id}", [&s](ApiRequest& req) -> Reply {
        req.allow_query({});
        auto record = app::visible_elicitation(s.host, *req.user, req.param("id"));
        if (!record) throw ApiFailure(record.error());
        return json_response(http::status::ok, record->to_json());
    });
    routes.add(http::verb::post, "/v1/elicitations/{id}", [&s](ApiRequest& req) { return answer(s, req); });
}

}  // namespace skillhost::server
