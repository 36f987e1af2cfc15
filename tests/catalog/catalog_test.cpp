#include "catalog/catalog_render.hpp"
#include "catalog/catalog_snapshot.hpp"
#include "manifest/error_codes.hpp"
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
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// The shape fixtures (tests/fixtures/shapes): real libraries whose manifests have the shapes these
// tests render, loaded by the host's own loader.
std::shared_ptr<plugin::LoadedPlugin> shape(const std::string& name) {
    static testing::TempDir cache("skillhost-catalog-shapes");
    static plugin::PluginLoader loader(plugin::LoaderOptions{cache / "cache", {}});
    const auto manifest =
        std::filesystem::path(SKILLHOST_TEST_FIXTURES_BINARY_DIR) / ("shapes_" + name) / (name + ".yaml");
    auto loaded = loader.load_file(manifest);
    if (!loaded) {
        ADD_FAILURE() << manifest << ": " << loaded.error().code << ": " << loaded.error().message;
        return nullptr;
    }
    return loaded.value();
}

CatalogSnapshot two_plugin_catalog() {
    return CatalogSnapshot(7, {shape("tasks"), shape("fs")}, {});
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
    auto first = shape("tasks");
    auto second = shape("tasks_copy");
    plugin::PluginFailure earlier{"/plugins/broken.yaml", "", Error{errors::kManifestInvalid, "bad"}};
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
    const CatalogSnapshot catalog(1, {shape("sentences")}, {});
    EXPECT_EQ(catalog.render(RenderFormat::text),
              "Skills (inputs are strings unless a type is shown):\n"
              "- task_delete: Removes a task for good, e.g. a duplicate\n"
              "  inputs: id (integer) — The task id\n");
    EXPECT_EQ(json::parse(catalog.render(RenderFormat::json)).at(0).at("description"),
              "Removes a task for good, e.g. a duplicate. To keep it, use task_update.");
}

TEST(RenderText, SkillWithoutInputsSaysNone) {
    const CatalogSnapshot catalog(1, {shape("noop")}, {});
    EXPECT_THAT(catalog.render(RenderFormat::text), HasSubstr("  inputs: none\n"));
}

// A realistic built-in set: 15 skills with 2-4 described inputs each must fit the operator's prompt
// budget of 2,000 tokens (estimated as characters / 4).
TEST(RenderText, FifteenTypicalSkillsFitTheTokenBudget) {
    const CatalogSnapshot catalog(1, {shape("typical")}, {});
    ASSERT_EQ(catalog.entries().size(), 15u);
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
    const CatalogSnapshot catalog(1, {shape("noop")}, {});
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
