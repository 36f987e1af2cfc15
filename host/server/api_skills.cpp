// GET /v1/skills, GET /v1/skills/{id}, GET /v1/catalog, POST /v1/skills/{id}/call.
#include "catalog/catalog_render.hpp"
#include "server/api_services.hpp"
#include "server/http_server.hpp"
#include "plugin/error_codes.hpp"
#include "server/error_codes.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

namespace skillhost::server {

namespace json = boost::json;

namespace {

// What the user may see in their mode; with ?all=true (owners only) every loaded skill. A user
// never learns the shape of a skill their mode or trust hides.
std::vector<const catalog::CatalogEntry*> entries_for(ApiServices& s, const catalog::CatalogSnapshot& snap,
                                                      const ApiRequest& req) {
    if (req.query_flag("all")) {
        if (req.user->role != auth::Role::owner) {
            Error e{errors::kForbidden,
                    "only owners may list every skill (all=true); without it you see the skills you may call",
                    {},
                    {}};
            e.details["step"] = "role";
            throw ApiFailure(std::move(e));
        }
        return catalog::all_entries(snap);
    }
    return s.host.calls().visible_entries(snap, *req.user);
}

// Executed and failed: the call happened, its result is the error (200, ok:false). Not run at all:
// the status says why (404 unknown skill, 400 bad arguments, 403 refused, 202 queued for approval
// or stopped at a question for the user: answer it at /v1/elicitations/{id}). One failure of an
// executed call is the host's own: DATABASE_UNAVAILABLE, which the host's storage answers a plugin
// (skillhost.storage/1) while its database does not answer, so the skill could not act: 503, as
// for a call the host refused for that reason, and the client retries.
Response call_reply(const exec::CallOutcome& outcome) {
    const auto& result = outcome.result;
    if (result.ok) return json_response(http::status::ok, result.to_json());
    const bool executed =
        outcome.decision && !outcome.decision->denied() && !outcome.approval_id && !outcome.elicitation_id;
    if (executed && result.error.code == "DATABASE_UNAVAILABLE")
        return json_response(http::status::service_unavailable, result.to_json());
    if (executed) return json_response(http::status::ok, result.to_json());
    json::object out = result.to_json();
    if (outcome.approval_id) out["approval_id"] = *outcome.approval_id;
    if (outcome.elicitation_id) out["elicitation_id"] = *outcome.elicitation_id;
    return json_response(status_for(result.error), out);
}

Reply call_skill(ApiServices& s, ApiRequest& req) {
    req.allow_query({});
    auto idempotent = begin_idempotent(s, req, "call " + req.param("id"));
    if (idempotent.replay) return std::move(*idempotent.replay);
    const auto claim = idempotent.claim;
    // The answer, kept for a retry with the same key when the client sent one.
    const auto answer = [claim](Response r) { return claim ? claim->finish(std::move(r)) : r; };
    json::object body = req.json_body();
    allow_fields(body, {"args", "timeout_ms"});
    exec::CallRequest call;
    call.skill_id = req.param("id");
    call.user = *req.user;
    call.requested_by = auth::Requester::api();
    if (const auto* args = body.if_contains("args"); args && !args->is_null()) {
        if (!args->is_object())
            throw bad_field(errors::kFieldWrongType, "args",
                            "field 'args' must be a JSON object of the skill's arguments");
        call.args = *args;
    }
    // A client may shorten a call, never keep it past server.max_call_timeout_ms.
    if (auto timeout = int_field(body, "timeout_ms", 1, s.settings.max_call_timeout.count()))
        call.options.timeout = std::chrono::milliseconds(*timeout);
    call.options.cancel = s.stop_calls;
    // The plugin sees the client's key ("skillhost.idempotency/1"): a retried side effect is recognisable.
    if (claim) call.idempotency_key = "api:" + req.user->user_id + ":" + std::string(req.raw["Idempotency-Key"]);
    const auto snapshot = s.host.snapshot();

    // The handler's own thread runs the call (no hand-off to a worker). Should the plugin still be
    // running at its deadline (or when the server stops calls), the executor's watcher answers
    // through the early responder while this thread waits for the plugin. At most half of the
    // handler threads run calls like that at once; beyond, calls go to executor workers, so hung
    // plugins (or a serial skill's queue) can never hold every handler thread.
    std::atomic<unsigned>& running_here = s.calls_on_handler_threads;
    const unsigned limit = std::max(1u, s.host.config().server.handler_threads / 2);
    EarlyResponder respond = early_responder();
    if (!respond || running_here.fetch_add(1) >= limit) {
        if (respond) running_here.fetch_sub(1);
        return answer(call_reply(s.host.calls().call(*snapshot, call)));
    }
    struct Leaving {  // also when start() throws
        std::atomic<unsigned>& count;
        ~Leaving() { count.fetch_sub(1); }
    };
    std::optional<exec::CallOutcome> outcome;
    {
        const Leaving leaving{running_here};
        const auto here = std::this_thread::get_id();
        s.host.calls().start(
            *snapshot, std::move(call),
            [&outcome, here, respond, answer](exec::CallOutcome o) {
                if (std::this_thread::get_id() == here) {
                    outcome = std::move(o);
                    return;
                }
                // The watcher's thread, while this handler is still inside the plugin: nothing here may
                // touch the handler's stack, which goes away as soon as the plugin returns.
                respond(answer(call_reply(o)));
            },
            exec::RunOn::this_thread);
    }
    // Empty when the watcher answered early; the server then drops what this returns.
    return outcome ? Reply(answer(call_reply(*outcome))) : Reply(Response{});
}

}  // namespace

void add_skill_routes(RouteTable& routes, ApiServices& s) {
    routes.add(http::verb::get, "/v1/skills", [&s](ApiRequest& req) -> Reply {
        req.allow_query({"all"});
        const auto snapshot = s.host.snapshot();
        return json_response(http::status::ok, catalog::render_skill_list(*snapshot, entries_for(s, *snapshot, req)));
    });
    routes.add(http::verb::get, "/v1/skills/{id}", [&s](ApiRequest& req) -> Reply {
        req.allow_query({});
        const auto snapshot = s.host.snapshot();
        const auto* entry = snapshot->find(req.param("id"));
        if (entry && req.user->role != auth::Role::owner) {
            const auto visible = s.host.calls().visible_entries(*snapshot, *req.user);
            if (std::find(visible.begin(), visible.end(), entry) == visible.end()) entry = nullptr;
        }
        if (!entry) {
            Error e{errors::kSkillNotFound,
                    "no skill named '" + req.param("id") + "' is loaded",
                    {},
                    {"GET /v1/skills lists the skills you can call"}};
            e.details["skill"] = req.param("id");
            throw ApiFailure(std::move(e));
        }
        return json_response(http::status::ok, catalog::render_catalog_json({entry}).at(0));
    });
    routes.add(http::verb::get, "/v1/catalog", [&s](ApiRequest& req) -> Reply {
        req.allow_query({"format", "all"});
        const std::string name = req.query_string("format").value_or("json");
        const auto format = catalog::parse_render_format(name);
        if (!format) {
            Error e{
                errors::kInvalidQuery, "format must be text, json, openai, mcp or table, not '" + name + "'", {}, {}};
            e.details["parameter"] = "format";
            throw ApiFailure(std::move(e));
        }
        const auto snapshot = s.host.snapshot();
        std::string text = catalog::render_catalog(entries_for(s, *snapshot, req), *format);
        const bool is_json = *format == catalog::RenderFormat::json || *format == catalog::RenderFormat::openai ||
                             *format == catalog::RenderFormat::mcp;
        Response r = text_response(http::status::ok, std::move(text),
                                   is_json ? "application/json" : "text/plain; charset=utf-8");
        r.set("X-Catalog-Version", std::to_string(snapshot->version()));
        return r;
    });
    routes.add(http::verb::post, "/v1/skills/{id}/call", [&s](ApiRequest& req) { return call_skill(s, req); });
}

}  // namespace skillhost::server
