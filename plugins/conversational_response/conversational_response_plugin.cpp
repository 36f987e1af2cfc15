// The `conversational_response` plugin: writes the operator's final answer from the observations it
// is given, with the host's persona model (through the SDK's completion service). The style sets
// how free the model may be: strict repeats the data only (temperature 0), summary condenses it,
// default answers naturally — always from the observations alone.
#include <skillhost/skill.hpp>

#include <string>

namespace {

using skillhost::Call;
using skillhost::Json;
using skillhost::SkillError;

std::string style_rules(const std::string& style) {
    if (style == "strict") {
        return "Repeat the data from the observations EXACTLY: same titles, numbers, dates and names. Add nothing that "
               "is not in them: no guesses, no advice, no filler. If the observations do not answer the goal, say so.";
    }
    if (style == "summary") {
        return "Summarise the observations briefly: the main points, counts and what is missing. Use only what the "
               "observations contain.";
    }
    return "Answer the goal naturally and helpfully, using only the data in the observations. Never invent tasks, "
           "files, dates or numbers. If something failed or is missing, say so plainly.";
}

Json conversational_response(const Call& call, const Json& args) {
    const std::string goal = args["goal"].as_string();
    const std::string style = args.string_or("style", "default");
    const Json& observations = args["observations"];

    std::string system = "You write the final answer for the user of a tool-using assistant. " + style_rules(style);
    if (const Json* instructions = args.find("instructions"); instructions && !instructions->is_null()) {
        system += "\n" + instructions->as_string();
    }
    std::string user = "Goal: " + goal + "\n\nObservations (JSON, one per tool call):\n" + observations.dump(2);
    if (const Json* history = args.find("history"); history && history->is_array() && history->size() > 0) {
        user = "Conversation so far:\n" + history->dump(2) + "\n\n" + user;
    }

    Json request = Json::object({{"messages", Json::array({Json::object({{"role", "system"}, {"content", system}}),
                                                           Json::object({{"role", "user"}, {"content", user}})})}});
    if (style == "strict") request["temperature"] = Json(0.0);
    // The host's builtin model reads this instead of the prose; remote models ignore it.
    request["context"] =
        Json::object({{"task", "answer"}, {"goal", goal}, {"style", style}, {"observations", observations}});
    if (const Json* instructions = args.find("instructions"); instructions && instructions->is_string()) {
        request["context"]["instructions"] = *instructions;
    }

    std::string answer = call.complete("persona", request);
    if (answer.empty()) {
        throw SkillError("EMPTY_ANSWER", "the persona model returned an empty answer; retry or check models.yaml",
                         Json::object({{"style", style}}));
    }
    return Json::object({{"answer", answer}, {"style", style}});
}

}  // namespace

SKILLHOST_PLUGIN("conversational_response", "1.0.0",
                 SKILLHOST_SKILL("conversational_response", conversational_response))
