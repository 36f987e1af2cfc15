// /v1/runs: start operator runs (optionally streaming their events), read, list, cancel, guide, resume.
#include "server/api_services.hpp"
#include "exec/error_codes.hpp"
#include "server/error_codes.hpp"
#include "store/error_codes.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <cstdlib>

namespace skillhost::server {

namespace json = boost::json;

namespace {

Error run_not_found(const std::string& id) {
    Error e{errors::kRunNotFound, "no run " + id, {}, {"GET /v1/runs lists your runs"}};
    e.details["run_id"] = id;
    return e;
}

// The run's record, or a minimal one while a just-started run is not stored yet. 404 also when
// the run belongs to someone else (a non-owner learns nothing about other users' runs).
json::object visible_run(ApiServices& s, const ApiRequest& req, const std::string& id) {
    auto run = s.operators.runs->get(id);
    if (run) {
        if (!may_see(*req.user, run->user_id)) throw ApiFailure(run_not_found(id));
        return run->to_json();
    }
    if (!run.error().is(errors::kRunNotFound)) throw ApiFailure(run.error());
    auto user = s.runs.user_of(id);
    if (!user || !may_see(*req.user, *user)) throw ApiFailure(run_not_found(id));
    return json::object{{"id", id}, {"user", *user}, {"status", "running"}};
}

json::object accepted(const std::string& id) {
    return json::object{{"run_id", id},
                        {"status", "running"},
                        {"links", json::object{{"self", "/v1/runs/" + id},
                                               {"events", "/v1/runs/" + id + "/events"},
                                               {"cancel", "/v1/runs/" + id + "/cancel"}}}};
}

Reply start_run(ApiServices& s, ApiRequest& req) {
    req.allow_query({});
    // A streamed start is not replayable (its answer is the stream): only plain starts take a key.
    IdempotentReplies::Begun idempotent;
    if (!req.wants_event_stream()) {
        idempotent = begin_idempotent(s, req, "runs");
        if (idempotent.replay) return std::move(*idempotent.replay);
    }
    json::object body = req.json_body();
    allow_fields(body, {"goal", "mode", "history", "max_steps"});
    const std::string goal = *string_field(body, "goal", true);
    if (goal.find_first_not_of(" \t\r\n") == std::string::npos)
        throw bad_field(errors::kFieldEmpty, "goal", "field 'goal' is empty; say what you want");
    auth::UserContext user = *req.user;
    if (auto mode = string_field(body, "mode", false)) {
        auto parsed = auth::parse_cognitive_mode(*mode);
        if (!parsed)
            throw bad_field(errors::kFieldInvalid, "mode",
                            "field 'mode' must be dual, agent or emulation, not '" + *mode + "'");
        // A run may narrow the user's mode (to emulation), never widen it: only owners choose freely.
        if (*parsed != user.mode && *parsed != auth::CognitiveMode::emulation && user.role != auth::Role::owner) {
            Error e{errors::kModeNotAllowed,
                    "user " + user.user_id + " is in " + auth::to_string(user.mode) +
                        " mode; a run may only narrow it to emulation",
                    {},
                    {"an owner can change the user's mode with `skillhost mode set`"}};
            e.details["field"] = "mode";
            e.details["step"] = "mode";
            throw ApiFailure(std::move(e));
        }
        user.mode = *parsed;
    }
    op::RunOptions options;
    if (const auto* history = body.if_contains("history"); history && !history->is_null()) {
        if (!history->is_array())
            throw bad_field(errors::kFieldWrongType, "history", "field 'history' must be an array of strings");
        for (const auto& turn : history->as_array()) {
            if (!turn.is_string())
                throw bad_field(errors::kFieldWrongType, "history", "every entry of 'history' must be a string");
            options.history.emplace_back(turn.as_string());
        }
    }
    if (auto steps = int_field(body, "max_steps", 1, 100)) options.max_steps = static_cast<int>(*steps);
    options.id = store::new_id("run");
    const std::string id = options.id;

    std::shared_ptr<EventChannel> channel;
    StreamSlot slot;
    if (req.wants_event_stream()) {
        // The stream's place is taken before the run starts: refused, nothing has started.
        auto admission = s.reserve_stream(user.user_id, StreamKind::lasting);
        if (!admission) {
            admission.error.suggestions.push_back(
                "start the run without Accept: text/event-stream and poll GET /v1/runs/{id}");
            throw ApiFailure(std::move(admission.error));
        }
        slot = std::move(admission.slot);
        channel = std::make_shared<EventChannel>();
    }
    // The hub sends accepted(id) as the run's first event (`run`), into its log too.
    auto started = s.runs.start(goal, user, std::move(options), channel, accepted(id));
    if (!started) throw ApiFailure(started.error());
    if (!channel) {
        Response r = json_response(http::status::accepted, accepted(id));
        return idempotent.claim ? idempotent.claim->finish(std::move(r)) : r;
    }
    StreamResponse stream = stream_channel(channel, true);
    stream.slot = std::move(slot);
    stream.headers.emplace_back("X-Run-Id", id);
    return stream;
}

Reply list_runs(ApiServices& s, ApiRequest& req) {
    req.allow_query({"status", "user", "limit"});
    store::RunFilter filter;
    filter.limit = static_cast<std::size_t>(req.query_int("limit", 1, 1000).value_or(50));
    if (auto status = req.query_string("status")) {
        filter.status = store::parse_run_status(*status);
        if (!filter.status) {
            Error e{errors::kInvalidQuery,
                    "status must be running, completed, awaiting_approval, awaiting_input, needs_guidance, failed, "
                    "cancelled or interrupted, not '" +
                        *status + "'",
                    {},
                    {}};
            e.details["parameter"] = "status";
            throw ApiFailure(std::move(e));
        }
    }
    auto wanted_user = req.query_string("user");
    if (req.user->role != auth::Role::owner) {
        if (wanted_user && *wanted_user != req.user->user_id) {
            Error e{errors::kForbidden, "only owners may list other users' runs", {}, {}};
            e.details["step"] = "role";
            throw ApiFailure(std::move(e));
        }
        filter.user_id = req.user->user_id;
    } else if (wanted_user) {
        filter.user_id = *wanted_user;
    }
    auto runs = s.operators.runs->list(filter);
    if (!runs) throw ApiFailure(runs.error());
    json::array out;
    for (const auto& run : runs.value()) {
        json::object o{{"id", run.id},
                       {"goal", run.goal},
                       {"user", run.user_id},
                       {"mode", run.mode},
                       {"status", store::to_string(run.status)},
                       {"steps", run.steps.size()},
                       {"created_ms", run.created_ms}};
        if (!run.approval_id.empty()) o["approval_id"] = run.approval_id;
        out.push_back(std::move(o));
    }
    return json_response(http::status::ok, json::object{{"runs", std::move(out)}});
}

Reply guide_run(ApiServices& s, ApiRequest& req) {
    req.allow_query({});
    const std::string id = req.param("id");
    (void)visible_run(s, req, id);
    json::object body = req.json_body();
    allow_fields(body, {"text"});
    std::string text = *string_field(body, "text", true);
    std::shared_ptr<EventChannel> channel;
    if (req.wants_event_stream()) {
        channel = std::make_shared<EventChannel>();
        channel->push(StreamEvent{"run", json::serialize(accepted(id))});
    }
    if (auto st = s.runs.guide(id, std::move(text), *req.user, channel); !st) throw ApiFailure(st.error());
    if (!channel) return json_response(http::status::accepted, accepted(id));
    return stream_channel(channel, true);
}

// The Last-Event-ID a reconnecting client sends: the number of the last event it got (0 if none).
std::int64_t last_event_id(const ApiRequest& req) {
    const std::string_view text = req.raw["Last-Event-ID"];
    if (text.empty()) return 0;
    const bool digits = text.size() <= 18 && text.find_first_not_of("0123456789") == std::string_view::npos;
    if (!digits) {
        Error e{errors::kInvalidLastEventId,
                "Last-Event-ID must be the id of an event of this stream (a number), not '" +
                    std::string(text.substr(0, 40)) + "'",
                {},
                {"send the id: field of the last event received, or no Last-Event-ID to start from the beginning"}};
        e.details["header"] = "Last-Event-ID";
        throw ApiFailure(std::move(e));
    }
    return std::strtoll(std::string(text).c_str(), nullptr, 10);
}

}  // namespace

void add_run_routes(RouteTable& routes, ApiServices& s) {
    routes.add(http::verb::post, "/v1/runs", [&s](ApiRequest& req) { return start_run(s, req); });
    routes.add(http::verb::get, "/v1/runs", [&s](ApiRequest& req) { return list_runs(s, req); });
    routes.add(http::verb::get, "/v1/runs/{id}", [&s](ApiRequest& req) -> Reply {
        req.allow_query({});
        return json_response(http::status::ok, visible_run(s, req, req.param("id")));
    });
    routes.add(http::verb::get, "/v1/runs/{id}/events", [&s](ApiRequest& req) -> Reply {
        req.allow_query({});
        (void)visible_run(s, req, req.param("id"));
        const std::int64_t client_has = last_event_id(req);
        auto channel = s.runs.attach(req.param("id"), client_has);
        if (!channel) throw ApiFailure(channel.error());
        return stream_channel(channel.value(), true, client_has);
    });
    routes.add(http::verb::post, "/v1/runs/{id}/cancel", [&s](ApiRequest& req) -> Reply {
        req.allow_query({});
        (void)visible_run(s, req, req.param("id"));
        auto result = s.runs.cancel(req.param("id"));
        if (!result) throw ApiFailure(result.error());
        return json_response(http::status::ok, result.value());
    });
    routes.add(http::verb::post, "/v1/runs/{id}/guidance", [&s](ApiRequest& req) { return guide_run(s, req); });
    // For a run nothing continues by itself: interrupted (on SQLite, where no sweeper resumes
    // runs), or waiting on an approval or question that ended without resuming it.
    routes.add(http::verb::post, "/v1/runs/{id}/resume", [&s](ApiRequest& req) -> Reply {
        req.allow_query({});
        const std::string id = req.param("id");
        (void)visible_run(s, req, id);
        if (auto st = s.runs.resume_stopped(id); !st) throw ApiFailure(st.error());
        return json_response(http::status::accepted, accepted(id));
    });
}

}  // namespace skillhost::server
