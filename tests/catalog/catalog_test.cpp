#include "catalog/catalog_render.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "catalog/manifest_only_plugin.hpp"
#include "manifest/manifest.hpp"
#include "plugin/plugin_loader.hpp"
#include "support/temp_dir.hpp"

#include <boost/json/parse.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace skillhost::catalog {
namespace {

namespace json = boost::json;
using manifest::Schema;
using manifest::SchemaType;
using manifest::SkillSpec;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::manifest_only_plugin;
using ::testing::Not;

Schema typed(SchemaType type, std::string description = {}) {
    Schema s;
    s.type = type;
    s.description = std::move(description);
    return s;
}

SkillSpec skill(std::string id, std::string description = "Does something useful.") {
    SkillSpec spec;
    spec.id = std::move(id);
    spec.title = "Title of " + spec.id;
    spec.description = std::move(description);
    spec.category = "testing";
    spec.inputs = typed(SchemaType::object);
    spec.outputs = typed(SchemaType::any);
    spec.risk = manifest::Risk::low;
    spec.cost = manifest::Cost::free;
    return spec;
}

SkillSpec task_create() {
    SkillSpec spec = skill("task_create", "Creates a task\n  in the user's task list.");
    spec.title = "Create task";
    Schema title = typed(SchemaType::string, "Short title");
    Schema priority = typed(SchemaType::string, "How urgent");
    priority.enum_values = {json::value("low"), json::value("medium"), json::value("high")};
    priority.default_value = json::value("medium");
    Schema tags = typed(SchemaType::array);
    tags.items = std::make_shared<Schema>(typed(SchemaType::string));
    Schema estimate = typed(SchemaType::integer, "Minutes");
    estimate.minimum = 1;
    estimate.maximum = 480;
    spec.inputs.properties = {{"title", title}, {"priority", priority}, {"tags", tags}, {"estimate", estimate}};
    spec.inputs.required = {"title"};
    spec.outputs = typed(SchemaType::object);
    spec.outputs.properties = {{"id", typed(SchemaType::string, "New task id")}};
    spec.risk = manifest::Risk::medium;
    spec.requires_approval = true;
    spec.min_trust = manifest::TrustLevel::supervised_auto;
    spec.annotations.idempotent = false;
    spec.error_hints = {{"TASK_EXISTS", {"Use task_update for an existing task."}}};
    spec.examples = {{"A simple task", json::object{{"title", "Buy milk"}}}};
    return spec;
}

SkillSpec fs_read() {
    SkillSpec spec = skill("fs_read", "Reads a text file inside the workspace.");
    spec.inputs.properties = {{"path", typed(SchemaType::string, "File path")}};
    spec.inputs.required = {"path"};
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    spec.concurrency = manifest::Concurrency::serial;
    return spec;
}

CatalogSnapshot two_plugin_catalog() {
    return CatalogSnapshot(7, {manifest_only_plugin("tasks", {task_create()}), manifest_only_plugin("fs", {fs_read()})},
                           {});
}

TEST(CatalogSnapshot, EntriesAreSortedAndFindable) {
    const auto catalog = two_plugin_catalog();
    EXPECT_EQ(catalog.version(), 7u);
    ASSERT_EQ(catalog.entries().size(), 2u);
    EXPECT_EQ(catalog.entries()[0].spec->id, "fs_read");
    EXPECT_EQ(catalog.entries()[1].spec->id, "task_create");
    const CatalogEntry* found = catalog.find("task_create");
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->plugin->manifest().name, "tasks");
    EXPECT_EQ(catalog.find("task_delete"), nullptr);
    EXPECT_TRUE(catalog.failures().empty());
}

