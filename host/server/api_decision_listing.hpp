// GET /v1/approvals and GET /v1/elicitations (and one of each by id) read their query and answer the
// same way, for any kind of pending decision, through the app's decision views. The listing's
// query: `state` (pending by default, one of the kind's states, or all), `user` (another user's
// only for an owner; FORBIDDEN otherwise) and `limit` (1 to 1000, default 100); the answer is
// {<key>: [record, ...]}, newest first.
#pragma once

#include "app/decision_views.hpp"
#include "server/api_error.hpp"
#include "server/api_services.hpp"
#include "server/api_request.hpp"
#include "server/error_codes.hpp"
#include "server/route_table.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace skillhost::server {

// GET /v1/<plural>: `Record`'s kind, whose states are `State`, listed as the request's query asks.
template <class Record, decisions::KindState State>
Reply decision_list_reply(ApiServices& s, ApiRequest& req, std::string_view plural) {
    req.allow_query({"state", "user", "limit"});
    decisions::StateFilter<State> filter;
    filter.limit = static_cast<std::size_t>(req.query_int("limit", 1, 1000).value_or(100));
    const std::string state = req.query_string("state").value_or("pending");
    if (state != "all") {
        auto parsed = decisions::parse_state<State>(state);
        if (!parsed) {
            std::string states;
            for (const std::string_view word : decisions::state_words<State>()) states += std::string(word) + ", ";
            Error e{
                errors::kInvalidQuery, "state must be " + states + "or all, not '" + state.substr(0, 40) + "'", {}, {}};
            e.details["parameter"] = "state";
            throw ApiFailure(std::move(e));
        }
        filter.states = {*parsed};
    }
    if (auto wanted_user = req.query_string("user")) {
        if (req.user->role != auth::Role::owner && *wanted_user != req.user->user_id) {
            Error e{errors::kForbidden, "only owners may list other users' " + std::string(plural), {}, {}};
            e.details["step"] = "role";
            throw ApiFailure(std::move(e));
        }
        filter.user_id = *wanted_user;
    }
    auto records = app::list_decisions<Record>(s.host, *req.user, filter);
    if (!records) throw ApiFailure(records.error());
    boost::json::array out;
    for (const auto& record : *records) out.push_back(record.to_json());
    return json_response(http::status::ok, boost::json::object{{plural, std::move(out)}});
}

// The decision `id` of `Record`'s kind as the requester may see it, or the kind's NOT_FOUND thrown.
template <class Record>
Record visible_decision(ApiServices& s, const ApiRequest& req, std::string_view id) {
    auto record = app::visible_decision<Record>(s.host, *req.user, id);
    if (!record) throw ApiFailure(record.error());
    return std::move(record.value());
}

// The body's `reason` (its only field) of a rejection; FIELD_EMPTY, saying `what_to_say`, when blank.
inline std::string decision_reason(boost::json::object& body, std::string_view what_to_say) {
    allow_fields(body, {"reason"});
    std::string reason = *string_field(body, "reason", true);
    if (reason.find_first_not_of(" \t\r\n") == std::string::npos)
        throw bad_field(errors::kFieldEmpty, "reason", "field 'reason' is empty; " + std::string(what_to_say));
    return reason;
}

// GET /v1/<plural> (decision_list_reply) and GET /v1/<plural>/{id} for `Record`'s kind.
template <class Record, decisions::KindState State>
void add_decision_read_routes(RouteTable& routes, ApiServices& s, std::string_view plural) {
    const std::string path = "/v1/" + std::string(plural);
    routes.add(http::verb::get, path,
               [&s, plural](ApiRequest& req) { return decision_list_reply<Record, State>(s, req, plural); });
    routes.add(http::verb::get, path + "/{id}", [&s](ApiRequest& req) -> Reply {
        req.allow_query({});
        return json_response(http::status::ok, visible_decision<Record>(s, req, req.param("id")).to_json());
    });
}

}  // namespace skillhost::server
