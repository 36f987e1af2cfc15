#include "operator/operator.hpp"
#include "operator/error_codes.hpp"

#include "llm/answer_instructions.hpp"
#include "operator/observation_format.hpp"
#include "operator/operator_session.hpp"
#include "operator/path_autofix.hpp"
#include "operator/planner_catalog.hpp"
#include "operator/planner_output.hpp"
#include "operator/planner_prompt.hpp"

#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

namespace skillhost::op {

namespace json = boost::json;
using store::RunStatus;

namespace {

std::int64_t micros_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
}

store::Observation observation_from_result(const exec::SkillResult& result, const std::string& tool,
                                           const OperatorConfig& config) {
    store::Observation obs;
    obs.mode = config.observation_mode;
    obs.success = result.ok;
    if (result.ok) {
        obs.raw = result.output;
        obs.content =
            limit_text(render_observation(config.observation_mode, tool, result.output), config.observation_max_chars);
    } else {
        obs.raw = result.error.to_json();
        obs.error = store::ObservationError{result.error.code.str(), result.error.message, result.error.suggestions};
        obs.content = "FAILED " + result.error.code + ": " + result.error.message;
    }
    return obs;
}

}  // namespace

Operator::Operator(OperatorParts parts) : parts_(std::move(parts)) {}

std::shared_ptr<const Operator::PlannerCatalog> Operator::planner_catalog(const catalog::CatalogSnapshot& catalog,
                                                                          const auth::UserContext& user) {
    const std::string key = std::to_string(catalog.version()) + "/" + auth::to_string(user.mode) + "/" +
                            manifest::to_string(user.trust) + "/" + user.user_id;
    {
        std::lock_guard lock(catalog_cache_mutex_);
        if (auto it = catalog_cache_.find(key); it != catalog_cache_.end()) return it->second;
    }
    std::vector<const catalog::CatalogEntry*> entries;
    for (const auto* entry : parts_.pipeline->visible_entries(catalog, user)) {
        if (entry->spec->id != kResponseSkill) entries.push_back(entry);
    }
    auto built = std::make_shared<PlannerCatalog>();
    built->text = render_planner_catalog(entries);
    for (const auto* entry : entries) {
        const auto& spec = *entry->spec;
        json::array examples;
        for (const auto& example : spec.examples) {
            examples.push_back(json::object{{"description", example.description}, {"args", example.args}});
        }
        built->tools.push_back(json::object{{"id", spec.id},
                                            {"description", spec.description},
                                            {"inputs", spec.inputs.to_json_schema()},
                                            {"examples", std::move(examples)},
                                            {"outputs", spec.outputs.to_json_schema(false)},
                                            {"read_only", spec.annotations.read_only}});
    }
    std::lock_guard lock(catalog_cache_mutex_);
    // Old versions are never asked for again once a reload swapped the snapshot.
    if (catalog_cache_.size() > 64) catalog_cache_.clear();
    catalog_cache_[key] = built;
    return built;
}

Result<auth::UserContext> Operator::user_for(const store::Run& run) const {
    const auto& resolve = parts_.pipeline->parts().resolve_user;
    if (!resolve) {
        return Error{errors::kUserUnresolvable, "the host cannot look up users, so the run cannot resume", {}, {}};
    }
    auto user = resolve(run.user_id);
    if (!user) return user.error();
    // The run keeps the mode it started in (the pipeline still applies the user's current mode
    // when that is narrower) and the credential it was started with.
    if (auto mode = auth::parse_cognitive_mode(run.mode)) user->mode = *mode;
    if (!run.token_id.empty()) {
        auth::Credential credential;
        credential.token_id = run.token_id;
        auto scopes = auth::Scopes::parse(run.token_scopes);
        credential.scopes = scopes ? scopes.value() : auth::Scopes();
        return auth::with_credential(std::move(user.value()), std::move(credential));
    }
    return user;
}

std::string Operator::playbook_text(store::Run& run, const auth::UserContext& user) {
    if (!parts_.guidance) return {};
    auto found = parts_.guidance->find_playbooks(user.user_id, run.goal, 3);
    if (!found) {
        spdlog::warn("playbook search failed: {}", found.error().message);
        return {};
    }
    std::string text;
    auto& used = run.playbooks_used;
    for (const auto& playbook : found.value()) {
        text += "- For \"" + playbook.goal + "\" the user advised: " + playbook.guidance + "\n";
        for (const auto& step : playbook.steps) text += "    worked: " + step + "\n";
        if (std::find(used.begin(), used.end(), playbook.id) == used.end()) used.push_back(playbook.id);
    }
    return text;
}

