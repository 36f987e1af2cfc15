#include "mcp/approval_elicitation.hpp"

#include "base/json_text.hpp"

namespace skillhost::mcp {

namespace json = boost::json;

json::object approval_elicitation_params(std::string_view tool, const json::value& args, std::string_view approval_id,
                                         std::string_view why) {
    std::string message = "skillhost needs your approval to run '" + std::string(tool) + "' with " +
                          compact_json(args) + " (approval " + std::string(approval_id) + ").";
    if (!why.empty()) message += " " + std::string(why);
    json::object schema{
        {"type", "object"},
        {"properties",
         json::object{{"decision", json::object{{"type", "string"},
                                                {"title", "Decision"},
                                                {"description", "approve runs the call now; reject refuses it"},
                                                {"enum", json::array{"approve", "reject"}}}},
                      {"reason", json::object{{"type", "string"},
                                              {"title", "Reason"},
                                              {"description", "Why (recorded with a rejection)"}}}}},
        {"required", json::array{"decision"}}};
    return json::object{{"message", message}, {"requestedSchema", std::move(schema)}};
}

ApprovalAnswer read_approval_answer(const json::object& response) {
    ApprovalAnswer answer;
    const json::value* result = response.if_contains("result");
    if (!result || !result->is_object()) return answer;
    const json::value* action = result->get_object().if_contains("action");
    if (!action || !action->is_string()) return answer;
    if (action->get_string() == "decline") {
        answer.kind = ApprovalAnswer::Kind::reject;
        answer.reason = "declined by the user in the MCP client";
        return answer;
    }
    if (action->get_string() != "accept") return answer;
    const json::value* content = result->get_object().if_contains("content");
    if (!content || !content->is_object()) return answer;
    const json::object& c = content->get_object();
    if (const json::value* reason = c.if_contains("reason"); reason && reason->is_string())
        answer.reason = std::string(reason->get_string());
    const json::value* decision = c.if_contains("decision");
    if (!decision || !decision->is_string()) return answer;
    if (decision->get_string() == "approve") answer.kind = ApprovalAnswer::Kind::approve;
    if (decision->get_string() == "reject") {
        answer.kind = ApprovalAnswer::Kind::reject;
        if (answer.reason.empty()) answer.reason = "rejected by the user in the MCP client";
    }
    return answer;
}

}  // namespace skillhost::mcp
