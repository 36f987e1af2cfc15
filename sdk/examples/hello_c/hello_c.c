/*
 * hello_c — a skillhost plugin in plain C99.
 *
 * It shows the whole contract a C author deals with: one exported entry function returning a
 * static descriptor, skills that read their JSON arguments and answer through the host's result
 * writer, and errors as {code, message, details}. skill_c.h reads the arguments (the host has
 * already validated them against the manifest: types, required members, defaults) and builds the
 * result JSON.
 *
 * SKILLHOST_PLUGIN_NAME and SKILLHOST_PLUGIN_VERSION come from the manifest: skillhost_add_plugin()
 * defines them, so the version is written in one place only.
 *
 * No global mutable state: invoke() may run on several host threads at once.
 */
#include <skillhost/skill_abi.h>
#include <skillhost/skill_c.h>

#include <stdlib.h>
#include <string.h>

static int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static skillhost_status word_count(void* plugin_state, const skillhost_call_context* call,
                                   skillhost_string_view args_json, const skillhost_result_writer* writer) {
    char* text = NULL;
    size_t size = 0, i, words = 0, characters = 0, lines = 0;
    int in_word = 0;
    skillhost_json_out out = SKILLHOST_JSON_OUT_INIT;
    (void)plugin_state;
    (void)call;
    if (skillhost_arg_string(args_json, "text", &text, &size) != SKILLHOST_ARG_OK)
        return skillhost_fail(writer, SKILLHOST_STATUS_INVALID_ARGS, "INVALID_ARGS",
                              "expected an object with a string member \"text\"; pass {\"text\": \"...\"}");
    for (i = 0; i < size; ++i) {
        unsigned char c = (unsigned char)text[i];
        if ((c & 0xC0) != 0x80) ++characters; /* count the first byte of each UTF-8 sequence */
        if (is_space(c)) {
            in_word = 0;
        } else if (!in_word) {
            in_word = 1;
            ++words;
        }
        if (c == '\n') ++lines;
    }
    if (size > 0 && text[size - 1] != '\n') ++lines;
    free(text);
    skillhost_out_begin_object(&out, NULL);
    skillhost_out_int(&out, "words", (int64_t)words);
    skillhost_out_int(&out, "characters", (int64_t)characters);
    skillhost_out_int(&out, "lines", (int64_t)lines);
    skillhost_out_end_object(&out);
    return skillhost_out_send(&out, writer);
}

static skillhost_status greet(void* plugin_state, const skillhost_call_context* call, skillhost_string_view args_json,
                              const skillhost_result_writer* writer) {
    /* `greeting` has a default in the manifest, so the host always passes it. */
    char *name = NULL, *greeting = NULL, *message;
    size_t name_size = 0, greeting_size = 0;
    skillhost_json_out out = SKILLHOST_JSON_OUT_INIT;
    (void)plugin_state;
    (void)call;
    if (skillhost_arg_string(args_json, "name", &name, &name_size) != SKILLHOST_ARG_OK ||
        skillhost_arg_string(args_json, "greeting", &greeting, &greeting_size) != SKILLHOST_ARG_OK) {
        free(name);
        return skillhost_fail(writer, SKILLHOST_STATUS_INVALID_ARGS, "INVALID_ARGS",
                              "expected string members \"name\" and \"greeting\"; pass {\"name\": \"Ada\"}");
    }
    message = (char*)malloc(greeting_size + name_size + 4);
    if (message) {
        memcpy(message, greeting, greeting_size);
        memcpy(message + greeting_size, ", ", 2);
        memcpy(message + greeting_size + 2, name, name_size);
        message[greeting_size + 2 + name_size] = '!';
        skillhost_out_begin_object(&out, NULL);
        skillhost_out_string_n(&out, "message", message, greeting_size + name_size + 3);
        skillhost_out_end_object(&out);
    }
    free(name);
    free(greeting);
    if (!message)
        return skillhost_fail(writer, SKILLHOST_STATUS_ERROR, "OUT_OF_MEMORY",
                              "the greeting did not fit in memory; use a shorter name");
    free(message);
    return skillhost_out_send(&out, writer);
}

/* ---- The descriptor and the one exported symbol ---------------------------------------------- */

static const skillhost_skill hello_skills[] = {
    {"word_count", word_count},
    {"greet", greet},
};

static const skillhost_plugin hello_plugin = {
    SKILLHOST_ABI_VERSION_INIT,
    (uint32_t)sizeof(skillhost_plugin),
    SKILLHOST_PLUGIN_NAME,    /* "hello_c", from the manifest */
    SKILLHOST_PLUGIN_VERSION, /* "1.0.0", from the manifest */
    (uint32_t)(sizeof hello_skills / sizeof hello_skills[0]),
    hello_skills,
    NULL,                              /* init: nothing to prepare */
    NULL,                              /* shutdown: nothing to release */
    (uint32_t)sizeof(skillhost_skill), /* 1.1: the stride of hello_skills */
    NULL,                              /* 1.1 get_extension: this plugin offers no extensions */
};

SKILLHOST_EXPORT const skillhost_plugin* skillhost_plugin_entry(void) {
    return &hello_plugin;
}
