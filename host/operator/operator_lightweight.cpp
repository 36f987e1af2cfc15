// The lightweight operator: one classification, at most one read-only skill call, one answer.
// Emulation mode runs only this; dual and agent modes use it for casual messages.
#include "operator/operator.hpp"

#include "language/goal_analysis.hpp"
#include "language/intent_rules.hpp"
#include "operator/lightweight_tool_choice.hpp"
#include "operator/operator_session.hpp"
#include "operator/planner_output.hpp"

#include <boost/json.hpp>

#include <array>

namespace skillhost::op {

namespace json = boost::json;

namespace {

constexpr std::array<std::string_view, 5> kIntents = {"factual", "temporal", "task", "casual", "complex"};

const json::object& classifier_schema() {
    static const json::object schema = json::parse(R"({
      "type": "object",
      "properties": {
        "intent": {"type": "string", "enum": ["factual", "temporal", "task", "casual", "complex"]},
        "confidence": {"type": "number"},
        "reasoning": {"type": "string"}
      },
      "required": ["intent"]
    })")
                                           .as_object();
    return schema;
}

// A casual guess below this confidence still goes to the full loop in dual/agent mode: answering
// a real request with small talk is worse than planning for a greeting.
constexpr double kCasualFastPathConfidence = 0.7;

double confidence_of(const json::value& value) {
    const auto* confidence = value.is_object() ? value.as_object().if_contains("confidence") : nullptr;
    if (!confidence) return 1.0;
    if (confidence->is_double()) return confidence->as_double();
    if (confidence->is_int64()) return static_cast<double>(confidence->as_int64());
    return 1.0;
}

std::string intent_of(const json::value& value) {
    if (!value.is_object()) return {};
    const auto* intent = value.as_object().if_contains("intent");
    if (!intent || !intent->is_string()) return {};
    for (auto known : kIntents) {
        if (intent->as_string() == known) return std::string(known);
    }
    return {};
}

}  // namespace

void Operator::lightweight(Session& session, bool full_loop_allowed) {
    auto& run = session.run;
    // Ends the run with an answer that needed no skill (what this mode cannot do).
    const auto answer_without_a_call = [&](std::string answer) {
        run.answer = std::move(answer);
        run.response_style = "default";
        run.status = store::RunStatus::completed;
        run.finished_ms = store::unix_ms_now();
        session.finished = true;
        session.emit(RunEventType::completion, run.answer, json::object{{"answer", run.answer}, {"route", run.route}});
    };

    llm::ChatRequest request;
    request.role = "classifier";
    request.cognitive_mode = run.mode;
    request.user_id = run.user_id;
    request.run_id = run.id;
    request.json_schema = classifier_schema();
    request.schema_name = "intent";
    request.temperature = 0.0;
    request.messages = {
        {"system",
         "Classify the user's message. factual: a question answered from their memories; temporal: about what happened "
         "in a time window; task: about their task list; casual: small talk needing no data; complex: needs several "
         "steps or changes data. Answer with JSON {intent, confidence, reasoning}."},
        {"user", run.goal}};
    request.context = json::object{{"task", "classify"}, {"message", run.goal}};
    std::string intent;
    double confidence = 1.0;
    std::string source = "classifier";
    if (auto response = parts_.router->chat(request, session.cancel.get())) {
        session.add_tokens("classifier", response->prompt_tokens, response->completion_tokens);
        boost::system::error_code ec;
        const std::string text = extract_json_object(response->content);
        auto parsed = json::parse(text.empty() ? response->content : text, ec);
        if (!ec) {
            intent = intent_of(parsed);
            confidence = confidence_of(parsed);
        }
    }
    if (intent.empty()) {
        // No model, or an answer we cannot read: the keyword rules still route the message.
        const json::value keyword_result = language::classify_intent(run.goal);
        intent = intent_of(keyword_result);
        confidence = confidence_of(keyword_result);
        source = "keywords";
    }
    if (intent.empty()) intent = "complex";
    session.emit(RunEventType::thought, "intent: " + intent + " (" + source + ")",
                 json::object{{"intent", intent}, {"source", source}});

    if (full_loop_allowed && (intent != "casual" || confidence < kCasualFastPathConfidence)) {
        run.route = "react";
        return;
    }
    run.route = intent;
    const auto analysis = language::analyse_goal(run.goal);

    if (intent == "casual") {
        llm::ChatRequest chat;
        chat.role = "persona";
        chat.cognitive_mode = run.mode;
        chat.user_id = run.user_id;
        chat.run_id = run.id;
        chat.messages = {
            {"system", "You are a friendly assistant. Reply briefly. Do not claim facts about the user's data."}};
        for (const auto& turn : run.history) chat.messages.push_back({"user", turn});
        chat.messages.push_back({"user", run.goal});
        chat.context = json::object{{"task", "chat"}};
        auto reply = parts_.router->chat(chat, session.cancel.get());
        if (!reply) {
            finish_failed(session, reply.error());
            return;
        }
        session.add_tokens("persona", reply->prompt_tokens, reply->completion_tokens);
        store::ScratchpadEntry entry;
        entry.step = static_cast<int>(run.steps.size()) + 1;
        entry.thought = "A casual message: replying directly without tools.";
        entry.started_ms = store::unix_ms_now();
        run.steps.push_back(std::move(entry));
        run.answer = reply->content;
        run.response_style = "default";
        run.status = store::RunStatus::completed;
        run.finished_ms = store::unix_ms_now();
        session.finished = true;
        session.emit(RunEventType::completion, run.answer, json::object{{"answer", run.answer}, {"route", "casual"}});
        return;
    }
    if (intent == "complex") {
        run.route = "refused";
        answer_without_a_call("This request needs several steps or changes to your data, which the " + run.mode +
                              " mode does not do: here the operator only answers from your tasks and memories "
                              "with read-only skills. Switch modes with `skillhost mode set agent` to let the full "
                              "operator work on it.");
        return;
    }

    std::vector<const catalog::CatalogEntry*> entries;
    for (const auto* entry : parts_.pipeline->visible_entries(*session.catalog, session.user)) {
        if (entry->spec->id != kResponseSkill) entries.push_back(entry);
    }
    const std::string route_intent = intent == "task" || intent == "temporal" ? intent : std::string("factual");
    const auto call =
        choose_lightweight_call(entries, {route_intent, analysis.query.empty() ? run.goal : analysis.query,
                                          analysis.time_phrase, analysis.wants_completed});
    if (!call) {
        answer_without_a_call("None of the read-only skills available to you answers a " + intent +
                              " question, so this mode cannot answer it. Switch modes with `skillhost "
                              "mode set agent` to let the full operator work on it.");
        return;
    }
    store::Action action;
    action.tool = call->tool;
    action.args = call->args;
    const std::string style = intent == "task" ? "verbatim" : intent == "temporal" ? "summary" : "strict";
    const std::string thought = "A " + intent + " question: one " + action.tool + " call answers it.";
    if (!execute_action(session, thought, std::move(action), json::object{})) return;  // paused for approval
    finish_with_answer(session, style);
}

}  // namespace skillhost::op
