// What the test plugin (a real shared library, loaded with dlopen) exports besides the C ABI entry
// point: its init/shutdown counters, so the test can see what the hooks did.
#pragma once

#include <skillhost/skill_abi.h>

struct PluginHookCounters {
    int init_calls = 0;
    int shutdown_calls = 0;
    bool refuse_init = false;  // makes the init hook throw SkillError("CONFIG_MISSING")
};

// The symbol the test looks up with dlsym.
#define SKILLHOST_TEST_PLUGIN_COUNTERS_SYMBOL "skillhost_test_plugin_hook_counters"
extern "C" PluginHookCounters* skillhost_test_plugin_hook_counters(void);
