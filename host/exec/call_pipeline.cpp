#include "exec/call_pipeline.hpp"
#include "plugin/error_codes.hpp"
#include "policy/error_codes.hpp"

#include "catalog/catalog_render.hpp"
#include "exec/elicitation_pause.hpp"
#include "policy/call_authorization.hpp"
#include "policy/call_path_rules.hpp"

#include <spdlog/spdlog.h>

namespace skillhost::exec {

CallPipeline::CallPipeline(PipelineParts parts) : parts_(std::move(parts)) {}

plugin::Call CallPipeline::caller_for(const CallRequest& request) const {
    const auth::UserContext& user = request.user;
    // A user's workspace exists from their first call on, like their plugin data directories.
    if (!user.workspace.empty()) {
        if (auto ec = workspaces_->ensure(user.workspace.native()))
            spdlog::warn("cannot create the workspace {} of user {}: {}", user.workspace.string(), user.user_id,
                         ec.message());
    }
    plugin::Call c;
    c.user_id = user.user_id;
    c.cognitive_mode = auth::to_string(user.mode);
    c.workspace_root = user.workspace;
    c.idempotency_key = request.idempotency_key;
    if (auto run = request.requested_by.run_id()) c.run_id = std::move(*run);
    return c;
}

void CallPipeline::report_call(CallRequest& request, const SkillResult& result) const {
    if (parts_.observers) parts_.observers->for_each([&](CallObserver& o) { o.on_call(request.skill_id, result); });
    if (!parts_.audit) return;
    audit::SkillCallAudit a;
    a.user_id = std::move(request.user.user_id);
    a.skill_id = std::move(request.skill_id);
    a.call_id = result.call_id;
    a.requested_by = std::move(request.requested_by);
    a.arguments = std::move(request.args);
    a.duration = result.duration;
    a.ok = result.ok;
    if (!result.ok) a.error_code = result.error.code;
    if (auto st = parts_.audit->record_skill_call(a); !st) spdlog::warn("audit: {}", st.error().message);
}

CallOptions CallPipeline::with_path_rules(CallOptions options, const auth::UserContext& user,
                                          const manifest::SkillSpec& spec, const boost::json::value& args) const {
    CallOptions out = std::move(options);
    out.users_dir = parts_.users_dir;
    if (auto rules = policy::CallPathRules::for_call(*parts_.policy, user, spec, args)) {
        out.path_allowed = [rules](std::string_view path) { return rules->allows(path); };
    }
    return out;
}

auth::UserContext CallPipeline::current_user(const auth::UserContext& user) const {
    if (!parts_.resolve_user) return user;
    auto now = parts_.resolve_user(user.user_id);
    if (!now) return user;
    auth::UserContext out = auth::with_credential(std::move(now.value()), user.credential);
    // A narrower mode the caller chose (a run started in emulation) stays narrow.
    if (user.mode == auth::CognitiveMode::emulation) out.mode = auth::CognitiveMode::emulation;
    return out;
}

// A call refused before policy (unknown skill, invalid arguments) is audited too: a caller
// probing for skills or argument shapes leaves a trace. Only audited, not counted in the metrics:
// a client-chosen skill id must not become a metric label.
void CallPipeline::audit_refusal(const CallRequest& request, std::string_view step, const Error& error) const {
    if (!parts_.audit) return;
    boost::json::object fields;
    fields["user"] = request.user.user_id;
    fields["skill"] = request.skill_id;
    fields["mode"] = auth::to_string(request.user.mode);
    fields["outcome"] = "refused";
    fields["step"] = step;
    fields["code"] = error.code.str();
    fields["reason"] = error.message;
    fields["requested_by"] = request.requested_by.to_text();
    fields["arguments"] = request.args;
    if (auto st = parts_.audit->append("decision", std::move(fields)); !st)
        spdlog::warn("audit: {}", st.error().message);
}

std::shared_ptr<ElicitationPause> CallPipeline::pause_for(CallRequest& request) const {
    if (!parts_.elicitations) return nullptr;
    decisions::ElicitationAsk ask;
    ask.user_id = request.user.user_id;
    ask.skill_id = request.skill_id;
    ask.arguments = request.args;
    ask.requested_by = request.requested_by;
    ask.requested_token = request.user.credential.token_id;
    auto pause = std::make_shared<ElicitationPause>(*parts_.elicitations, std::move(ask), request.elicitation_answers);
    request.options.services = with_pause(pause, std::move(request.options.services));
    return pause;
}

void CallPipeline::settle_pause(const std::shared_ptr<ElicitationPause>& pause, CallOutcome& out) {
    if (!pause) return;
    auto queued = pause->queued();
    if (!queued) return;
    out.result = failed_call(out.result.skill_id, elicitation_required(*queued));
    out.elicitation_id = queued->id;
}

std::variant<CallPipeline::Admitted, CallOutcome> CallPipeline::admit(const catalog::CatalogSnapshot& catalog,
                                                                      const CallRequest& request) const {
    CallOutcome out;
    const catalog::CatalogEntry* entry = catalog.find(request.skill_id);
    if (!entry) {
        out.result = failed_call(request.skill_id, skill_not_found(catalog, request.skill_id));
        audit_refusal(request, "catalog", out.result.error);
        return out;
    }
    const manifest::SkillSpec& spec = *entry->spec;

    // Mode visibility and trust come before argument validation: a user must not learn the shape
    // of a skill their mode or trust hides (INVALID_ARGS would name its fields).
    if (!parts_.policy->is_visible(request.user, spec) || request.user.trust < spec.min_trust) {
        policy::Decision d = parts_.policy->decide(request.user, spec, request.args);
        if (parts_.audit) (void)policy::record_decision(*parts_.audit, d, request.args);
        out.result = failed_call(request.skill_id, d.to_error());
        out.decision = std::move(d);
        return out;
    }

    auto prepared = prepare_call(*entry, request.args);
    if (!prepared) {
        audit_refusal(request, "arguments", prepared.error());
        out.result = failed_call(request.skill_id, std::move(prepared.error()), &spec);
        return out;
    }

    auto auth = policy::authorize_call(*parts_.policy, *parts_.approvals, parts_.audit, request.user, spec,
                                       prepared->args(), request.requested_by);
    if (!auth) {
        // Neither queued nor audited: such a call must not run.
        out.result = failed_call(request.skill_id, auth.error());
        return out;
    }
    if (!auth->may_run()) {
        Error e = auth->error();
        if (auth->approval) {
            e.details["approval_id"] = auth->approval->id;
            e.details["preview"] = auth->approval->preview;
            out.approval_id = auth->approval->id;
        }
        out.result = failed_call(request.skill_id, std::move(e));
        out.decision = std::move(auth->decision);
        return out;
    }
    return Admitted{std::move(prepared.value()), std::move(auth->decision)};
}

CallOutcome CallPipeline::call(const catalog::CatalogSnapshot& catalog, const CallRequest& asked) const {
    // Mode and trust as they are now, not as when the session, run or resume began.
    CallRequest request = asked;
    request.user = current_user(asked.user);
    auto admitted = admit(catalog, request);
    if (auto* refused = std::get_if<CallOutcome>(&admitted)) return std::move(*refused);
    auto& run = std::get<Admitted>(admitted);
    const auto pause = pause_for(request);
    CallOutcome out;
    out.result = parts_.executor->run(
        run.call, caller_for(request),
        with_path_rules(std::move(request.options), request.user, run.call.spec(), run.call.args()));
    out.decision = std::move(run.decision);
    settle_pause(pause, out);
    report_call(request, out.result);
    return out;
}

void CallPipeline::start(const catalog::CatalogSnapshot& catalog, CallRequest request, OutcomeCompletion done,
                         RunOn where) const {
    // Mode and trust as they are now, not as when the session, run or resume began.
    request.user = current_user(request.user);
    auto admitted = admit(catalog, request);
    if (auto* refused = std::get_if<CallOutcome>(&admitted)) return done(std::move(*refused));
    auto& run = std::get<Admitted>(admitted);
    const auto pause = pause_for(request);
    plugin::Call caller = caller_for(request);
    CallOptions options = with_path_rules(std::move(request.options), request.user, run.call.spec(), run.call.args());
    parts_.executor->start(
        run.call, std::move(caller), std::move(options),
        [this, request = std::move(request), decision = std::move(run.decision), pause,
         done = std::move(done)](SkillResult result) mutable {
            CallOutcome out;
            out.result = std::move(result);
            out.decision = std::move(decision);
            settle_pause(pause, out);
            report_call(request, out.result);
            done(std::move(out));
        },
        where);
}

std::vector<const catalog::CatalogEntry*> CallPipeline::visible_entries(const catalog::CatalogSnapshot& catalog,
                                                                        const auth::UserContext& asked) const {
    const auth::UserContext user = current_user(asked);
    std::vector<const catalog::CatalogEntry*> out;
    for (const auto* e : catalog::all_entries(catalog)) {
        if (!parts_.policy->is_visible(user, *e->spec)) continue;
        if (user.trust < e->spec->min_trust) continue;  // the planner and MCP clients see only what may run
        out.push_back(e);
    }
    return out;
}

Result<ApprovalOutcome> CallPipeline::approve(const catalog::CatalogSnapshot& catalog, std::string_view approval_id,
                                              const decisions::Resolver& resolver) const {
    auto claim = parts_.approvals->claim_for_execution(approval_id, resolver);
    if (!claim) return claim.error();
    const decisions::ApprovalRecord& record = claim.value();

    // Anything that changed since the request (plugin gone, schema changed, trust lowered, a new
    // deny rule) fails the approval instead of running it.
    auto refuse = [&](Error error) -> Result<ApprovalOutcome> {
        auto done = parts_.approvals->complete(record.id, false, boost::json::object{{"error", error.to_json()}},
                                               "re-check at approval failed: " + error.code + ": " + error.message);
        if (!done) return done.error();
        return ApprovalOutcome{done.value(), failed_call(record.skill_id, std::move(error))};
    };

    auto prepared = prepare_call(catalog, record.skill_id, record.arguments);
    if (!prepared) {
        Error error = std::move(prepared.error());
        if (error.is(errors::kSkillNotFound)) {
            error.message += " (it is no longer loaded, so the approved call cannot run)";
            error.suggestions.push_back("reinstall the plugin that provides it, then request the action again");
        }
        return refuse(std::move(error));
    }
    auto user = parts_.resolve_user ? parts_.resolve_user(record.user_id)
                                    : Result<auth::UserContext>(Error{errors::kUserNotFound, "no user resolver"});
    if (!user) return refuse(user.error());
    policy::Decision decision = parts_.policy->decide(user.value(), prepared->spec(), prepared->args());
    if (parts_.audit) {
        // An unaudited call must not run, approved or not: the approval fails with the reason and
        // the approver is told why (the call can be requested again once the audit log is writable).
        if (auto st = policy::record_decision(*parts_.audit, decision, prepared->args()); !st) {
            Error error = st.error();
            auto failed = parts_.approvals->complete(
                record.id, false, boost::json::object{{"error", error.to_json()}},
                "not executed: its decision could not be audited: " + error.code + ": " + error.message);
            if (!failed)
                spdlog::warn("approval {} could not be marked failed after an audit failure: {}", record.id,
                             failed.error().message);
            error.details["approval_id"] = record.id;
            error.details["executed"] = false;
            return error;
        }
    }
    if (decision.denied()) return refuse(decision.to_error());

    CallRequest req;
    req.skill_id = record.skill_id;
    req.args = prepared->args();
    req.user = user.value();
    req.requested_by = auth::Requester::approval(record.id);
    req.idempotency_key = record.id;  // approving twice must not act twice
    plugin::Call caller = caller_for(req);
    // An approved action of an operator run is still that run's: its completions are audited under it.
    if (auto run = record.requested_by.run_id()) caller.run_id = std::move(*run);
    // A foreign tool's call runs only against the definition it was approved for.
    caller.definition_hash = record.definition_hash;
    SkillResult result = parts_.executor->run(
        prepared.value(), caller, with_path_rules(std::move(req.options), req.user, prepared->spec(), req.args));
    report_call(req, result);
    auto done = parts_.approvals->complete(record.id, result.ok, result.to_json(),
                                           result.ok ? "" : result.error.code + ": " + result.error.message);
    if (!done) {
        // The call did run: the approver must not be told only that storage failed (and retry).
        Error error = std::move(done.error());
        error.message = "approval " + record.id + " ran the call (" +
                        (result.ok ? std::string("ok") : result.error.code.str()) +
                        ") but its outcome could not be stored yet: " + error.message +
                        " (it is stored as soon as the database takes writes again; do not approve it again)";
        error.details["approval_id"] = record.id;
        error.details["executed"] = true;
        return error;
    }
    return ApprovalOutcome{done.value(), std::move(result)};
}

Result<decisions::ApprovalRecord> CallPipeline::reject(std::string_view approval_id,
                                                       const decisions::Resolver& resolver,
                                                       std::string_view reason) const {
    return parts_.approvals->reject(approval_id, resolver, reason);
}

}  // namespace skillhost::exec