TEST(CatalogSnapshot, DuplicateSkillIdRejectsTheLaterPluginWhole) {
    auto first = manifest_only_plugin("tasks", {task_create()});
    auto second = manifest_only_plugin("tasks_copy", {skill("task_archive"), task_create()});
    plugin::PluginFailure earlier{"/plugins/broken.yaml", "", Error{"MANIFEST_INVALID", "bad"}};
    const CatalogSnapshot catalog(1, {first, second}, {earlier});

    EXPECT_EQ(catalog.entries().size(), 1u);
    EXPECT_EQ(catalog.find("task_archive"), nullptr) << "a clashing plugin contributes no skills";
    ASSERT_EQ(catalog.plugins().size(), 1u);
    EXPECT_EQ(catalog.plugins()[0]->manifest().name, "tasks");
    ASSERT_EQ(catalog.failures().size(), 2u);
    const auto& failure = catalog.failures()[1];
    EXPECT_EQ(failure.plugin_name, "tasks_copy");
    EXPECT_EQ(failure.error.code, "DUPLICATE_SKILL");
    EXPECT_THAT(failure.error.message, HasSubstr("tasks_copy"));
    EXPECT_THAT(failure.error.message, HasSubstr("plugin tasks already provides"));
    EXPECT_EQ(failure.error.details.at("skill"), "task_create");
    EXPECT_EQ(failure.error.details.at("already_provided_by"), "tasks");
}

TEST(CatalogSnapshot, RenderIsCachedPerFormat) {
    const auto catalog = two_plugin_catalog();
    const std::string& text = catalog.render(RenderFormat::text);
    const std::string& again = catalog.render(RenderFormat::text);
    EXPECT_EQ(&text, &again);
    const std::string& mcp = catalog.render(RenderFormat::mcp);
    EXPECT_NE(&text, &mcp);
    EXPECT_EQ(&mcp, &catalog.render(RenderFormat::mcp));
    EXPECT_EQ(text, render_catalog_text(all_entries(catalog)));
    EXPECT_EQ(json::parse(catalog.render(RenderFormat::openai)),
              json::value(render_catalog_openai(all_entries(catalog))));
    EXPECT_EQ(json::parse(catalog.render(RenderFormat::json)), json::value(render_catalog_json(all_entries(catalog))));
    EXPECT_EQ(catalog.render(RenderFormat::table), render_catalog_table(all_entries(catalog)));
}

TEST(RenderText, IsCompactAndCarriesWhatThePlannerNeeds) {
    const auto catalog = two_plugin_catalog();
    EXPECT_EQ(catalog.render(RenderFormat::text),
              "Skills (inputs are strings unless a type is shown):\n"
              "- fs_read: Reads a text file inside the workspace\n"
              "  inputs: path (required) — File path\n"
              "  notes: read-only\n"
              "- task_create: Creates a task in the user's task list\n"
              "  inputs: title (required) — Short title; priority — How urgent; enum "
              "low|medium|high; default \"medium\"; tags (array of string); estimate (integer) — Minutes; 1..480\n"
              "  outputs: id\n"
              "  notes: risk=medium, min trust=supervised_auto, needs approval\n");
}

TEST(RenderText, KeepsOnlyTheFirstSentenceOfDescriptions) {
    SkillSpec spec = skill("task_delete", "Removes a task for good, e.g. a duplicate. To keep it, use task_update.");
    spec.inputs.properties = {{"id", typed(SchemaType::integer, "The task id. Get it from task_find.")}};
    const CatalogSnapshot catalog(1, {manifest_only_plugin("p", {spec})}, {});
    EXPECT_EQ(catalog.render(RenderFormat::text),
              "Skills (inputs are strings unless a type is shown):\n"
              "- task_delete: Removes a task for good, e.g. a duplicate\n"
              "  inputs: id (integer) — The task id\n");
    EXPECT_EQ(json::parse(catalog.render(RenderFormat::json)).at(0).at("description"),
              "Removes a task for good, e.g. a duplicate. To keep it, use task_update.");
}

TEST(RenderText, SkillWithoutInputsSaysNone) {
    const CatalogSnapshot catalog(1, {manifest_only_plugin("p", {skill("noop", "Does nothing.")})}, {});
    EXPECT_THAT(catalog.render(RenderFormat::text), HasSubstr("  inputs: none\n"));
}