Status Operator::check_goal(std::string_view goal) const {
    // Characters, not bytes: a limit stated in characters must not refuse non-Latin text early.
    std::size_t chars = 0;
    for (unsigned char c : goal) chars += (c & 0xC0) != 0x80 ? 1 : 0;
    const auto limit = static_cast<std::size_t>(parts_.config.max_goal_chars);
    if (chars <= limit) return {};
    Error error{errors::kGoalTooLong,
                "the goal has " + std::to_string(chars) + " characters; the limit is " + std::to_string(limit),
                {},
                {"state the goal in fewer words and put long material in a file the skills can read, or raise "
                 "max_goal_chars in operator.yaml"}};
    error.details["chars"] = chars;
    error.details["max_goal_chars"] = limit;
    return error;
}

Status Operator::check_start(std::string_view goal, const auth::UserContext& user) const {
    if (!user.credential.may(auth::Scope::call))
        return auth::missing_scope_error(auth::Scope::call, "starting a run", user.credential);
    return check_goal(goal);
}

Result<store::Run> Operator::run(std::string_view goal, const auth::UserContext& user, const RunOptions& options,
                                 RunEventSubscriber* events) {
    auto run = open_run(goal, user, options);
    if (!run) return run.error();
    return drive_opened(std::move(run.value()), user, options, events);
}

Result<store::Run> Operator::drive_opened(store::Run run, const auth::UserContext& user, const RunOptions& options,
                                          RunEventSubscriber* events) {
    auto cancel = options.cancel;
    auto lease = hold_lease(run.id, cancel);
    if (!lease) return lease.error();
    return drive(run, user, events, options.max_steps, std::move(cancel), std::move(lease.value()));
}

Result<store::Run> Operator::open_run(std::string_view goal, const auth::UserContext& user, const RunOptions& options) {
    if (auto st = check_start(goal, user); !st) return st.error();
    store::Run run;
    run.id = options.id.empty() ? store::new_id("run") : options.id;
    run.goal = std::string(goal);
    run.user_id = user.user_id;
    run.mode = auth::to_string(user.mode);
    run.token_id = user.credential.token_id;
    run.token_scopes = user.credential.is_token() ? user.credential.scopes.to_text() : std::string();
    run.history = options.history;
    run.created_ms = store::unix_ms_now();
    if (auto saved = parts_.runs->save(run); !saved) return saved.error();
    return run;
}

Result<std::unique_ptr<RunLeaseHold>> Operator::hold_lease(std::string_view run_id,
                                                           std::shared_ptr<std::atomic<bool>>& cancel) {
    if (!parts_.leases) return std::unique_ptr<RunLeaseHold>();
    if (!cancel) cancel = std::make_shared<std::atomic<bool>>(false);
    return RunLeaseHold::acquire(*parts_.leases, run_id, parts_.lease_heartbeat, cancel);
}

Status Operator::save_run(Session& session) {
    if (session.lease) return session.lease->save(session.run);
    return parts_.runs->save(session.run);
}

bool Operator::save_pending_step(Session& session, const store::ScratchpadEntry& entry) {
    auto& run = session.run;
    run.steps.push_back(entry);
    const Status saved = parts_.runs->save(run);
    run.steps.pop_back();
    if (saved) return true;
    // Not called: an effect the record cannot show would run again after a restart.
    finish_failed(session, saved.error());
    return false;
}

void Operator::stop_lease_lost(Session& session) {
    session.lease_lost = true;
    session.finished = true;
    // Said here only: the shared event log belongs to the instance that took the run over.
    spdlog::warn("run {}: this instance lost the run's lease (another instance took the run over); it stops here",
                 session.run.id);
}

bool Operator::claim_step(Session& session, store::ScratchpadEntry& entry) {
    auto& run = session.run;
    auto claimed = session.lease->claim_step(entry.step - 1);
    Status saved = claimed ? Status() : Status(claimed.error());
    if (claimed) {
        if (claimed->retry)
            entry.warnings.push_back(
                "retried: the instance that ran this step before stopped during the call; it runs again with the "
                "same idempotency key (" +
                run.id + ":" + std::to_string(entry.step) + ")");
        // In the record while the call runs: an instance that takes the run over calls it again.
        run.steps.push_back(entry);
        saved = session.lease->save(run);
        run.steps.pop_back();
    }
    if (saved) return true;
    if (session.lease->lost()) {
        stop_lease_lost(session);
    } else {
        finish_failed(session, saved.error());
    }
    return false;
}

