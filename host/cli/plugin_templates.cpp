#include "cli/plugin_templates.hpp"

namespace skillhost::cli::templates {

const std::string_view kCMakeLists =
    R"tmpl(# @NAME@: a skillhost plugin, built out of tree against the installed SkillhostSDK package.
#   cmake -S . -B build && cmake --build build    build (the manifest is validated first)
#   ctest --test-dir build                        its tests, then `skillhost plugin check`
#   cmake --install build                         into ~/.skillhost/plugins, where the host looks
# Where skillhost is installed, if not in a standard prefix: -DCMAKE_PREFIX_PATH=/that/prefix
cmake_minimum_required(VERSION 3.21)
project(@NAME@ LANGUAGES C CXX)

find_package(SkillhostSDK 0.1 REQUIRED)

# Where `cmake --install build` puts the library and manifest. The default is the plugin directory
# of your skillhost home; a package sets it, e.g. -D@NAME@_INSTALL_DIR=lib/skillhost/plugins.
if(DEFINED ENV{SKILLHOST_HOME})
  set(default_install_dir "$ENV{SKILLHOST_HOME}/plugins")
else()
  set(default_install_dir "$ENV{HOME}/.skillhost/plugins")
endif()
set(@NAME@_INSTALL_DIR "${default_install_dir}" CACHE PATH "Where to install the plugin")

# The library and a copy of the manifest land side by side in build/plugins/. The manifest is
# checked at build time, and its name and version reach the code as SKILLHOST_PLUGIN_NAME and
# SKILLHOST_PLUGIN_VERSION, so the version is written in the manifest only.
skillhost_add_plugin(@NAME@
  SOURCES @SOURCE@
  MANIFEST @NAME@.yaml
  INSTALL_DESTINATION "${@NAME@_INSTALL_DIR}")

option(@NAME@_BUILD_TESTS "Build the tests" ON)
if(@NAME@_BUILD_TESTS)
  enable_testing()
  find_package(GTest REQUIRED)
  include(GoogleTest)
  add_executable(@NAME@_test tests/@NAME@_test.cpp)
  set_target_properties(@NAME@_test PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
  target_link_libraries(@NAME@_test PRIVATE SkillhostSDK::testkit GTest::gtest GTest::gtest_main)
  # The built copy of the manifest, beside the library: the test kit loads both as the host does.
  target_compile_definitions(@NAME@_test PRIVATE PLUGIN_MANIFEST="$<TARGET_FILE_DIR:@NAME@>/@NAME@.yaml")
  add_dependencies(@NAME@_test @NAME@)
  gtest_discover_tests(@NAME@_test)
  # The host's conformance check: every manifest example, and invalid arguments.
  if(SKILLHOST_EXECUTABLE)
    add_test(NAME @NAME@_plugin_check
      COMMAND "${SKILLHOST_EXECUTABLE}" plugin check "$<TARGET_FILE_DIR:@NAME@>/@NAME@.yaml")
  endif()
endif()
)tmpl";

const std::string_view kManifest =
    R"tmpl(# Manifest of @NAME@: what the library provides. The host validates every call's arguments against
# it, shows it to agents and MCP clients, and applies policy by it. Every field is described in
# docs/manifest-reference.md (installed in share/skillhost/docs/).

name: @NAME@              # must equal the name the library declares (SKILLHOST_PLUGIN_NAME does)
version: "0.1.0"          # the plugin's version: written here only, compiled in as SKILLHOST_PLUGIN_VERSION
description: A skillhost plugin.   # one sentence, shown in `skillhost skills list` and to agents
library: lib@NAME@.so     # the library file, relative to this manifest
abi_version: "1.1"        # the oldest skill ABI the plugin needs (1.1: extensions)
skills:
  - id: @SKILL@           # unique across every plugin a host loads: prefix it with the plugin's name
    title: Greet someone  # a few words
    description: Returns a greeting for the given name.   # what it does; agents choose skills by it
    category: example     # free text that groups skills in catalogs
    inputs:               # a JSON Schema subset; the host refuses arguments that do not match
      type: object
      properties:
        name: {type: string, description: Who to greet., pattern: "\\S"}
      required: [name]
    outputs:              # what a result looks like (documentation for agents and MCP clients)
      type: object
      properties:
        message: {type: string, description: The greeting.}
    # risk: low | medium | high. Without it a skill is `medium`, and users below bounded_auto trust
    # (the default user included) must approve every call. Say what the skill really does.
    risk: low
    cost: free            # free | cheap | expensive: what a call costs (time, money, quota)
    min_trust: observe    # the lowest trust level that may call it at all
    requires_approval: false   # true: every call waits for an approval, whatever the trust
    annotations:          # hints for MCP clients and the policy
      read_only: true     # changes nothing
      destructive: false  # may delete or overwrite
      idempotent: true    # calling twice equals calling once
      open_world: false   # talks to the network or other outside systems
    timeout_ms: 2000      # the call's deadline; the skill sees it and is cancelled after it
    concurrency: parallel # parallel | serial (serial: the host never runs two calls of this skill at once)
    # path_inputs: [path] # inputs that are filesystem paths: the policy resolves them before matching rules
    error_hints:          # error code -> suggestions the caller (and the agent) sees with the error
      NAME_TOO_LONG:
        - "Pass a name of at most 64 bytes."
    examples:             # `skillhost plugin check` runs each one; agents learn from them
      - description: Greet Ada
        args: {name: Ada}
)tmpl";

