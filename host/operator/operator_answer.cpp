// How a run ends: the answer written from what the skills returned (or the built-in summary), checked
// against the observations by the grounding check and corrected or refused when it invents, and
// the report of a run that got stuck. The ReAct loop itself is operator.cpp.
#include "grounding/claim_lexer.hpp"
#include "grounding/grounding_check.hpp"
#include "operator/observation_format.hpp"
#include "operator/operator.hpp"
#include "operator/operator_session.hpp"
#include "operator/planner_output.hpp"
#include "operator/planner_prompt.hpp"
#include "operator/error_codes.hpp"

#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <ctime>

namespace skillhost::op {

namespace json = boost::json;
using grounding::GroundingFacts;
using grounding::lex;
using grounding::Token;
using grounding::unsupported_claims;
using grounding::UnsupportedClaim;
using store::RunStatus;

namespace {
// Goals that ask to see data rather than to reason about it; one read-only call answers them:
// "list/show/read ...", "what tasks do I have", "what's on my list".
bool is_retrieval_goal(std::string_view goal) {
    std::vector<std::string> words;
    for (const auto& t : lex(goal.substr(0, 2000), 400)) {
        if (t.kind == Token::Kind::word) words.push_back(t.norm);
    }
    const auto is = [](const std::string& w, std::initializer_list<std::string_view> set) {
        return std::find(set.begin(), set.end(), w) != set.end();
    };
    for (const auto& w : words) {
        if (is(w, {"list", "show", "display", "print", "read", "open", "view", "cat"})) return true;
    }
    for (std::size_t i = 0; i + 3 < words.size(); ++i) {
        if (words[i] == "what" && is(words[i + 1], {"s", "is"}) && is(words[i + 2], {"on", "in"}) &&
            words[i + 3] == "my") {
            return true;
        }
    }
    if (words.empty() || words.front() != "what") return false;
    const auto noun = std::find_if(words.begin(), words.end(), [&](const std::string& w) {
        return is(w, {"tasks", "files", "todo", "todos"});
    });
    return noun != words.end() && std::any_of(noun + 1, words.end(), [&](const std::string& w) {
               return is(w, {"have", "are", "open", "pending"});
           });
}

// The local date, so "due in 5 days" can be compared with the observed dates.
std::tuple<int, int, int> local_today() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    return {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday};
}

// The answer without the line a backend declares it ends its answers with (where the answer came
// from): that line is no claim about the data.
std::string without_attribution(std::string answer, const std::vector<std::string>& attributions) {
    for (const auto& attribution : attributions) {
        if (auto pos = answer.find(attribution); pos != std::string::npos) answer.erase(pos);
    }
    return answer;
}

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

json::array claim_texts_json(const std::vector<std::string>& items) {
    json::array out;
    for (const auto& item : items) out.emplace_back(item);
    return out;
}

std::vector<std::string> claim_texts(const std::vector<UnsupportedClaim>& claims) {
    std::vector<std::string> out;
    for (const auto& c : claims) out.push_back(c.text);
    return out;
}

json::array claims_json(const std::vector<UnsupportedClaim>& claims) {
    json::array out;
    for (const auto& c : claims) out.push_back(json::object{{"kind", c.kind}, {"text", c.text}, {"reason", c.reason}});
    return out;
}

// What the persona is told when its answer had unsupported items: each one and why.
std::string correction_for(const std::vector<UnsupportedClaim>& claims) {
    std::string text =
        "Your previous answer said things the observations do not support. Write the answer again from the "
        "observations only; leave these out or correct them:\n";
    for (const auto& c : claims) text += "- " + c.text + " (" + c.kind + "): " + c.reason + "\n";
    return text;
}

json::object observation_for_answer(const store::ScratchpadEntry& entry) {
    json::object o{{"tool", entry.action ? entry.action->tool : std::string()},
                   {"args", entry.action ? entry.action->args : json::object{}}};
    const bool ok = entry.observation && entry.observation->success;
    o["ok"] = ok;
    if (ok) {
        o["data"] = entry.observation->raw;
    } else if (entry.observation && entry.observation->error) {
        o["error"] =
            json::object{{"code", entry.observation->error->code}, {"message", entry.observation->error->message}};
    }
    return o;
}

std::string structured_rendering(const std::vector<store::ScratchpadEntry>& steps) {
    std::string out;
    for (const auto& entry : steps) {
        if (!entry.action || !entry.observation) continue;
        if (!out.empty()) out += "\n\n";
        if (entry.observation->success) {
            out += entry.action->tool + ":\n" + render_structured(entry.observation->raw);
        } else if (entry.observation->error) {
            out += entry.action->tool + " failed: " + entry.observation->error->code + " — " +
                   entry.observation->error->message;
        }
    }
    return out.empty() ? std::string("No tool returned data for this goal.") : out;
}

}  // namespace