bool Operator::stop_if_cancelled(Session& session) {
    if (!session.cancel || !session.cancel->load() || session.finished) return false;
    if (session.lease && session.lease->lost()) {
        stop_lease_lost(session);
        return true;
    }
    auto& run = session.run;
    run.status = RunStatus::cancelled;
    run.finished_ms = store::unix_ms_now();
    Error error{errors::kRunCancelled, "the run was cancelled before it finished", {}, {}};
    error.details["steps"] = run.steps.size();
    session.emit(RunEventType::error, error.message, error.to_json());
    run.error = std::move(error);
    session.finished = true;
    return true;
}

Result<store::Run> Operator::drive(store::Run& run, const auth::UserContext& user, RunEventSubscriber* events,
                                   int max_steps, std::shared_ptr<std::atomic<bool>> cancel,
                                   std::unique_ptr<RunLeaseHold> lease, bool retry_pending_step) {
    Session session(run, user, parts_.catalog(), events);
    session.cancel = std::move(cancel);
    session.lease = lease.get();
    session.max_steps = max_steps > 0 ? max_steps : parts_.config.max_steps;
    if (!session.catalog) {
        finish_failed(
            session,
            Error{errors::kCatalogUnavailable, "no skill catalog is loaded; check the plugin directories", {}, {}});
        if (auto saved = save_run(session); !saved) return saved.error();
        return run;
    }
    session.planner_catalog = planner_catalog(*session.catalog, user);
    if (auto planner = parts_.router->traits("orchestrator", run.mode)) {
        session.planner_reads_context = planner->reads_context;
    }
    session.playbooks = playbook_text(run, user);

    const bool emulation = user.mode == auth::CognitiveMode::emulation;
    if (retry_pending_step && !run.steps.empty() && run.steps.back().action && !run.steps.back().observation) {
        store::ScratchpadEntry pending = std::move(run.steps.back());
        run.steps.pop_back();
        // The same step number, so the same idempotency key as the interrupted call.
        execute_action(session, std::move(pending.thought), std::move(*pending.action));
    }
    if (session.finished) {
        // Paused, failed or lost its lease in the retried step.
    } else if (run.route.empty()) {
        lightweight(session, !emulation);
    } else if (run.route != "react") {
        // A lightweight run resumed after its approval: answer from what it now has.
        finish_with_answer(session, "default");
    }
    while (!session.finished) react(session);

    // Adaptive retry: a failed attempt (not a pause, not a stuck run) gets another try with what failed.
    const auto cancelled = [&] { return session.cancel && session.cancel->load(); };
    while (run.status == RunStatus::failed && !cancelled() && parts_.config.error_retry &&
           run.attempt <= parts_.config.max_retries && run.route == "react") {
        std::string context = "Attempt " + std::to_string(run.attempt) + " ended without an answer";
        if (run.error) context += " (" + run.error->code + ": " + run.error->message + ")";
        context += ".\nActions tried:\n";
        for (std::size_t i = run.attempt_first_step; i < run.steps.size(); ++i) {
            context += "- " + condensed_step(run.steps[i]) + "\n";
            const auto& obs = run.steps[i].observation;
            if (obs && obs->error) {
                for (const auto& s : obs->error->suggestions) context += "    suggested fix: " + s + "\n";
            }
        }
        context += "Try a different approach: other tools or other arguments than the ones that failed.\n";
        run.attempt += 1;
        run.attempt_first_step = run.steps.size();
        run.status = RunStatus::running;
        run.error.reset();
        session.retry_context = std::move(context);
        session.finished = false;
        session.emit(RunEventType::warning, "retrying (attempt " + std::to_string(run.attempt) + ")",
                     json::object{{"attempt", run.attempt}});
        while (!session.finished) react(session);
    }
    if (session.lease_lost) return session.lease->lost_error();
    if (!run.guidance_id.empty() && run.status != RunStatus::awaiting_approval &&
        run.status != RunStatus::awaiting_input)
        learn_from_guidance(run);
    // Saved when the run starts, when it resumes and here, whenever it stops (done, paused or failed):
    // a synchronous SQLite commit per step would cost more than the rest of a step together. Under
    // a lease, also before every skill call (claim_step).
    if (auto saved = save_run(session); !saved) return saved.error();
    return run;
}