const std::string_view kSourceC =
    R"tmpl(/* @NAME@: a skillhost plugin in C99. skill_c.h reads the arguments and writes the result; the host
 * has already validated the arguments against @NAME@.yaml. invoke() may run on several threads at
 * once: keep no mutable global state. */
#include <skillhost/skill_abi.h>
#include <skillhost/skill_c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static skillhost_status hello(void* plugin_state, const skillhost_call_context* call, skillhost_string_view args,
                              const skillhost_result_writer* writer) {
    char* name = NULL;
    char message[96];
    size_t size = 0;
    skillhost_json_out out = SKILLHOST_JSON_OUT_INIT;
    (void)plugin_state;
    (void)call;
    if (skillhost_arg_string(args, "name", &name, &size) != SKILLHOST_ARG_OK)
        return skillhost_fail(writer, SKILLHOST_STATUS_INVALID_ARGS, "INVALID_ARGS", "pass {\"name\": \"Ada\"}");
    if (size > 64) {
        free(name);
        /* The code is the key of error_hints in the manifest: the caller sees those suggestions. */
        return skillhost_fail(writer, SKILLHOST_STATUS_ERROR, "NAME_TOO_LONG", "the name is longer than 64 bytes");
    }
    snprintf(message, sizeof message, "Hello, %s!", name);
    free(name);
    skillhost_out_begin_object(&out, NULL);
    skillhost_out_string(&out, "message", message);
    skillhost_out_end_object(&out);
    return skillhost_out_send(&out, writer);
}

static const skillhost_skill skills[] = {
    {"@SKILL@", hello},
};

static const skillhost_plugin plugin = {
    SKILLHOST_ABI_VERSION_INIT,
    (uint32_t)sizeof(skillhost_plugin),
    SKILLHOST_PLUGIN_NAME,    /* from @NAME@.yaml, defined by skillhost_add_plugin() */
    SKILLHOST_PLUGIN_VERSION, /* likewise: change the version in the manifest only */
    (uint32_t)(sizeof skills / sizeof skills[0]),
    skills,
    NULL, /* init: nothing to prepare */
    NULL, /* shutdown: nothing to release */
    (uint32_t)sizeof(skillhost_skill),
    NULL, /* get_extension: none offered */
};

SKILLHOST_EXPORT const skillhost_plugin* skillhost_plugin_entry(void) {
    return &plugin;
}
)tmpl";

