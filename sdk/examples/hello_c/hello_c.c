/*
 * hello_c — a skillhost plugin in plain C99, using nothing but skill_abi.h.
 *
 * It shows the whole contract a C author deals with: one exported entry function returning a
 * static descriptor, skills that read their JSON arguments and answer through the host's result
 * writer, and errors as {code, message, details}. The host has already validated the arguments
 * against the manifest (types, required members, defaults), so the small reader below only has
 * to decode an object whose members are strings.
 *
 * No global mutable state: invoke() may run on several host threads at once.
 */
#include <skillhost/skill_abi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Small helpers ---------------------------------------------------------------------------- */

static skillhost_string_view view_of(const char* text) {
    skillhost_string_view v;
    v.data = text;
    v.size = strlen(text);
    return v;
}

static skillhost_status fail(const skillhost_result_writer* writer, skillhost_status status, const char* code,
                             const char* message) {
    writer->write_error(writer->writer_context, view_of(code), view_of(message), view_of(""));
    return status;
}

/* A growable byte buffer for building result JSON. */
typedef struct text_buffer {
    char* data;
    size_t size;
    size_t capacity;
    int failed; /* set when an allocation failed; the buffer then stays as it was */
} text_buffer;

static void buffer_append(text_buffer* b, const char* bytes, size_t n) {
    if (b->failed) return;
    if (b->size + n + 1 > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 64;
        char* grown;
        while (b->size + n + 1 > capacity) capacity *= 2;
        grown = (char*)realloc(b->data, capacity);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->size, bytes, n);
    b->size += n;
    b->data[b->size] = '\0';
}

static void buffer_append_text(text_buffer* b, const char* text) {
    buffer_append(b, text, strlen(text));
}

/* Appends `s` as a JSON string literal, escaping quotes, backslashes and control characters. */
static void buffer_append_json_string(text_buffer* b, const char* s, size_t n) {
    size_t i;
    buffer_append(b, "\"", 1);
    for (i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char escaped[2];
            escaped[0] = '\\';
            escaped[1] = (char)c;
            buffer_append(b, escaped, 2);
        } else if (c < 0x20) {
            char escaped[8];
            snprintf(escaped, sizeof escaped, "\\u%04x", c);
            buffer_append(b, escaped, 6);
        } else {
            buffer_append(b, (const char*)&s[i], 1);
        }
    }
    buffer_append(b, "\"", 1);
}

/* ---- Reading the arguments: a JSON object of string members ------------------------------------ */

typedef struct string_arg {
    const char* name;
    char* value; /* decoded UTF-8, NUL-terminated; NULL when absent. Owned: free() it. */
    size_t size;
} string_arg;

typedef struct json_cursor {
    const char* p;
    const char* end;
} json_cursor;

static void skip_space(json_cursor* c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) ++c->p;
}

static int hex_value(char h) {
    if (h >= '0' && h <= '9') return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    if (h >= 'A' && h <= 'F') return h - 'A' + 10;
    return -1;
}

static int read_hex4(json_cursor* c, unsigned* out) {
    int i;
    *out = 0;
    if (c->end - c->p < 4) return 0;
    for (i = 0; i < 4; ++i) {
        int v = hex_value(c->p[i]);
        if (v < 0) return 0;
        *out = (*out << 4) | (unsigned)v;
    }
    c->p += 4;
    return 1;
}

static size_t put_utf8(char* out, unsigned cp) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decodes the JSON string at the cursor (which points at its opening quote) into a new buffer.
 * Decoded text is never longer than its JSON form, so one allocation of that size suffices. */
static char* read_string(json_cursor* c, size_t* size) {
    const char* start = ++c->p;
    char* out;
    size_t n = 0;
    while (c->p < c->end && *c->p != '"') c->p += (*c->p == '\\' && c->p + 1 < c->end) ? 2 : 1;
    if (c->p >= c->end) return NULL;
    out = (char*)malloc((size_t)(c->p - start) + 1);
    if (!out) return NULL;
    c->p = start;
    while (*c->p != '"') {
        char ch = *c->p++;
        if (ch != '\\') {
            out[n++] = ch;
            continue;
        }
        ch = *c->p++;
        switch (ch) {
            case 'n': out[n++] = '\n'; break;
            case 't': out[n++] = '\t'; break;
            case 'r': out[n++] = '\r'; break;
            case 'b': out[n++] = '\b'; break;
            case 'f': out[n++] = '\f'; break;
            case 'u': {
                unsigned cp, low;
                if (!read_hex4(c, &cp)) goto bad;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (c->end - c->p < 2 || c->p[0] != '\\' || c->p[1] != 'u') goto bad;
                    c->p += 2;
                    if (!read_hex4(c, &low) || low < 0xDC00 || low > 0xDFFF) goto bad;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                n += put_utf8(out + n, cp);
                break;
            }
            default: out[n++] = ch; break; /* \" \\ \/ */
        }
    }
    ++c->p; /* closing quote */
    out[n] = '\0';
    *size = n;
    return out;
bad:
    free(out);
    return NULL;
}

static void free_args(string_arg* args, size_t count) {
    size_t i;
    for (i = 0; i < count; ++i) {
        free(args[i].value);
        args[i].value = NULL;
    }
}