bool Operator::plan_step(Session& session, PlannerOutput& out) {
    auto& run = session.run;
    const auto steps = session.attempt_steps();
    PlannerPromptInput input;
    input.goal = &run.goal;
    input.catalog_text = &session.planner_catalog->text;
    input.catalog_tools = &session.planner_catalog->tools;
    input.steps = steps;
    input.condensed = session.attempt_condensed();
    input.with_builtin_context = session.planner_reads_context;
    input.history = &run.history;
    input.playbooks = session.playbooks;
    input.retry_context = session.retry_context;
    input.warnings = std::move(session.pending_warnings);
    session.pending_warnings.clear();
    input.trim_to_last_n = parts_.config.trim_to_last_n;
    input.step_number = static_cast<int>(steps.size()) + 1;
    input.max_steps = session.max_steps;
    input.cognitive_mode = run.mode;
    llm::ChatRequest request = build_planner_request(input);
    request.user_id = run.user_id;
    request.run_id = run.id;

    for (int attempt = 0; attempt < 2; ++attempt) {
        session.last_prompt_chars = 0;
        for (const auto& message : request.messages) session.last_prompt_chars += message.content.size();
        auto response = parts_.router->chat(request, session.cancel.get());
        if (stop_if_cancelled(session)) return false;
        if (!response) {
            finish_failed(session, response.error());
            return false;
        }
        session.add_tokens("orchestrator", response->prompt_tokens, response->completion_tokens);
        session.last_planner_response = response->content;
        auto parsed = parse_planner_output(response->content);
        if (parsed) {
            out = std::move(parsed.value());
            if (out.repaired) session.emit(RunEventType::warning, "the planner's JSON was cut out of surrounding text");
            return true;
        }
        if (attempt == 1) {
            Error error = parsed.error();
            error.message = "the planner did not produce a valid plan twice in a row: " + error.message;
            finish_failed(session, std::move(error));
            return false;
        }
        session.emit(RunEventType::warning, "invalid planner output; asking again",
                     json::object{{"reason", parsed.error().details.at("reason")}});
        request.messages.push_back({"assistant", response->content});
        request.messages.push_back(
            {"user",
             "That answer is not valid: " + std::string(parsed.error().details.at("reason").as_string()) +
                 ". Answer again with only a JSON object matching this schema: " + json::serialize(planner_schema())});
        request.context["retry_invalid_text"] = response->content;
    }
    return false;
}

void Operator::react(Session& session) {
    auto& run = session.run;
    run.route = "react";
    while (!session.finished) {
        if (stop_if_cancelled(session)) return;
        const auto steps = session.attempt_steps();
        const int step_count = static_cast<int>(steps.size());

        // Stuck: three or more failures among the last five steps.
        int recent_failures = 0;
        for (std::size_t i = steps.size() > 5 ? steps.size() - 5 : 0; i < steps.size(); ++i) {
            if (steps[i].observation && !steps[i].observation->success) ++recent_failures;
        }
        if (recent_failures >= 3) {
            finish_stuck(session, std::to_string(recent_failures) + " of the last " +
                                      std::to_string(std::min<std::size_t>(5, steps.size())) + " actions failed");
            return;
        }
        const bool any_success = std::any_of(steps.begin(), steps.end(), [](const store::ScratchpadEntry& e) {
            return e.observation && e.observation->success;
        });
        if (step_count >= session.max_steps - 2 && session.max_steps > 3 && !any_success && step_count > 0) {
            finish_stuck(session,
                         "no answer within 2 steps of the step limit (" + std::to_string(session.max_steps) + ")");
            return;
        }
        if (step_count >= session.max_steps) {
            finish_with_answer(session, "summary",
                               "The step limit was reached. Summarise what the observations found and say "
                               "plainly what is still missing for the goal.");
            return;
        }

        PlannerOutput plan;
        if (!plan_step(session, plan)) return;
        json::object thought_data{{"prompt_chars", session.last_prompt_chars},
                                  {"prompt_tokens_estimate", session.last_prompt_chars / 4},
                                  {"planner_response", session.last_planner_response}};
        if (plan.respond) {
            session.emit(RunEventType::thought, plan.thought, std::move(thought_data));
            std::string style = plan.response_style.empty() ? parts_.config.default_style : plan.response_style;
            store::ScratchpadEntry entry;
            entry.step = static_cast<int>(run.steps.size()) + 1;
            entry.thought = plan.thought;
            entry.started_ms = store::unix_ms_now();
            run.steps.push_back(std::move(entry));
            // The planner's note (ambiguous candidates, what no tool can do) is for the user.
            finish_with_answer(session, style,
                               plan.note.empty() ? std::string() : std::string(llm::kNoteLead) + plan.note);
            return;
        }
        if (!execute_action(session, plan.thought, *plan.action, std::move(thought_data))) return;
    }
}