// A realistic built-in set: 15 skills with 2-4 described inputs each must fit the operator's prompt
// budget of 2,000 tokens (estimated as characters / 4).
TEST(RenderText, FifteenTypicalSkillsFitTheTokenBudget) {
    std::vector<SkillSpec> skills;
    const char* names[] = {"fs_read",     "fs_write",   "fs_list",       "fs_search",     "fs_stat",
                           "task_create", "task_list",  "task_update",   "task_delete",   "task_complete",
                           "memory_save", "memory_get", "memory_search", "memory_forget", "web_fetch"};
    for (const char* name : names) {
        SkillSpec spec = skill(name, std::string("Performs ") + name + " for the current user's workspace.");
        spec.inputs.properties = {{"path", typed(SchemaType::string, "Path relative to the workspace")},
                                  {"limit", typed(SchemaType::integer, "Maximum number of items")},
                                  {"query", typed(SchemaType::string, "What to look for")}};
        spec.inputs.required = {"path"};
        spec.outputs = typed(SchemaType::object);
        spec.outputs.properties = {{"items", typed(SchemaType::array)}, {"count", typed(SchemaType::integer)}};
        spec.annotations.read_only = true;
        skills.push_back(spec);
    }
    const CatalogSnapshot catalog(1, {manifest_only_plugin("builtin", skills)}, {});
    const std::string& text = catalog.render(RenderFormat::text);
    EXPECT_LE(text.size() / 4, 2000u) << text;
}

// The real built-in plugins, loaded as the host loads them, against the same budget.
TEST(RenderText, BuiltInCatalogFitsTheTokenBudget) {
    testing::TempDir home("skillhost-catalog-builtin");
    plugin::PluginLoader loader(plugin::LoaderOptions{home / "cache", {}});
    std::vector<std::shared_ptr<plugin::LoadedPlugin>> plugins;
    for (const auto& file : std::filesystem::directory_iterator(SKILLHOST_BUILTIN_PLUGIN_DIR)) {
        if (file.path().extension() != ".yaml") continue;
        auto loaded = loader.load_file(file.path());
        ASSERT_TRUE(loaded.ok()) << loaded.error().message;
        plugins.push_back(loaded.value());
    }
    ASSERT_EQ(plugins.size(),
              static_cast<std::size_t>(std::count_if(std::filesystem::directory_iterator(SKILLHOST_MANIFESTS_DIR), {},
                                                     [](const auto& f) { return f.path().extension() == ".yaml"; })))
        << "every manifest in manifests/ is a built plugin";
    const CatalogSnapshot catalog(1, plugins, {});
    ASSERT_TRUE(catalog.failures().empty()) << catalog.failures().front().error.message;
    const std::string& text = catalog.render(RenderFormat::text);
    RecordProperty("skills", static_cast<int>(catalog.entries().size()));
    const auto chars = static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // UTF-8 lead bytes: one per character
    }));
    RecordProperty("estimated_tokens", static_cast<int>(chars / 4));
    EXPECT_LE(chars / 4, 2000u) << text;
}

TEST(RenderTable, ColumnsAreAligned) {
    const auto catalog = two_plugin_catalog();
    std::istringstream lines(catalog.render(RenderFormat::table));
    std::vector<std::string> rows;
    for (std::string line; std::getline(lines, line);) rows.push_back(line);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_THAT(rows[0], ::testing::StartsWith("SKILL"));
    for (const char* column : {"PLUGIN", "VERSION", "RISK", "MIN TRUST", "FLAGS"}) {
        const auto at = rows[0].find(column);
        ASSERT_NE(at, std::string::npos) << column;
        for (std::size_t r = 1; r < rows.size(); ++r) {
            EXPECT_EQ(rows[r][at - 1], ' ') << "row " << r << " column " << column;
            EXPECT_NE(rows[r][at], ' ') << "row " << r << " column " << column;
        }
    }
    EXPECT_THAT(rows[1], HasSubstr("fs_read"));
    EXPECT_THAT(rows[1], HasSubstr("read-only,serial"));
    EXPECT_THAT(rows[2], HasSubstr("supervised_auto"));
    EXPECT_THAT(rows[2], HasSubstr("approval"));
    EXPECT_THAT(rows[2], HasSubstr("1.2.3"));
}

