/*
 * Bench-only plugin: one library file copied N times to measure discovery and loading of many
 * distinct plugins. A plugin's name must equal its manifest's, so instead of compiling N libraries
 * this one takes its name from the file it was loaded from (dladdr): "libbench_007.so" is plugin
 * "bench_007". The host loads a private copy named "<plugin name>-<pid>-<n>.so", so the name is the
 * file name without a leading "lib" and cut at the first '-' or '.'. Its one skill is "<name>_op".
 */
#define _GNU_SOURCE
#include <skillhost/skill_abi.h>

#include <dlfcn.h>
#include <string.h>

static char plugin_name[128];
static char skill_id[160];
static skillhost_skill skills[1];
static skillhost_plugin plugin;

static skillhost_status op(void* state, const skillhost_call_context* call, skillhost_string_view args,
                           const skillhost_result_writer* writer) {
    static const char empty[] = "{}";
    skillhost_string_view result = {empty, 2};
    (void)state;
    (void)call;
    (void)args;
    writer->write_result(writer->writer_context, result);
    return SKILLHOST_STATUS_OK;
}

static void derive_name(void) {
    Dl_info info;
    const char* base = "bench_plugin";
    size_t length;
    /* Any object of this library identifies its file; a data address avoids a function-pointer cast. */
    if (dladdr(&plugin, &info) && info.dli_fname) {
        const char* slash = strrchr(info.dli_fname, '/');
        base = slash ? slash + 1 : info.dli_fname;
        if (strncmp(base, "lib", 3) == 0) base += 3;
    }
    length = strcspn(base, "-.");
    if (length >= sizeof plugin_name) length = sizeof plugin_name - 1;
    memcpy(plugin_name, base, length);
    plugin_name[length] = '\0';
    strcpy(skill_id, plugin_name);
    strcat(skill_id, "_op");
}

SKILLHOST_EXPORT const skillhost_plugin* skillhost_plugin_entry(void) {
    /* The ABI calls the entry from one host thread at a time, so lazy set-up needs no lock. */
    if (!plugin.name) {
        skillhost_version version = SKILLHOST_ABI_VERSION_INIT;
        derive_name();
        skills[0].id = skill_id;
        skills[0].invoke = &op;
        plugin.abi_version = version;
        plugin.struct_size = (uint32_t)sizeof(skillhost_plugin);
        plugin.version = "1.0.0";
        plugin.skill_count = 1;
        plugin.skills = skills;
        plugin.init = NULL;
        plugin.shutdown = NULL;
        plugin.skill_struct_size = (uint32_t)sizeof(skillhost_skill);
        plugin.get_extension = NULL;
        plugin.name = plugin_name;
    }
    return &plugin;
}