bool Operator::execute_action(Session& session, std::string thought, store::Action action,
                              std::optional<json::object> thought_data) {
    auto& run = session.run;
    const auto started = std::chrono::steady_clock::now();
    store::ScratchpadEntry entry;
    entry.step = static_cast<int>(run.steps.size()) + 1;
    entry.thought = std::move(thought);
    entry.started_ms = store::unix_ms_now();

    // Path auto-fix before the guard, so "/README.md" and "README.md" are the same action.
    if (const auto* catalog_entry = session.catalog->find(action.tool)) {
        for (const auto& fix : autofix_paths(*catalog_entry->spec, action.args, session.user.workspace)) {
            entry.warnings.push_back("auto-fixed " + fix.input + ": " + fix.from + " → " + fix.to);
        }
    }
    const std::string key = action_key(action);
    int failures = 0;
    std::string last_error;
    for (std::size_t i = run.attempt_first_step; i < run.steps.size(); ++i) {
        const auto& prior = run.steps[i];
        if (!prior.observation || prior.observation->success || session.key_of(i) != key) continue;
        ++failures;
        last_error = prior.observation->error
                         ? prior.observation->error->code + ": " + prior.observation->error->message
                         : std::string("failed");
    }
    entry.action = action;
    // Reported once the step is this instance's to take (claimed under the lease, or refused by the
    // loop guard without a call): an instance that lost the run says nothing of a step it never took.
    const auto report_step = [&] {
        if (thought_data) session.emit(RunEventType::thought, entry.thought, std::move(*thought_data));
        session.emit(RunEventType::action, action.tool, json::object{{"tool", action.tool}, {"args", action.args}});
        for (const auto& w : entry.warnings) session.emit(RunEventType::warning, w);
    };

    if (failures >= 2) {
        report_step();
        const std::string warning = "not executed: " + key + " already failed " + std::to_string(failures) +
                                    " times (last error " + last_error + "); choose a different tool or arguments";
        store::Observation obs;
        obs.success = false;
        obs.raw = json::object{{"ok", false}, {"error", json::object{{"code", "LOOP_GUARD"}, {"message", warning}}}};
        obs.error = store::ObservationError{"LOOP_GUARD", warning, {"Use a different tool or different arguments"}};
        obs.content = "FAILED LOOP_GUARD: " + warning;
        entry.warnings.push_back(warning);
        entry.observation = std::move(obs);
        entry.duration_us = micros_since(started);
        session.pending_warnings.push_back(warning);
        session.emit(RunEventType::warning, warning);
        run.steps.push_back(std::move(entry));
        return true;
    }

    exec::CallRequest request;
    request.skill_id = action.tool;
    request.args = action.args;
    request.user = session.user;
    request.requested_by = auth::Requester::run(run.id);
    request.options.cancel = session.cancel;
    // The same step of the same run has the same key on whichever instance runs it, so a plugin
    // can tell a retry after an instance died mid-call from a new call.
    request.idempotency_key = run.id + ":" + std::to_string(entry.step);
    const auto* called = session.catalog->find(action.tool);
    if (called) run.plugin_versions[called->plugin->manifest().name] = std::string(called->plugin->version());
    // A call with effects is in the record before it runs and its result as soon as it returns, so
    // a run resumed after a kill repeats it with the same key (the plugin answers what it did) or
    // goes on from its result; never calls it anew. Under a lease the claim saves it.
    const bool has_effects = !called || !called->spec->annotations.read_only;
    if (session.lease && !claim_step(session, entry)) return false;
    if (!session.lease && has_effects && !save_pending_step(session, entry)) return false;
    report_step();
    const auto outcome = parts_.pipeline->call(*session.catalog, request);
    if (outcome.approval_id) {
        entry.duration_us = micros_since(started);
        run.steps.push_back(std::move(entry));
        return !pause_for_approval(session, *outcome.approval_id, action, outcome.result.error);
    }
    if (outcome.elicitation_id) {
        entry.duration_us = micros_since(started);
        run.steps.push_back(std::move(entry));
        return !pause_for_input(session, *outcome.elicitation_id, action, outcome.result.error);
    }
    entry.observation = observation_from_result(outcome.result, action.tool, parts_.config);
    for (const auto& w : entry.warnings) {
        if (w.starts_with("auto-fixed")) entry.observation->content = w + "\n" + entry.observation->content;
    }
    // The same action giving the same result three times is no progress.
    const std::string result_text = json::serialize(entry.observation->raw);
    int same_results = 0;
    for (std::size_t i = run.attempt_first_step; i < run.steps.size(); ++i) {
        if (session.key_of(i) == key && session.result_of(i) == result_text) ++same_results;
    }
    if (same_results >= 2) {
        const std::string warning = "no progress: " + key + " returned the same result " +
                                    std::to_string(same_results + 1) +
                                    " times; use what it returned or try something else";
        entry.warnings.push_back(warning);
        session.pending_warnings.push_back(warning);
        session.emit(RunEventType::warning, warning);
        entry.observation->success = false;
        entry.observation->error =
            store::ObservationError{"NO_PROGRESS", warning, {"Respond with the data already observed"}};
    }
    entry.duration_us = micros_since(started);
    run.steps.push_back(std::move(entry));
    // Saved as soon as the call returned (under the lease, or without one for a call with effects):
    // an instance that takes the run over or resumes it from here on plans the next step instead of
    // calling this one again. A database that fails for a moment does not fail the run: the next
    // save takes the result with the record.
    if (session.lease || has_effects) {
        const Status saved = session.lease ? session.lease->save(run) : parts_.runs->save(run);
        if (!saved && session.lease && session.lease->lost()) {
            stop_lease_lost(session);
            return false;
        }
        if (!saved)
            spdlog::warn("run {}: saving step {}'s result failed ({}); it is saved with the next step", run.id,
                         run.steps.back().step, saved.error().message);
    }
    const auto& done = run.steps.back();
    session.emit_at(done.step - 1, RunEventType::observation, done.observation->content,
                    json::object{{"tool", action.tool}, {"success", done.observation->success}});
    return true;
}

