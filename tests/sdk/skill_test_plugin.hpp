// What the in-binary test plugin exposes to its test besides the C ABI entry point.
#pragma once

#include <skillhost/skill_abi.h>

struct PluginHookCounters {
    int init_calls = 0;
    int shutdown_calls = 0;
    bool refuse_init = false;  // makes the init hook throw SkillError("CONFIG_MISSING")
};

PluginHookCounters& test_plugin_hook_counters();

extern "C" const skillhost_plugin* skillhost_plugin_entry(void);
