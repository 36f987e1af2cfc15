// The builtin planner's view of its request: the tools (with their words, inputs and examples) and
// the steps taken so far (with the data each returned), plus the planner's JSON replies.
#pragma once

#include "language/goal_analysis.hpp"

#include <boost/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace skillhost::offline_model {

using namespace language;  // the offline model reads goals with the host's rule-based text analysis

struct Tool {
    std::string id;
    std::string description;
    std::set<std::string> id_words;
    std::set<std::string> description_words;
    boost::json::object properties;
    std::vector<std::string> required;
    std::vector<std::pair<std::string, boost::json::object>> examples;  // description, args
    std::vector<std::set<std::string>> example_words;
    std::set<std::string> outputs;  // the top-level fields of what the tool returns, when it declares them
    bool read_only = false;
};

struct Step {
    std::string tool;
    boost::json::object args;
    bool ok = false;
    boost::json::value data;  // what the tool returned, when the operator sent it
    std::string error_code;
    std::string error_message;
    std::vector<std::string> suggestions;
};

std::vector<Tool> read_tools(const boost::json::object& context);
std::vector<Step> read_steps(const boost::json::object& context);

std::string string_field(const boost::json::object& object, std::string_view key);

// The items of a find, list or search result: the objects of its first array.
std::vector<const boost::json::object*> result_items(const boost::json::value& data);

// Words a tool uses for each intent and each data domain.
const std::map<GoalVerb, std::set<std::string>>& verb_words();
const std::map<GoalDomain, std::set<std::string>>& domain_words();
bool any_in(const std::set<std::string>& haystack, const std::set<std::string>& needles);
// The tool is about `domain` (its id says so).
bool tool_in_domain(const Tool& tool, GoalDomain domain);
bool tool_does(const Tool& tool, GoalVerb verb);
bool declares(const Tool& tool, std::string_view input);
bool has_required(const Tool& tool, const boost::json::object& args);

// The first sentence of a tool's description, for naming it in an answer.
std::string short_description(const Tool& tool);

boost::json::object respond(std::string thought, std::string note = {}, std::string style = {});
boost::json::object act(std::string thought, const std::string& tool, boost::json::object args);

// The planner's parts, tried in this order; each returns a reply when the goal is its kind.
std::optional<boost::json::object> plan_entity_question(const GoalAnalysis& goal, const std::vector<Tool>& tools,
                                                        const std::vector<Step>& steps);
std::optional<boost::json::object> plan_item_change(const GoalAnalysis& goal, const std::vector<Tool>& tools,
                                                    const std::vector<Step>& steps);
std::optional<boost::json::object> plan_named_file(const GoalAnalysis& goal, const std::vector<Tool>& tools,
                                                   const std::vector<Step>& steps);
// A question whose answer sits inside the data (a file's line, a note, a memory): search every
// read-only free-text skill, read the best file, answer with the cited sentences or rows.
std::optional<boost::json::object> plan_content_question(const GoalAnalysis& goal, const std::vector<Tool>& tools,
                                                         const std::vector<Step>& steps);
std::optional<boost::json::object> plan_capability_gap(const GoalAnalysis& goal, const std::vector<Tool>& tools);
// When no tool fits an imperative goal ("restart the router"): the same honest answer.
std::optional<boost::json::object> plan_no_fit(const GoalAnalysis& goal, const std::vector<Tool>& tools);

// Tool ranking for a goal (higher fits better), shared by lookups and the capability answer.
int score_tool(const Tool& tool, const GoalAnalysis& goal);

struct RankedTool {
    const Tool* tool;
    int score;
};
// The tools best first; equal scores keep the catalog's order.
std::vector<RankedTool> rank_tools(const std::vector<Tool>& tools, const GoalAnalysis& goal);

}  // namespace skillhost::offline_model