bool Operator::pause_for_approval(Session& session, std::string approval_id, const store::Action& action, Error error) {
    auto& run = session.run;
    run.status = RunStatus::awaiting_approval;
    run.approval_id = approval_id;
    error.details["run_id"] = run.id;
    run.error = std::move(error);
    session.finished = true;
    session.emit(
        RunEventType::approval_required,
        action.tool + " needs approval: skillhost approvals approve " + approval_id + " (then the run resumes)",
        json::object{{"approval_id", approval_id}, {"tool", action.tool}, {"args", action.args}});
    return true;
}

RunEvent input_required_event(const store::Run& run, const store::Action& action, const std::string& elicitation_id,
                              const Error& asked) {
    json::object data{{"elicitation_id", elicitation_id}, {"tool", action.tool}, {"args", action.args}};
    for (const char* key : {"message", "requestedSchema", "expires_at"})
        if (const auto* v = asked.details.if_contains(key)) data[key] = *v;
    const json::value* message = asked.details.if_contains("message");
    const std::string question = message && message->is_string() ? std::string(message->as_string()) : std::string();
    return RunEvent{RunEventType::input_required, run.id, static_cast<int>(run.steps.size()),
                    action.tool + " asks: " + question + " (answer with skillhost elicitations answer " +
                        elicitation_id + "; then the step runs again and the run resumes)",
                    std::move(data)};
}

bool Operator::pause_for_input(Session& session, std::string elicitation_id, const store::Action& action, Error error) {
    auto& run = session.run;
    run.status = RunStatus::awaiting_input;
    run.elicitation_id = elicitation_id;
    error.details["run_id"] = run.id;
    run.error = std::move(error);
    session.finished = true;
    if (session.events) {
        RunEvent event = input_required_event(run, action, elicitation_id, *run.error);
        event.lease_epoch = session.lease_epoch();
        session.events->on_event(event);
    }
    return true;
}

void Operator::finish_failed(Session& session, Error error) {
    auto& run = session.run;
    run.status = RunStatus::failed;
    run.finished_ms = store::unix_ms_now();
    session.emit(RunEventType::error, error.code + ": " + error.message, error.to_json());
    run.error = std::move(error);
    session.finished = true;
}

}  // namespace skillhost::op
