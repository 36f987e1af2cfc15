// The operator's pure parts: planner output parsing, observation rendering, config, the lightweight choice.
#include "manifest/manifest.hpp"
#include "operator/lightweight_tool_choice.hpp"
#include "operator/observation_format.hpp"
#include "operator/operator_config.hpp"
#include "operator/planner_output.hpp"
#include "operator/planner_prompt.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::op {
namespace {

namespace json = boost::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(PlannerOutput, ReadsAnAction) {
    auto out = parse_planner_output(R"({"thought":"list","action":{"tool":"task_list","args":{"limit":3}}})");
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(out->thought, "list");
    ASSERT_TRUE(out->action);
    EXPECT_EQ(out->action->tool, "task_list");
    EXPECT_EQ(out->action->args.at("limit"), 3);
    EXPECT_FALSE(out->respond);
    EXPECT_FALSE(out->repaired);
}

TEST(PlannerOutput, ReadsARespondWithStyle) {
    auto out = parse_planner_output(R"({"thought":"done","respond":true,"response_style":"strict"})");
    ASSERT_TRUE(out.ok());
    EXPECT_TRUE(out->respond);
    EXPECT_EQ(out->response_style, "strict");
}

TEST(PlannerOutput, RepairsJsonInsideACodeFenceWithBracesInStrings) {
    auto out = parse_planner_output(
        "ok:\n```json\n{\"thought\":\"a } b {\",\"action\":{\"tool\":\"fs_read\",\"args\":{\"path\":\"x\"}}}\n```");
    ASSERT_TRUE(out.ok());
    EXPECT_TRUE(out->repaired);
    EXPECT_EQ(out->thought, "a } b {");
    EXPECT_EQ(out->action->tool, "fs_read");
}

TEST(PlannerOutput, SaysWhatIsWrong) {
    const auto reason = [](std::string_view text) {
        auto out = parse_planner_output(text);
        EXPECT_FALSE(out.ok()) << text;
        return out.ok() ? std::string() : std::string(out.error().details.at("reason").as_string());
    };
    EXPECT_EQ(reason("plain words"), "no JSON object found");
    EXPECT_THAT(reason(R"({"thought":"x"})"), HasSubstr("neither an action nor respond"));
    EXPECT_THAT(reason(R"({"thought":"x","action":{"args":{}}})"), HasSubstr("action.tool"));
    EXPECT_THAT(reason(R"({"thought":"x","action":{"tool":"t","args":[1]}})"), HasSubstr("args must be an object"));
    EXPECT_THAT(reason(R"({"thought":"x","respond":true,"response_style":"poetic"})"), HasSubstr("poetic"));
    auto out = parse_planner_output("nope");
    EXPECT_EQ(out.error().code, "PLANNER_OUTPUT_INVALID");
}

TEST(ActionKey, IgnoresKeyOrderAndALeadingDotSlash) {
    store::Action a{"fs_read", json::parse(R"({"path":"./x.md","max_bytes":10})").as_object()};
    store::Action b{"fs_read", json::parse(R"({"max_bytes":10,"path":"x.md"})").as_object()};
    store::Action c{"fs_read", json::parse(R"({"path":"y.md"})").as_object()};
    EXPECT_EQ(action_key(a), action_key(b));
    EXPECT_NE(action_key(a), action_key(c));
}

TEST(ObservationFormat, StructuredRendersListsAsBulletsWithTheirFields) {
    const auto payload = json::parse(
        R"({"tasks":[{"id":1,"title":"Water the plants","status":"open","tags":["home"],"due":null,"notes":""}],"count":1})");
    const auto text = render_structured(payload);
    EXPECT_THAT(text, HasSubstr("tasks (1):\n  - Water the plants (id: 1, status: open, tags: home)"));
    EXPECT_THAT(text, HasSubstr("count: 1"));
    EXPECT_THAT(text, ::testing::Not(HasSubstr("due")));
    EXPECT_THAT(text, ::testing::Not(HasSubstr("notes")));
}

TEST(ObservationFormat, MultiLineTextIsABlockAndVerbatimIsPrettyJson) {
    const auto payload = json::parse(R"({"path":"README.md","content":"# Title\nline two\n"})");
    EXPECT_THAT(render_structured(payload), HasSubstr("content:\n  # Title\n  line two"));
    EXPECT_THAT(render_observation(store::ObservationMode::verbatim, "fs_read", payload),
                HasSubstr("{\n  \"path\": \"README.md\",\n"));
    EXPECT_THAT(render_observation(store::ObservationMode::narrative, "fs_read", payload),
                HasSubstr("fs_read returned:\n"));
}

TEST(ObservationFormat, LimitTextSaysHowMuchWasLeftOut) {
    std::string text(100, 'a');
    text += "\n";
    text += std::string(100, 'b');
    const auto cut = limit_text(text, 150);
    EXPECT_THAT(cut, HasSubstr("[... 101 more characters not shown]"));
    EXPECT_EQ(limit_text("short", 150), "short");
}

TEST(OperatorConfig, DefaultsWhenTheFileIsAbsent) {
    auto config = load_operator_config("/nonexistent/operator.yaml");
    ASSERT_TRUE(config.ok());
    EXPECT_EQ(config->max_steps, 10);
    EXPECT_TRUE(config->verbatim);
    EXPECT_EQ(config->source, "(defaults)");
}

TEST(OperatorConfig, ReadsEverySetting) {
    auto config = parse_operator_config(
        "max_steps: 7\ntrim_to_last_n: 3\nverbatim: false\ngrounding: false\nerror_retry: false\nmax_retries: 2\n"
        "critic: true\nobservation: {mode: structured, max_chars: 900}\ndump_dir: dumps\ndefault_style: strict\n",
        "/etc/skillhost/operator.yaml");
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->max_steps, 7);
    EXPECT_EQ(config->trim_to_last_n, 3);
    EXPECT_FALSE(config->verbatim);
    EXPECT_FALSE(config->grounding);
    EXPECT_FALSE(config->error_retry);
    EXPECT_EQ(config->max_retries, 2);
    EXPECT_TRUE(config->critic);
    EXPECT_EQ(config->observation_mode, store::ObservationMode::structured);
    EXPECT_EQ(config->observation_max_chars, 900u);
    EXPECT_EQ(config->dump_dir, std::filesystem::path("/etc/skillhost/dumps"));
    EXPECT_EQ(config->default_style, "strict");
}

TEST(OperatorConfig, ReportsEveryProblemWithFileAndLine) {
    // yaml-cpp 0.7 would allocate until the process dies on this line: refused with its position.
    auto hanging = parse_operator_config("max_steps: 3\n ,  x:\n", "/etc/operator.yaml");
    ASSERT_FALSE(hanging.ok());
    EXPECT_THAT(hanging.error().message, HasSubstr("/etc/operator.yaml:2:2"));

    auto config = parse_operator_config("max_steps: lots\nverbatim: maybe\nobservation:\n  mode: poem\nsteps: 3\n",
                                        "/etc/operator.yaml");
    ASSERT_FALSE(config.ok());
    EXPECT_EQ(config.error().code, "OPERATOR_CONFIG_INVALID");
    EXPECT_THAT(config.error().message, HasSubstr("/etc/operator.yaml:1:"));
    const auto& problems = config.error().details.at("problems").as_array();
    ASSERT_EQ(problems.size(), 4u);
    const std::string all = json::serialize(problems);
    EXPECT_THAT(all, HasSubstr("whole number"));
    EXPECT_THAT(all, HasSubstr("true or false"));
    EXPECT_THAT(all, HasSubstr("narrative, structured or verbatim"));
    EXPECT_THAT(all, HasSubstr("unknown setting"));
}

// The lightweight route picks its one call by what manifests declare, never by id: a third-party
// journal and notebook take part like the built-in skills, and a skill that writes never does.
TEST(LightweightToolChoice, ChoosesByAnnotationsInputsAndPurposeNotById) {
    auto manifest = manifest::parse_manifest(R"(name: journal
version: 1.0.0
library: libjournal.so
abi_version: "1.0"
skills:
  - id: jn_write
    description: Writes a note into the journal.
    category: notes
    annotations: {read_only: false}
    inputs: {properties: {text: {type: string}}, required: [text]}
  - id: jn_lookup
    description: Finds notes in the journal by the words they contain.
    category: notes
    annotations: {read_only: true}
    inputs: {properties: {text: {type: string}, limit: {type: integer}}, required: [text]}
  - id: jn_window
    description: The journal's events that happened in a time window, newest first.
    category: events
    annotations: {read_only: true}
    inputs: {properties: {when: {type: string}}}
  - id: chores_all
    description: Lists the household tasks and chores still to do.
    category: tasks
    annotations: {read_only: true}
    inputs: {properties: {include_completed: {type: boolean}}}
)",
                                             "journal.yaml");
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;
    std::vector<catalog::CatalogEntry> owned;
    for (const auto& skill : manifest->skills) owned.push_back({&skill, nullptr});
    std::vector<const catalog::CatalogEntry*> entries;
    for (const auto& entry : owned) entries.push_back(&entry);

    auto factual = choose_lightweight_call(entries, {"factual", "ferry times", std::nullopt, false});
    ASSERT_TRUE(factual);
    EXPECT_EQ(factual->tool, "jn_lookup");
    EXPECT_EQ(factual->args, json::parse(R"({"text":"ferry times"})"));
    auto temporal = choose_lightweight_call(entries, {"temporal", "", std::string("yesterday"), false});
    ASSERT_TRUE(temporal);
    EXPECT_EQ(temporal->tool, "jn_window");
    EXPECT_EQ(temporal->args, json::parse(R"({"when":"yesterday"})"));
    auto task = choose_lightweight_call(entries, {"task", "", std::nullopt, true});
    ASSERT_TRUE(task);
    EXPECT_EQ(task->tool, "chores_all");
    EXPECT_EQ(task->args, json::parse(R"({"include_completed":true})"));

    // Without a read-only skill for the intent there is no call, not a writer's.
    std::vector<const catalog::CatalogEntry*> writer_only{entries.front()};
    EXPECT_FALSE(choose_lightweight_call(writer_only, {"factual", "ferry", std::nullopt, false}));
}

}  // namespace
}  // namespace skillhost::op