TEST(RenderMcp, ToolHasObjectSchemasAndAnnotations) {
    const auto catalog = two_plugin_catalog();
    const json::object tool = render_mcp_tool(*catalog.find("task_create"));
    EXPECT_EQ(tool.at("name"), "task_create");
    EXPECT_EQ(tool.at("title"), "Create task");
    EXPECT_EQ(tool.at("description"), "Creates a task in the user's task list.");
    const auto& input = tool.at("inputSchema").as_object();
    EXPECT_EQ(input.at("type"), "object");
    EXPECT_EQ(input.at("required"), json::parse(R"(["title"])"));
    EXPECT_EQ(input.at("properties").at("priority").at("enum"), json::parse(R"(["low","medium","high"])"));
    EXPECT_EQ(input.at("additionalProperties"), false);
    EXPECT_EQ(tool.at("outputSchema").at("type"), "object");
    // Results may carry fields the manifest does not list; a closed output schema would make MCP
    // clients reject them.
    EXPECT_FALSE(tool.at("outputSchema").as_object().contains("additionalProperties"));
    EXPECT_EQ(tool.at("annotations").at("readOnlyHint"), false);
    EXPECT_EQ(tool.at("annotations").at("destructiveHint"), false);

    const json::object read = render_mcp_tool(*catalog.find("fs_read"));
    EXPECT_FALSE(read.contains("outputSchema")) << "fs_read declares no object output";
    EXPECT_EQ(read.at("annotations").at("readOnlyHint"), true);
    EXPECT_EQ(read.at("annotations").at("idempotentHint"), true);
    EXPECT_EQ(read.at("annotations").at("openWorldHint"), false);
}

TEST(RenderMcp, InputSchemaIsAnObjectEvenWithoutInputs) {
    const CatalogSnapshot catalog(1, {manifest_only_plugin("p", {skill("noop")})}, {});
    const json::value tools = json::parse(catalog.render(RenderFormat::mcp));
    const auto& schema = tools.at(0).at("inputSchema").as_object();
    EXPECT_EQ(schema.at("type"), "object");
    EXPECT_TRUE(schema.at("properties").as_object().empty());
}

TEST(RenderOpenai, FunctionToolsWithParameters) {
    const auto catalog = two_plugin_catalog();
    const json::value tools = json::parse(catalog.render(RenderFormat::openai));
    ASSERT_EQ(tools.as_array().size(), 2u);
    const auto& tool = tools.at(1);
    EXPECT_EQ(tool.at("type"), "function");
    EXPECT_EQ(tool.at("function").at("name"), "task_create");
    EXPECT_EQ(tool.at("function").at("description"), "Creates a task in the user's task list.");
    EXPECT_EQ(tool.at("function").at("parameters").at("type"), "object");
    EXPECT_EQ(tool.at("function").at("parameters").at("properties").at("estimate").at("maximum"), 480);
}

TEST(RenderJson, CarriesEverythingTheManifestSays) {
    const auto catalog = two_plugin_catalog();
    const json::value skills = json::parse(catalog.render(RenderFormat::json));
    const auto& task = skills.at(1).as_object();
    EXPECT_EQ(task.at("id"), "task_create");
    EXPECT_EQ(task.at("plugin"), "tasks");
    EXPECT_EQ(task.at("plugin_version"), "1.2.3");
    EXPECT_EQ(task.at("risk"), "medium");
    EXPECT_EQ(task.at("cost"), "free");
    EXPECT_EQ(task.at("min_trust"), "supervised_auto");
    EXPECT_EQ(task.at("requires_approval"), true);
    EXPECT_EQ(task.at("timeout_ms"), 30000);
    EXPECT_EQ(task.at("concurrency"), "parallel");
    EXPECT_EQ(task.at("inputs").at("properties").at("title").at("type"), "string");
    EXPECT_EQ(task.at("outputs").at("properties").at("id").at("type"), "string");
    EXPECT_EQ(task.at("error_hints"),
              json::parse(R"([{"code":"TASK_EXISTS","suggestions":["Use task_update for an existing task."]}])"));
    EXPECT_EQ(task.at("examples"), json::parse(R"([{"description":"A simple task","args":{"title":"Buy milk"}}])"));
    EXPECT_EQ(skills.at(0).at("annotations"),
              json::parse(R"({"read_only":true,"destructive":false,"idempotent":true,"open_world":false})"));
    EXPECT_EQ(skills.at(0).at("concurrency"), "serial");
}

}  // namespace
}  // namespace skillhost::catalog
