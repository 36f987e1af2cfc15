/*
 * "skillhost.prompts/1" — plugin extension: prompt templates the plugin publishes (MCP prompts/list,
 * prompts/get) and completion of their arguments (MCP completion/complete).
 *
 * Pure C99 on top of skill_abi.h; a plugin includes it beside skill_abi.h (skill.hpp does).
 * Return the table from the plugin's get_extension() for SKILLHOST_EXT_PROMPTS.
 *
 * A prompt is a named, parameterised list of messages a user picks in a client ("summarise this
 * file", "plan a week"). The host shows a plugin's prompts to a user only when that user may call
 * `governing_skill` (visible in their mode, trust high enough, not denied or sent to approval by
 * their rules), exactly as for "skillhost.resources/1".
 *
 * Every function answers through `writer` with one JSON value (the host copies it before
 * returning) and returns SKILLHOST_STATUS_OK, or writes an error and returns a non-OK status. The
 * call context is the user's, as for a skill call: skill_id is `governing_skill`, data_dir and
 * workspace_root are set, the deadline is short (seconds) and is_cancelled() works.
 * Threading: [call-thread] any of these may run concurrently with each other and with invoke(),
 * whatever the manifest says about `concurrency`.
 * Lifetime: every string view passed in lives until the function returns; copy it to keep it.
 *
 * Limits the host enforces (an answer beyond them is an error to the client naming the limit, and
 * the plugin's prompts are left out of a listing): SKILLHOST_PROMPTS_MAX_PROMPTS prompts per
 * plugin, SKILLHOST_PROMPTS_MAX_ARGUMENTS arguments per prompt, SKILLHOST_PROMPTS_MAX_MESSAGES
 * messages per prompt, SKILLHOST_PROMPTS_MAX_ANSWER_BYTES per answer, names of at most
 * SKILLHOST_PROMPTS_MAX_NAME_BYTES bytes, SKILLHOST_COMPLETION_MAX_VALUES completion values of at
 * most SKILLHOST_COMPLETION_MAX_VALUE_BYTES bytes each.
 */
#ifndef SKILLHOST_SKILL_PROMPTS_H
#define SKILLHOST_SKILL_PROMPTS_H

#include "skill_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SKILLHOST_EXT_PROMPTS "skillhost.prompts/1"

#define SKILLHOST_PROMPTS_MAX_PROMPTS 1000
#define SKILLHOST_PROMPTS_MAX_ARGUMENTS 32
#define SKILLHOST_PROMPTS_MAX_MESSAGES 64
#define SKILLHOST_PROMPTS_MAX_NAME_BYTES 256
#define SKILLHOST_PROMPTS_MAX_ANSWER_BYTES (8u * 1024u * 1024u)
#define SKILLHOST_COMPLETION_MAX_VALUES 100
#define SKILLHOST_COMPLETION_MAX_VALUE_BYTES 1024

typedef struct skillhost_prompts_v1 {
    /* NUL-terminated, static lifetime: the plugin's skill whose policy governs its prompts. */
    const char* governing_skill;

    /*
     * [call-thread] Writes {"prompts":[{"name","title"?,"description"?,"arguments"?:[
     *     {"name","title"?,"description"?,"required"?:bool,"enum"?:["value",...]}]}]}.
     * name is required and unique within the plugin. An argument's "enum" (strings) is what
     * completion/complete offers for it without asking complete() below; it does not restrict
     * what get() receives. May be NULL (a plugin that only completes resource-template arguments).
     */
    skillhost_status (*list)(void* plugin_state, const skillhost_call_context* call,
                             const skillhost_result_writer* writer);

    /*
     * [call-thread] Renders prompt `name` (UTF-8) with `arguments_json`, a JSON object mapping
     * argument names to strings; the host has already checked that every required argument is
     * there. Writes {"description"?:"...","messages":[{"role":"user"|"assistant","content":ITEM}]}
     * where ITEM is one content item as "skillhost.content/1" describes it (text, image, audio,
     * resource_link, resource). For a name the plugin does not know, write the error code
     * "PROMPT_NOT_FOUND". Never NULL when `list` is set.
     */
    skillhost_status (*get)(void* plugin_state, const skillhost_call_context* call, skillhost_string_view name,
                            skillhost_string_view arguments_json, const skillhost_result_writer* writer);

    /*
     * [call-thread] Suggests values for one argument while the user types it. `request_json`:
     *   {"ref":{"type":"ref/prompt","name":"<prompt>"} | {"type":"ref/resource","uri":"<uriTemplate>"},
     *    "argument":{"name":"<argument>","value":"<what the user typed so far>"},
     *    "context":{"arguments":{"<other argument>":"<value>",...}}}
     * The host asks it for the plugin's own prompts and for templates the same plugin publishes
     * through "skillhost.resources/1". Writes {"values":["...",...],"total"?:integer,
     * "hasMore"?:bool}: at most SKILLHOST_COMPLETION_MAX_VALUES values (more are an error), best
     * first. May be NULL: then only the arguments' enums are offered.
     */
    skillhost_status (*complete)(void* plugin_state, const skillhost_call_context* call,
                                 skillhost_string_view request_json, const skillhost_result_writer* writer);
} skillhost_prompts_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SKILLHOST_SKILL_PROMPTS_H */