const std::string_view kSourceCpp =
    R"tmpl(// @NAME@: a skillhost plugin in C++. The host has already validated the arguments against
// @NAME@.yaml; a skill function may run on several threads at once.
#include <skillhost/skill.hpp>

#include <cstdint>
#include <string>

using skillhost::Call;
using skillhost::Json;

static Json hello(const Call& call, const Json& args) {
    const std::string& name = args["name"].as_string();
    if (name.size() > 64) {
        // The code is the key of error_hints in the manifest: the caller sees those suggestions.
        throw skillhost::SkillError("NAME_TOO_LONG", "the name is longer than 64 bytes",
                                    Json::object({{"length", static_cast<std::int64_t>(name.size())}}));
    }
    call.log(skillhost::LogLevel::debug, "greeting " + name);  // the host's log, attributed to this plugin
    return Json::object({{"message", "Hello, " + name + "!"}});
}

// Name and version come from @NAME@.yaml (skillhost_add_plugin() defines them).
SKILLHOST_PLUGIN(SKILLHOST_PLUGIN_NAME, SKILLHOST_PLUGIN_VERSION, SKILLHOST_SKILL("@SKILL@", hello))
)tmpl";

const std::string_view kTest =
    R"tmpl(// @NAME@'s tests. The test kit loads the plugin exactly as the host does (manifest validation,
// ABI check, manifest/library agreement) and runs every call through the host's executor.
#include <skillhost/testkit_gtest.hpp>

#include <gtest/gtest.h>

#include <string>

using skillhost::testkit::LoadedPluginUnderTest;

TEST(Plugin, Greets) {
    auto plugin = LoadedPluginUnderTest::load(PLUGIN_MANIFEST);
    auto r = plugin.call("@SKILL@", R"({"name":"Ada"})");
    ASSERT_SKILL_OK(r);
    EXPECT_EQ(r.result()["message"].as_string(), "Hello, Ada!");
}

TEST(Plugin, ATooLongNameFailsWithTheManifestsHint) {
    auto plugin = LoadedPluginUnderTest::load(PLUGIN_MANIFEST);
    auto r = plugin.call("@SKILL@", R"({"name":")" + std::string(65, 'a') + R"("})");
    ASSERT_SKILL_ERROR(r, "NAME_TOO_LONG");
    EXPECT_FALSE(r.suggestions.empty());
}

TEST(Plugin, TheHostRefusesArgumentsTheManifestForbids) {
    auto plugin = LoadedPluginUnderTest::load(PLUGIN_MANIFEST);
    EXPECT_SKILL_ERROR(plugin.call("@SKILL@", "{}"), "INVALID_ARGS");
    EXPECT_SKILL_ERROR(plugin.call("@SKILL@", R"({"name":"   "})"), "INVALID_ARGS");
}
)tmpl";

const std::string_view kReadme = R"tmpl(# @NAME@

A skillhost plugin. Its skill `@SKILL@` is described in `@NAME@.yaml`.

```sh
cmake -S . -B build && cmake --build build   # build; the manifest is validated first
ctest --test-dir build                       # the tests, then `skillhost plugin check`
cmake --install build                        # into ~/.skillhost/plugins (-D@NAME@_INSTALL_DIR=... to change)
skillhost call @SKILL@ --args '{"name":"Ada"}'
```

Without installing: `skillhost call @SKILL@ --plugin-dir build/plugins --args '{"name":"Ada"}'`.
MCP clients see the skill as a tool of `skillhost mcp` (stdio) or `skillhost serve` (HTTP).

To add a skill: declare it in `@NAME@.yaml` (id, inputs, outputs, risk, examples), write its
function, add it to the skills table, and test it in `tests/@NAME@_test.cpp`. The guide is
`share/skillhost/docs/plugin-authors.md` where skillhost is installed.
)tmpl";

const std::string_view kGitignore = "build/\n";

}  // namespace skillhost::cli::templates
