// Valid manifests: every field is read with the right value and JSON type, and defaults apply.
#include "manifest_test_support.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace skillhost::manifest {
namespace {

using testing::parse;
using testing::parsed_ok;
namespace json = boost::json;

const std::filesystem::path kFixtures = std::filesystem::path(SKILLHOST_TEST_FIXTURES_SOURCE_DIR) / "manifests";

TEST(ManifestValid, FullManifestRoundTripsEveryField) {
    const Manifest manifest = parsed_ok(load_manifest(kFixtures / "tasks_full.yaml"));
    EXPECT_EQ(manifest.name, "tasks");
    EXPECT_EQ(manifest.version, "1.0.0");
    EXPECT_EQ(manifest.description, "Per-user task list");
    EXPECT_EQ(manifest.library, "libtasks.so");
    EXPECT_EQ(manifest.abi.major, 1u);
    EXPECT_EQ(manifest.abi.minor, 0u);  // written as the YAML number 1.0
    EXPECT_EQ(manifest.file, kFixtures / "tasks_full.yaml");
    EXPECT_EQ(manifest.library_path(), kFixtures / "libtasks.so");
    ASSERT_EQ(manifest.skills.size(), 2u);

    const SkillSpec& list = manifest.skills[0];
    EXPECT_EQ(list.id, "task_list");
    EXPECT_EQ(list.title, "List tasks");
    EXPECT_EQ(list.description, "Lists the user's tasks, newest first");
    EXPECT_EQ(list.category, "tasks");
    EXPECT_EQ(list.position.line, 8);
    EXPECT_EQ(list.position.column, 5);
    EXPECT_EQ(list.risk, Risk::low);
    EXPECT_EQ(list.cost, Cost::free);
    EXPECT_EQ(list.min_trust, TrustLevel::suggest);
    EXPECT_FALSE(list.requires_approval);
    EXPECT_TRUE(list.annotations.read_only);
    EXPECT_FALSE(list.annotations.destructive);
    EXPECT_TRUE(list.annotations.idempotent);
    EXPECT_FALSE(list.annotations.open_world);
    EXPECT_EQ(list.timeout_ms, 5000u);
    EXPECT_EQ(list.concurrency, Concurrency::serial);
    EXPECT_TRUE(list.path_inputs.empty());

    // inputs, in manifest order, with values converted to the declared JSON types
    const Schema& inputs = list.inputs;
    EXPECT_EQ(inputs.type, SchemaType::object);
    ASSERT_EQ(inputs.properties.size(), 5u);
    EXPECT_EQ(inputs.properties[0].first, "status");
    EXPECT_EQ(inputs.properties[4].first, "ratio");
    EXPECT_EQ(inputs.required, std::vector<std::string>{"status"});
    EXPECT_TRUE(inputs.is_required("status"));
    EXPECT_FALSE(inputs.is_required("limit"));
    EXPECT_EQ(inputs.property("missing"), nullptr);

    const Schema* status = inputs.property("status");
    ASSERT_NE(status, nullptr);
    EXPECT_EQ(status->type, SchemaType::string);
    EXPECT_EQ(status->description, "Only tasks with this status");
    EXPECT_EQ(status->enum_values, (std::vector<json::value>{"open", "in_progress", "done"}));

    const Schema* limit = inputs.property("limit");
    ASSERT_NE(limit, nullptr);
    EXPECT_EQ(limit->type, SchemaType::integer);
    EXPECT_EQ(limit->minimum, 1.0);
    EXPECT_EQ(limit->maximum, 500.0);
    ASSERT_TRUE(limit->default_value.has_value());
    EXPECT_TRUE(limit->default_value->is_int64()) << "a quoted \"50\" under type: integer becomes the number 50";
    EXPECT_EQ(limit->default_value->as_int64(), 50);

    const Schema* tags = inputs.property("tags");
    ASSERT_NE(tags, nullptr);
    EXPECT_EQ(tags->type, SchemaType::array);
    ASSERT_NE(tags->items, nullptr);
    EXPECT_EQ(tags->items->type, SchemaType::string);
    EXPECT_EQ(tags->items->pattern, "^[a-z]+$");

    const Schema* verbose = inputs.property("verbose");
    ASSERT_NE(verbose, nullptr);
    ASSERT_TRUE(verbose->default_value.has_value());
    EXPECT_EQ(*verbose->default_value, json::value(false));

    const Schema* ratio = inputs.property("ratio");
    ASSERT_NE(ratio, nullptr);
    EXPECT_EQ(ratio->type, SchemaType::number);
    EXPECT_EQ(*ratio->default_value, json::value(0.5));

    // outputs
    EXPECT_EQ(list.outputs.type, SchemaType::object);
    const Schema* listed = list.outputs.property("tasks");
    ASSERT_NE(listed, nullptr);
    ASSERT_NE(listed->items, nullptr);
    EXPECT_EQ(listed->items->type, SchemaType::object);
    ASSERT_NE(listed->items->property("id"), nullptr);

    // error hints: a list, or one string standing for a list of one
    ASSERT_EQ(list.error_hints.size(), 2u);
    const ErrorHint* not_found = list.hint_for("TASK_NOT_FOUND");
    ASSERT_NE(not_found, nullptr);
    EXPECT_EQ(not_found->suggestions,
              (std::vector<std::string>{"Use task_find to look up the id by title", "Use task_list to see all tasks"}));
    const ErrorHint* locked = list.hint_for("STORE_LOCKED");
    ASSERT_NE(locked, nullptr);
    EXPECT_EQ(locked->suggestions, std::vector<std::string>{"Try again in a moment"});
    EXPECT_EQ(list.hint_for("OTHER"), nullptr);

    // examples: args get the JSON types of the inputs they fill
    ASSERT_EQ(list.examples.size(), 1u);
    EXPECT_EQ(list.examples[0].description, "List open tasks");
    EXPECT_EQ(list.examples[0].args, (json::object{{"status", "open"}, {"limit", 10}, {"tags", json::array{"home"}}}));

    const SkillSpec* exporter = manifest.skill("task_export");
    ASSERT_NE(exporter, nullptr);
    EXPECT_EQ(exporter, &manifest.skills[1]);
    EXPECT_EQ(manifest.skill("task_missing"), nullptr);
    EXPECT_EQ(exporter->title, "task_export") << "title defaults to the id";
    EXPECT_EQ(exporter->path_inputs, std::vector<std::string>{"path"});
    EXPECT_TRUE(exporter->requires_approval);
    EXPECT_EQ(exporter->risk, Risk::high);
    EXPECT_EQ(exporter->cost, Cost::expensive);
    EXPECT_EQ(exporter->min_trust, TrustLevel::bounded_auto);
    EXPECT_EQ(exporter->outputs.type, SchemaType::any) << "no outputs declared";
}

TEST(ManifestValid, OmittedSkillFieldsTakeTheirDefaults) {
    const Manifest manifest = parsed_ok(parse(R"yaml(name: demo
version: "2"
library: /opt/plugins/libdemo.so
abi_version: "1.3"
skills:
  - id: ping
    description: Answers pong
)yaml"));
    EXPECT_EQ(manifest.abi.major, 1u);
    EXPECT_EQ(manifest.abi.minor, 3u);
    EXPECT_EQ(manifest.description, "");
    EXPECT_EQ(manifest.library_path(), std::filesystem::path("/opt/plugins/libdemo.so"))
        << "absolute library paths stay";
    ASSERT_EQ(manifest.skills.size(), 1u);
    const SkillSpec& ping = manifest.skills[0];
    EXPECT_EQ(ping.title, "ping");
    EXPECT_EQ(ping.category, "");
    EXPECT_EQ(ping.inputs.type, SchemaType::object);
    EXPECT_TRUE(ping.inputs.properties.empty());
    EXPECT_EQ(ping.outputs.type, SchemaType::any);
    EXPECT_EQ(ping.risk, Risk::medium);
    EXPECT_EQ(ping.cost, Cost::cheap);
    EXPECT_EQ(ping.min_trust, TrustLevel::observe);
    EXPECT_FALSE(ping.requires_approval);
    EXPECT_FALSE(ping.annotations.read_only || ping.annotations.destructive || ping.annotations.idempotent ||
                 ping.annotations.open_world);
    EXPECT_EQ(ping.timeout_ms, 30000u);
    EXPECT_EQ(ping.concurrency, Concurrency::parallel);
    EXPECT_TRUE(ping.error_hints.empty());
    EXPECT_TRUE(ping.examples.empty());
}

TEST(ManifestValid, UntypedValuesKeepTheTypeYamlGivesThem) {
    const Manifest manifest = parsed_ok(parse(R"yaml(name: demo
version: 1.0.0
library: libdemo.so
abi_version: "1.0"
skills:
  - id: echo
    description: Echoes its input
    inputs:
      properties:
        anything: {default: {count: 3, ratio: 1.5, on: true, label: "7", none: ~, list: [1, x]}}
    outputs: {type: object, properties: {}}
)yaml"));
    const Schema* anything = manifest.skills.at(0).inputs.property("anything");
    ASSERT_NE(anything, nullptr);
    EXPECT_EQ(anything->type, SchemaType::any);
    EXPECT_EQ(*anything->default_value,
              json::parse(R"({"count":3,"ratio":1.5,"on":true,"label":"7","none":null,"list":[1,"x"]})"));
    EXPECT_EQ(manifest.skills.at(0).outputs.type, SchemaType::object);
}

TEST(ManifestValid, EnumValuesAndDefaultsFollowTheDeclaredType) {
    const Manifest manifest = parsed_ok(parse(R"yaml(name: demo
version: 1.0.0
library: libdemo.so
abi_version: "1.0"
skills:
  - id: pick
    description: Picks a level
    inputs:
      properties:
        level: {type: integer, enum: ["1", 2, 3], default: 2}
        code: {type: string, enum: [1, yes], default: "1"}
        scale: {type: number, enum: [1, 2.5], default: 1.0}
)yaml"));
    const Schema& inputs = manifest.skills.at(0).inputs;
    EXPECT_EQ(inputs.property("level")->enum_values, (std::vector<json::value>{1, 2, 3}));
    EXPECT_EQ(inputs.property("code")->enum_values, (std::vector<json::value>{"1", "yes"}));
    EXPECT_EQ(*inputs.property("code")->default_value, json::value("1"));
    EXPECT_EQ(*inputs.property("scale")->default_value, json::value(1.0)) << "1.0 matches enum value 1 by number";
}

// `state:` says where a plugin keeps what it remembers; without it the host assumes files in the
// data directory (the only place it cannot see into), so a scaled-out host warns about it.
TEST(ManifestValid, StateSaysWhereThePluginKeepsItsDataAndDefaultsToFiles) {
    const std::string head = "name: demo\nversion: 1.0.0\nlibrary: libdemo.so\nabi_version: \"1.0\"\n";
    const std::string skills = "skills:\n  - id: ping\n    description: Answers pong\n";
    EXPECT_EQ(parsed_ok(parse(head + skills)).state, PluginState::files);
    EXPECT_EQ(parsed_ok(parse(head + "state: files\n" + skills)).state, PluginState::files);
    EXPECT_EQ(parsed_ok(parse(head + "state: host_storage\n" + skills)).state, PluginState::host_storage);
    EXPECT_EQ(parsed_ok(parse(head + "state: none\n" + skills)).state, PluginState::none);
    for (PluginState value : {PluginState::files, PluginState::host_storage, PluginState::none})
        EXPECT_EQ(parsed_ok(parse(head + "state: " + std::string(to_string(value)) + "\n" + skills)).state, value);

    const ManifestProblem wrong = testing::only_problem(parse(head + "state: database\n" + skills));
    EXPECT_EQ(wrong.field, "state");
    EXPECT_EQ(wrong.line, 5);
    EXPECT_NE(wrong.message.find("host_storage"), std::string::npos) << wrong.message;
    EXPECT_NE(wrong.message.find("database"), std::string::npos) << wrong.message;
}

TEST(SkillSpecNames, EveryEnumValueRoundTripsThroughItsName) {
    for (Risk value : {Risk::low, Risk::medium, Risk::high}) EXPECT_EQ(parse_risk(to_string(value)), value);
    for (Cost value : {Cost::free, Cost::cheap, Cost::expensive}) EXPECT_EQ(parse_cost(to_string(value)), value);
    for (TrustLevel value : {TrustLevel::observe, TrustLevel::suggest, TrustLevel::supervised_auto,
                             TrustLevel::bounded_auto, TrustLevel::adaptive_auto}) {
        EXPECT_EQ(parse_trust_level(to_string(value)), value);
    }
    for (Concurrency value : {Concurrency::parallel, Concurrency::serial}) {
        EXPECT_EQ(parse_concurrency(to_string(value)), value);
    }
    EXPECT_STREQ(to_string(TrustLevel::supervised_auto), "supervised_auto");
    EXPECT_EQ(parse_risk("Low"), std::nullopt);
    EXPECT_EQ(parse_cost(""), std::nullopt);
    EXPECT_EQ(parse_trust_level("admin"), std::nullopt);
    EXPECT_EQ(parse_concurrency("serialised"), std::nullopt);
    EXPECT_LT(TrustLevel::observe, TrustLevel::adaptive_auto);
}

}  // namespace
}  // namespace skillhost::manifest
