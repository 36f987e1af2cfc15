// GET /v1/approvals and GET /v1/elicitations read their query and answer the same way, for any kind
// of pending decision: `state` (pending by default, one of the kind's states, or all), `user`
// (another user's only for an owner; FORBIDDEN otherwise) and `limit` (1 to 1000, default 100);
// the answer is {<key>: [record, ...]}, newest first.
#pragma once

#include "server/api_error.hpp"
#include "server/api_request.hpp"
#include "server/error_codes.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace skillhost::server {

// The kind's filter from the request's query; `parse_state` reads one of the kind's states,
// `states` lists them for the error, `plural` names the kind ("approvals").
template <class Filter, class ParseState>
Filter decision_filter_from(const ApiRequest& req, ParseState parse_state, std::string_view states,
                            std::string_view plural) {
    req.allow_query({"state", "user", "limit"});
    Filter filter;
    filter.limit = static_cast<std::size_t>(req.query_int("limit", 1, 1000).value_or(100));
    const std::string state = req.query_string("state").value_or("pending");
    if (state != "all") {
        auto parsed = parse_state(state);
        if (!parsed) {
            Error e{errors::kInvalidQuery,
                    "state must be " + std::string(states) + " or all, not '" + state.substr(0, 40) + "'",
                    {},
                    {}};
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
    return filter;
}

// {<key>: [each record's to_json()]}, or the listing's error thrown.
template <class Record>
boost::json::object decision_list_json(Result<std::vector<Record>> records, std::string_view key) {
    if (!records) throw ApiFailure(records.error());
    boost::json::array out;
    for (const auto& record : *records) out.push_back(record.to_json());
    return boost::json::object{{key, std::move(out)}};
}

}  // namespace skillhost::server
