// `skillhost elicitations list|show|answer`: questions skills asked that no front end could put
// to the user during the call; answering runs the call again with the answer.
#include "app/elicitation_actions.hpp"
#include "base/json_text.hpp"
#include "cli/cli_context.hpp"
#include "cli/decision_commands.hpp"
#include "cli/in_process_resumer.hpp"
#include "cli/output.hpp"
#include "decisions/error_codes.hpp"

#include <iostream>
#include <map>

namespace skillhost::cli {
namespace {

namespace json = boost::json;

struct ElicitationArgs : DecisionArgs {
    std::vector<std::string> fields;  // NAME=VALUE
    std::string content;              // a JSON object
    bool decline = false;
    bool cancel = false;
};

Error usage(std::string message, std::string field) {
    Error e{errors::kInvalidElicitationAnswer, std::move(message), {}, {}};
    e.details["field"] = std::move(field);
    return e;
}

// A field's type in the form ("" when the form has no such field: the answer check names it).
std::string field_type(const json::object& schema, std::string_view name) {
    const json::value* properties = schema.if_contains("properties");
    const json::value* field =
        properties && properties->is_object() ? properties->get_object().if_contains(name) : nullptr;
    const json::value* type = field && field->is_object() ? field->get_object().if_contains("type") : nullptr;
    return type && type->is_string() ? std::string(type->get_string()) : std::string();
}

// --field NAME=VALUE as the form's type: numbers and booleans parsed, strings as typed, a
// multi-select (array) from each repetition of the field. A value that does not parse is kept as
// text, so the form check reports it with the field's name.
Result<json::object> content_from_fields(const std::vector<std::string>& fields, const json::object& schema) {
    json::object content;
    for (const auto& pair : fields) {
        const auto eq = pair.find('=');
        if (eq == std::string::npos || eq == 0)
            return usage("--field needs NAME=VALUE, not '" + pair.substr(0, 60) + "'", pair.substr(0, 60));
        const std::string name = pair.substr(0, eq);
        const std::string text = pair.substr(eq + 1);
        const std::string type = field_type(schema, name);
        json::value value = json::string(text);
        if (type == "number" || type == "integer" || type == "boolean") {
            json::value parsed;
            std::string problem;
            if (parse_json(text, parsed, problem) && (parsed.is_number() || parsed.is_bool())) value = parsed;
        }
        if (type == "array") {
            json::value& list = content[name];
            if (!list.is_array()) list = json::array();
            list.get_array().push_back(std::move(value));
        } else {
            if (content.contains(name)) return usage("--field " + name + " is given twice", name);
            content[name] = std::move(value);
        }
    }
    return content;
}

Result<decisions::ElicitationAnswer> answer_from(const ElicitationArgs& a, const decisions::ElicitationRecord& record) {
    const int ways = (a.decline ? 1 : 0) + (a.cancel ? 1 : 0) + (!a.fields.empty() || !a.content.empty() ? 1 : 0);
    if (ways > 1) return usage("give either --field/--content (accept), --decline or --cancel, not several", "action");
    if (a.decline) return decisions::ElicitationAnswer{"decline", {}};
    if (a.cancel) return decisions::ElicitationAnswer{"cancel", {}};
    if (!a.content.empty() && !a.fields.empty())
        return usage("give the answer with --field or --content, not both", "content");
    if (!a.content.empty()) {
        json::value parsed;
        std::string problem;
        if (!parse_json(a.content, parsed, problem) || !parsed.is_object())
            return usage("--content must be a JSON object of the form's fields" +
                             (problem.empty() ? std::string() : " (" + problem + ")"),
                         "content");
        return decisions::ElicitationAnswer{"accept", parsed.get_object()};
    }
    auto content = content_from_fields(a.fields, record.requested_schema);
    if (!content) return content.error();
    return decisions::ElicitationAnswer{"accept", std::move(content.value())};
}

int run_answer(CliContext& ctx, const ElicitationArgs& a) {
    auto who = acting(ctx, a.user);
    if (!who) return fail_setup(who.error(), a.json);
    auto [host, user] = who.value();
    auto record = app::visible_decision<decisions::ElicitationRecord>(*host, user, a.id);
    if (!record) return fail_operation(record.error(), a.json);
    auto given = answer_from(a, record.value());
    if (!given) return fail_operation(given.error(), a.json);
    InProcessResumer resumer(ctx, &op::Operator::resume_after_input);
    auto resolution = app::answer_and_resume(*host, a.id, user, given.value(), resumer.waiting_run());
    if (!resolution) return fail_operation(resolution.error(), a.json);
    const exec::SkillResult& result = resolution->call;
    if (a.json) {
        print_json(resolution->to_json());
        return result.ok ? kExitOk : kExitFailed;
    }
    const auto& answered = resolution->record;
    std::cout << "Answered " << answered.id << " (" << given->action << "); " << answered.skill_id << " ran again";
    if (result.ok) {
        std::cout << ":\n";
        print_json(result.output);
    } else {
        std::cout << (resolution->elicitation_id ? " and asks something more:\n" : " and did not finish:\n");
        print_error(result.error);
        if (resolution->elicitation_id) print_pending_question(*host, user, *resolution->elicitation_id);
    }
    resumer.print(resolution->run);
    return result.ok ? kExitOk : kExitFailed;
}

// `elicitations list` and `elicitations show`.
constexpr DecisionCommandTexts question_texts{
    .kind = decisions::DecisionKind::question,
    .show_help = "One question: what it asks, its fields, state and answer",
    .next_step = "answer ID --field NAME=VALUE ... | --content JSON | --decline | --cancel"};

}  // namespace

void print_pending_question(HostRuntime& host, const auth::UserContext& user, const std::string& id) {
    auto record = app::visible_decision<decisions::ElicitationRecord>(host, user, id);
    if (!record) return;
    std::cout << "\n" << record->to_text();
}

void register_elicitation_commands(CLI::App& app, CliContext& ctx) {
    auto* elicitations = app.add_subcommand(
        "elicitations", "Questions skills asked you during a call (list, show, answer; answering runs the call again)");
    elicitations->require_subcommand(1);
    add_list_and_show_commands<decisions::ElicitationRecord, decisions::ElicitationState, ElicitationArgs>(
        *elicitations, ctx, question_texts);

    auto aa = std::make_shared<ElicitationArgs>();
    auto* answer =
        add_decision_action(*elicitations, ctx, aa, decisions::DecisionKind::question, "answer",
                            "Answer a question; the skill that asked runs again with the answer (once)", run_answer);
    answer->add_option("--field", aa->fields,
                       "NAME=VALUE for one field of the form (repeat per field; repeat a multi-select per choice)");
    answer->add_option("--content", aa->content, "The whole answer as a JSON object, e.g. '{\"name\":\"Ada\"}'");
    answer->add_flag("--decline", aa->decline, "Decline to answer (the skill is told and decides what to do)");
    answer->add_flag("--cancel", aa->cancel, "Dismiss the question without a decision (the skill is told)");
    answer->footer(
        "Example: skillhost elicitations answer eli-0123456789abcdef --field name=Ada --field count=3\n"
        "`skillhost elicitations show ID` lists the fields, their types and choices.");
}

}  // namespace skillhost::cli
