// Every example in the built-in manifests runs successfully, in manifest order, against an empty
// data directory and an empty workspace — what `skillhost plugin check` does, and what planners
// are shown as canonical calls.
#include "plugins/builtin_host.hpp"

#include "support/subprocess.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skillhost::testing {
namespace {

TEST(BuiltinManifestExamples, EveryExampleSucceedsOnAFreshHome) {
    BuiltinHost host;
    ASSERT_EQ(host.catalog().plugins().size(), 3u);
    std::size_t examples = 0;
    for (const auto& plugin : host.catalog().plugins()) {
        for (const auto& spec : plugin->manifest().skills) {
            EXPECT_FALSE(spec.examples.empty()) << spec.id << " has no example";
            for (const auto& example : spec.examples) {
                auto r = host.call(spec.id, boost::json::serialize(example.args));
                EXPECT_TRUE(r.ok) << spec.id << " example '" << example.description << "': " << output_text(r);
                ++examples;
            }
            EXPECT_FALSE(spec.description.empty()) << spec.id;
            for (const auto& [name, schema] : spec.inputs.properties)
                EXPECT_FALSE(schema.description.empty()) << spec.id << "." << name << " has no description";
        }
    }
    EXPECT_GE(examples, 12u);
}

TEST(BuiltinManifestExamples, PluginCheckPassesOnEveryBuiltinManifest) {
    for (const char* name : {"tasks", "fs", "memory", "conversational_response"}) {
        TempDir home("skillhost-check-home");
        auto r = run_process({SKILLHOST_BINARY, "plugin", "check",
                              std::string(SKILLHOST_BUILTIN_PLUGIN_DIR) + "/" + name + ".yaml", "--home",
                              home.path().string()});
        EXPECT_EQ(r.exit_code, 0) << name << "\n" << r.out << r.err;
    }
}

}  // namespace
}  // namespace skillhost::testing