/* Fills the named string members of the object in `json`. Returns 1 on success, 0 when the text
 * is not an object of string members (the manifest and the host's validation make that a
 * contract violation rather than a user error). */
static int read_string_args(skillhost_string_view json, string_arg* args, size_t count) {
    json_cursor c;
    c.p = json.data;
    c.end = json.data + json.size;
    skip_space(&c);
    if (c.p >= c.end || *c.p != '{') return 0;
    ++c.p;
    skip_space(&c);
    if (c.p < c.end && *c.p == '}') return 1;
    for (;;) {
        char* key;
        char* value;
        size_t key_size, value_size, i;
        skip_space(&c);
        if (c.p >= c.end || *c.p != '"' || !(key = read_string(&c, &key_size))) goto bad;
        skip_space(&c);
        if (c.p >= c.end || *c.p != ':') {
            free(key);
            goto bad;
        }
        ++c.p;
        skip_space(&c);
        if (c.p >= c.end || *c.p != '"' || !(value = read_string(&c, &value_size))) {
            free(key);
            goto bad;
        }
        for (i = 0; i < count; ++i) {
            if (strcmp(args[i].name, key) == 0 && !args[i].value) {
                args[i].value = value;
                args[i].size = value_size;
                value = NULL;
                break;
            }
        }
        free(value);
        free(key);
        skip_space(&c);
        if (c.p < c.end && *c.p == ',') {
            ++c.p;
            continue;
        }
        if (c.p < c.end && *c.p == '}') return 1;
        goto bad;
    }
bad:
    free_args(args, count);
    return 0;
}

/* ---- Skills ------------------------------------------------------------------------------------- */

static int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static skillhost_status word_count(void* plugin_state, const skillhost_call_context* call,
                                   skillhost_string_view args_json, const skillhost_result_writer* writer) {
    string_arg args[1] = {{"text", NULL, 0}};
    size_t i, words = 0, characters = 0, lines = 0;
    int in_word = 0;
    char result[128];
    (void)plugin_state;
    (void)call;
    if (!read_string_args(args_json, args, 1) || !args[0].value)
        return fail(writer, SKILLHOST_STATUS_INVALID_ARGS, "INVALID_ARGS",
                    "expected an object with a string member \"text\"; pass {\"text\": \"...\"}");
    for (i = 0; i < args[0].size; ++i) {
        unsigned char c = (unsigned char)args[0].value[i];
        if ((c & 0xC0) != 0x80) ++characters; /* count the first byte of each UTF-8 sequence */
        if (is_space(c)) {
            in_word = 0;
        } else if (!in_word) {
            in_word = 1;
            ++words;
        }
        if (c == '\n') ++lines;
    }
    if (args[0].size > 0 && args[0].value[args[0].size - 1] != '\n') ++lines;
    free_args(args, 1);
    snprintf(result, sizeof result, "{\"words\":%lu,\"characters\":%lu,\"lines\":%lu}", (unsigned long)words,
             (unsigned long)characters, (unsigned long)lines);
    writer->write_result(writer->writer_context, view_of(result));
    return SKILLHOST_STATUS_OK;
}

static skillhost_status greet(void* plugin_state, const skillhost_call_context* call, skillhost_string_view args_json,
                              const skillhost_result_writer* writer) {
    /* `greeting` has a default in the manifest, so the host always passes it. */
    string_arg args[2] = {{"name", NULL, 0}, {"greeting", NULL, 0}};
    text_buffer message = {NULL, 0, 0, 0};
    text_buffer result = {NULL, 0, 0, 0};
    skillhost_status status = SKILLHOST_STATUS_OK;
    (void)plugin_state;
    (void)call;
    if (!read_string_args(args_json, args, 2) || !args[0].value || !args[1].value) {
        free_args(args, 2);
        return fail(writer, SKILLHOST_STATUS_INVALID_ARGS, "INVALID_ARGS",
                    "expected string members \"name\" and \"greeting\"; pass {\"name\": \"Ada\"}");
    }
    buffer_append(&message, args[1].value, args[1].size);
    buffer_append_text(&message, ", ");
    buffer_append(&message, args[0].value, args[0].size);
    buffer_append_text(&message, "!");
    buffer_append_text(&result, "{\"message\":");
    if (!message.failed) buffer_append_json_string(&result, message.data, message.size);
    buffer_append_text(&result, "}");
    if (message.failed || result.failed) {
        status = fail(writer, SKILLHOST_STATUS_ERROR, "OUT_OF_MEMORY",
                      "the greeting did not fit in memory; use a shorter name");
    } else {
        skillhost_string_view out;
        out.data = result.data;
        out.size = result.size;
        writer->write_result(writer->writer_context, out); /* the host copies it: free right after */
    }
    free(message.data);
    free(result.data);
    free_args(args, 2);
    return status;
}

/* ---- The descriptor and the one exported symbol ---------------------------------------------- */

static const skillhost_skill hello_skills[] = {
    {"word_count", word_count},
    {"greet", greet},
};

static const skillhost_plugin hello_plugin = {
    SKILLHOST_ABI_VERSION_INIT,
    (uint32_t)sizeof(skillhost_plugin),
    "hello_c",
    "1.0.0",
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