void Operator::finish_stuck(Session& session, std::string reason) {
    auto& run = session.run;
    json::array tried;
    std::vector<std::string> suggestions;
    for (std::size_t i = run.attempt_first_step; i < run.steps.size(); ++i) {
        const auto& step = run.steps[i];
        if (!step.action) continue;
        json::object t{{"tool", step.action->tool}, {"args", step.action->args}};
        if (step.observation && step.observation->error) {
            t["error"] =
                json::object{{"code", step.observation->error->code}, {"message", step.observation->error->message}};
            for (const auto& s : step.observation->error->suggestions) {
                if (std::find(suggestions.begin(), suggestions.end(), s) == suggestions.end()) suggestions.push_back(s);
            }
        } else {
            t["ok"] = true;
        }
        tried.push_back(std::move(t));
    }
    suggestions.push_back("Tell the operator what to do differently: skillhost guide " + run.id + " \"...\"");
    Error error{errors::kRunStuck,
                "the run is stuck: " + reason + " — give guidance with `skillhost guide " + run.id + " \"TEXT\"`",
                {},
                suggestions};
    error.details["type"] = "stuck";
    error.details["reason"] = reason;
    error.details["tried"] = std::move(tried);
    run.status = RunStatus::needs_guidance;
    session.emit(RunEventType::error, error.message, error.to_json());
    run.error = std::move(error);
    session.finished = true;
}

std::optional<std::string> Operator::write_answer(Session& session, const json::object& args) {
    auto& run = session.run;
    exec::CallRequest request;
    request.skill_id = std::string(kResponseSkill);
    request.args = args;
    request.user = session.user;
    request.requested_by = auth::Requester::run(run.id);
    const auto outcome =
        session.catalog->find(kResponseSkill) ? parts_.pipeline->call(*session.catalog, request) : exec::CallOutcome{};
    const auto* answer = outcome.result.ok && outcome.result.output.is_object()
                             ? outcome.result.output.as_object().if_contains("answer")
                             : nullptr;
    if (answer && answer->is_string()) {
        session.add_tokens("persona", llm::estimate_tokens(json::serialize(args)),
                           llm::estimate_tokens(answer->as_string()));
        return std::string(answer->as_string());
    }
    const std::string why = session.catalog->find(kResponseSkill)
                                ? outcome.result.error.code + ": " + outcome.result.error.message
                                : std::string("the conversational_response skill is not loaded");
    session.emit(RunEventType::warning, "answering with the structured observations: " + why);
    return std::nullopt;
}

void Operator::ground_answer(Session& session, json::object args, const std::vector<store::ScratchpadEntry>& observed) {
    auto& run = session.run;
    auto& grounding = run.grounding;
    const GroundingFacts facts = GroundingFacts::from_observations(observed, run.goal, local_today());
    const auto attributions = parts_.router->answer_attributions();
    const auto first = unsupported_claims(without_attribution(run.answer, attributions), facts);
    grounding.checked = true;
    grounding.offending = claim_texts(first);
    grounding_counts_.checks += 1;
    if (first.empty()) {
        grounding.passed = true;
        grounding.outcome = "passed";
    } else {
        grounding_counts_.failures += 1;
        session.emit(RunEventType::warning,
                     "the answer had data not in any observation (" + join(grounding.offending) +
                         "); asking the model once more, told exactly what is unsupported",
                     json::object{{"grounding", "failed"}, {"items", claims_json(first)}});
        std::string instructions =
            args.contains("instructions") ? std::string(args["instructions"].as_string()) + "\n" : "";
        args["instructions"] = instructions + correction_for(first);
        std::vector<UnsupportedClaim> second;
        auto retry = write_answer(session, args);
        if (retry) second = unsupported_claims(without_attribution(*retry, attributions), facts);
        grounding.regenerated_offending = claim_texts(second);
        if (retry && second.empty()) {
            grounding.passed = true;
            grounding.outcome = "passed_after_regeneration";
            grounding_counts_.regenerated += 1;
            run.answer = std::move(*retry);
        } else {
            grounding.passed = false;
            grounding.outcome = "withheld";
            grounding_counts_.withheld += 1;
            session.emit(RunEventType::warning,
                         "the regenerated answer could not be verified either; showing the observations instead",
                         json::object{{"grounding", "withheld"}, {"items", claims_json(second)}});
            run.answer =
                "The model's answer could not be verified against the data, so here is what the tools returned.\n\n" +
                structured_rendering(observed);
        }
    }
    if (auto* audit = parts_.pipeline->parts().audit) {
        json::object record{{"user", run.user_id},
                            {"run_id", run.id},
                            {"style", run.response_style},
                            {"outcome", grounding.outcome},
                            {"items", claims_json(first)}};
        if (!first.empty()) record["regenerated_items"] = claim_texts_json(grounding.regenerated_offending);
        if (auto written = audit->append("grounding", std::move(record)); !written) {
            spdlog::warn("audit: {}", written.error().message);
        }
    }
}

void Operator::finish_with_answer(Session& session, std::string style, std::string instructions) {
    auto& run = session.run;
    const auto steps = session.attempt_steps();
    std::vector<const store::ScratchpadEntry*> observed;
    for (const auto& step : steps) {
        if (step.action && step.observation) observed.push_back(&step);
    }
    std::vector<store::ScratchpadEntry> observed_steps;
    for (const auto* step : observed) observed_steps.push_back(*step);

    const bool single_read = observed.size() == 1 && observed.front()->observation->success && [&] {
        const auto* entry = session.catalog->find(observed.front()->action->tool);
        return entry && entry->spec->annotations.read_only;
    }();
    if (parts_.config.verbatim && single_read && instructions.empty() &&
        (style == "verbatim" || is_retrieval_goal(run.goal))) {
        run.answer = render_structured(observed.front()->observation->raw);
        run.verbatim = true;
        run.response_style = "verbatim";
    } else {
        if (style == "verbatim") style = "strict";  // verbatim needs exactly one read; fall back to strict data
        run.response_style = style;
        json::array observations;
        for (const auto* step : observed) observations.push_back(observation_for_answer(*step));
        json::object args{{"goal", run.goal}, {"style", style}, {"observations", observations}};
        if (!instructions.empty()) args["instructions"] = instructions;
        if (!run.history.empty()) {
            json::array history;
            for (const auto& h : run.history) history.emplace_back(h);
            args["history"] = std::move(history);
        }
        auto answer = write_answer(session, args);
        if (answer) {
            run.answer = std::move(*answer);
            // Only small talk with no observations is exempt; the style does not matter.
            if (parts_.config.grounding && !observed_steps.empty()) ground_answer(session, args, observed_steps);
        } else {
            run.answer = structured_rendering(observed_steps);
        }
    }

    // The optional critic may send the run back for another attempt.
    if (parts_.config.critic && !run.verbatim) {
        llm::ChatRequest critique;
        critique.role = "critic";
        critique.cognitive_mode = run.mode;
        critique.user_id = run.user_id;
        critique.run_id = run.id;
        critique.json_schema =
            json::parse(
                R"({"type":"object","properties":{"approved":{"type":"boolean"},"feedback":{"type":"string"}},"required":["approved"]})")
                .as_object();
        critique.messages = {{"system",
                              "You review answers. Approve an answer only if it answers the goal using only "
                              "the observations. Answer with JSON {approved, feedback}."},
                             {"user", "Goal: " + run.goal + "\nObservations:\n" + structured_rendering(observed_steps) +
                                          "\nAnswer:\n" + run.answer}};
        critique.context = json::object{{"task", "critic"}};
        auto verdict = parts_.router->chat(critique, session.cancel.get());
        if (verdict) {
            session.add_tokens("critic", verdict->prompt_tokens, verdict->completion_tokens);
            boost::system::error_code ec;
            auto parsed = json::parse(extract_json_object(verdict->content), ec);
            const auto* approved = !ec && parsed.is_object() ? parsed.as_object().if_contains("approved") : nullptr;
            if (approved && approved->is_bool() && !approved->as_bool()) {
                const auto* feedback = parsed.as_object().if_contains("feedback");
                std::string text =
                    feedback && feedback->is_string() ? std::string(feedback->as_string()) : "no reason given";
                finish_failed(session,
                              Error{errors::kCriticRejected, "the critic rejected the answer: " + text, {}, {text}});
                return;
            }
        } else {
            session.emit(RunEventType::warning, "the critic could not review the answer: " + verdict.error().message);
        }
    }

    run.status = RunStatus::completed;
    run.error.reset();
    run.approval_id.clear();
    run.finished_ms = store::unix_ms_now();
    session.finished = true;
    json::object data{{"answer", run.answer}, {"verbatim", run.verbatim}, {"style", run.response_style}};
    if (run.grounding.checked) data["grounding"] = run.grounding.outcome;
    session.emit(RunEventType::completion, run.answer, std::move(data));
}

}  // namespace skillhost::op
