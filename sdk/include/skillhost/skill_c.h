/*
 * skill_c.h — reading arguments and writing results in a plain-C skill.
 *
 * C99, header-only, no dependencies beyond the C standard library and skill_abi.h. Every function
 * is `static inline`, so including it in several files costs nothing and exports nothing.
 *
 * Arguments. The host validates `args_json` against the manifest's `inputs` before invoke() runs
 * (types, required members, enums, ranges; defaults applied), so a skill reads top-level members by
 * name and gets exactly the types its manifest declares:
 *
 *     char* text = NULL; size_t size = 0; int64_t count = 1;
 *     if (skillhost_arg_string(args_json, "text", &text, &size) != SKILLHOST_ARG_OK)
 *         return skillhost_fail(writer, SKILLHOST_STATUS_INVALID_ARGS, "INVALID_ARGS", "pass {\"text\": \"...\"}");
 *     skillhost_arg_int(args_json, "count", &count);   // optional: `count` keeps its value when absent
 *     ...
 *     free(text);
 *
 * Results. A skillhost_json_out builds one JSON value in a growing buffer (keys are ignored inside
 * arrays and at the top level), and skillhost_out_send() hands it to the host and frees it:
 *
 *     skillhost_json_out out = SKILLHOST_JSON_OUT_INIT;
 *     skillhost_out_begin_object(&out, NULL);
 *     skillhost_out_int(&out, "words", words);
 *     skillhost_out_string(&out, "first", first_word);
 *     skillhost_out_end_object(&out);
 *     return skillhost_out_send(&out, writer);
 *
 * Strings are escaped for JSON and invalid UTF-8 bytes become U+FFFD, so a result cut in the middle
 * of a character is still valid JSON. Numbers are written and read without the C locale's decimal
 * separator. A result larger than SKILLHOST_JSON_OUT_MAX_BYTES, nesting deeper than
 * SKILLHOST_JSON_OUT_MAX_DEPTH or a failed allocation makes skillhost_out_send() answer an error
 * (RESULT_TOO_LARGE / OUT_OF_MEMORY) instead of a truncated result.
 *
 * Threading: no global state; everything works on the caller's buffers, so any number of calls may
 * run at once.
 */
#ifndef SKILLHOST_SKILL_C_H
#define SKILLHOST_SKILL_C_H

#include <skillhost/skill_abi.h>

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SKILLHOST_JSON_OUT_MAX_BYTES
#define SKILLHOST_JSON_OUT_MAX_BYTES ((size_t)64 * 1024 * 1024)
#endif
#define SKILLHOST_JSON_OUT_MAX_DEPTH 32

/* ---- Small conveniences ---------------------------------------------------------------------- */

/* A view of a NUL-terminated string (NULL gives an empty view). */
static inline skillhost_string_view skillhost_sv(const char* text) {
    skillhost_string_view v;
    v.data = text;
    v.size = text ? strlen(text) : 0;
    return v;
}

/* Writes an error with empty details and returns `status` (SKILLHOST_STATUS_ERROR,
 * SKILLHOST_STATUS_INVALID_ARGS or SKILLHOST_STATUS_CANCELLED), so a skill can `return` it. `code`
 * is UPPER_SNAKE (the manifest's error_hints refer to it); `message` says what is wrong and what to do. */
static inline skillhost_status skillhost_fail(const skillhost_result_writer* writer, skillhost_status status,
                                              const char* code, const char* message) {
    writer->write_error(writer->writer_context, skillhost_sv(code), skillhost_sv(message), skillhost_sv(""));
    return status;
}

/* ---- Reading arguments ----------------------------------------------------------------------- */

typedef enum skillhost_arg_status {
    SKILLHOST_ARG_OK = 0,
    SKILLHOST_ARG_MISSING = 1,    /* no member of that name (the output is left unchanged) */
    SKILLHOST_ARG_WRONG_TYPE = 2, /* the member has another JSON type, or an integer is out of range */
    SKILLHOST_ARG_BAD_JSON = 3,   /* args_json is not a JSON object (cannot happen for host-validated args) */
    SKILLHOST_ARG_NO_MEMORY = 4   /* allocating the string failed */
} skillhost_arg_status;

typedef struct skillhost_json_cursor {
    const char* p;
    const char* end;
} skillhost_json_cursor;

static inline void skillhost__skip_space(skillhost_json_cursor* c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) ++c->p;
}

/* Moves past one string literal starting at the opening quote; 0 when unterminated. */
static inline int skillhost__skip_string(skillhost_json_cursor* c) {
    ++c->p;
    while (c->p < c->end) {
        if (*c->p == '\\') {
            c->p += 2;
        } else if (*c->p++ == '"') {
            return 1;
        }
    }
    return 0;
}

/* Moves past one value of any type. Iterative (a depth counter, no recursion), so deeply nested
 * input cannot overflow the stack. 0 on malformed input. */
static inline int skillhost__skip_value(skillhost_json_cursor* c) {
    size_t depth = 0;
    skillhost__skip_space(c);
    do {
        if (c->p >= c->end) return 0;
        if (*c->p == '"') {
            if (!skillhost__skip_string(c)) return 0;
        } else if (*c->p == '{' || *c->p == '[') {
            ++depth;
            ++c->p;
        } else if (*c->p == '}' || *c->p == ']') {
            if (depth == 0) return 0;
            --depth;
            ++c->p;
        } else if (depth > 0) {
            ++c->p; /* commas, colons, spaces and scalars inside a container */
        } else {
            const char* start = c->p;
            while (c->p < c->end && *c->p != ',' && *c->p != '}' && *c->p != ']' && *c->p != ' ' && *c->p != '\n' &&
                   *c->p != '\r' && *c->p != '\t')
                ++c->p;
            if (c->p == start) return 0;
        }
    } while (depth > 0);
    return 1;
}

static inline int skillhost__hex4(const char* p, unsigned* out) {
    unsigned v = 0;
    int i;
    for (i = 0; i < 4; ++i) {
        char h = p[i];
        v <<= 4;
        if (h >= '0' && h <= '9')
            v |= (unsigned)(h - '0');
        else if (h >= 'a' && h <= 'f')
            v |= (unsigned)(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F')
            v |= (unsigned)(h - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

static inline size_t skillhost__put_utf8(char* out, unsigned cp) {
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

/* Decodes the string literal [begin, end) (quotes excluded) into `out`, which holds at least
 * end - begin bytes (decoding never grows text). Returns the decoded size, or (size_t)-1. */
static inline size_t skillhost__decode_string(const char* p, const char* end, char* out) {
    size_t n = 0;
    while (p < end) {
        unsigned cp;
        if (*p != '\\') {
            out[n++] = *p++;
            continue;
        }
        if (end - p < 2) return (size_t)-1;
        switch (p[1]) {
            case '"': out[n++] = '"'; break;
            case '\\': out[n++] = '\\'; break;
            case '/': out[n++] = '/'; break;
            case 'b': out[n++] = '\b'; break;
            case 'f': out[n++] = '\f'; break;
            case 'n': out[n++] = '\n'; break;
            case 'r': out[n++] = '\r'; break;
            case 't': out[n++] = '\t'; break;
            case 'u':
                if (end - p < 6 || !skillhost__hex4(p + 2, &cp)) return (size_t)-1;
                if (cp >= 0xD800 && cp < 0xDC00 && end - p >= 12 && p[6] == '\\' && p[7] == 'u') {
                    unsigned low;
                    if (skillhost__hex4(p + 8, &low) && low >= 0xDC00 && low < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        p += 6;
                    }
                }
                if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD; /* a lone surrogate */
                n += skillhost__put_utf8(out + n, cp);
                p += 6;
                continue;
            default: return (size_t)-1;
        }
        p += 2;
    }
    return n;
}

/* Finds the top-level member `name` of the object in `args`; on success `*value` spans its value. */
static inline skillhost_arg_status skillhost__find_member(skillhost_string_view args, const char* name,
                                                          skillhost_json_cursor* value) {
    skillhost_json_cursor c;
    const size_t name_size = strlen(name);
    c.p = args.data;
    c.end = args.data + args.size;
    skillhost__skip_space(&c);
    if (c.p >= c.end || *c.p != '{') return SKILLHOST_ARG_BAD_JSON;
    ++c.p;
    for (;;) {
        const char* key;
        size_t key_size;
        skillhost__skip_space(&c);
        if (c.p < c.end && *c.p == '}') return SKILLHOST_ARG_MISSING;
        if (c.p >= c.end || *c.p != '"') return SKILLHOST_ARG_BAD_JSON;
        key = c.p + 1;
        if (!skillhost__skip_string(&c)) return SKILLHOST_ARG_BAD_JSON;
        key_size = (size_t)(c.p - 1 - key);
        skillhost__skip_space(&c);
        if (c.p >= c.end || *c.p != ':') return SKILLHOST_ARG_BAD_JSON;
        ++c.p;
        skillhost__skip_space(&c);
        value->p = c.p;
        if (!skillhost__skip_value(&c)) return SKILLHOST_ARG_BAD_JSON;
        value->end = c.p;
        /* Member names written with escapes are compared decoded. */
        if (key_size == name_size && memcmp(key, name, name_size) == 0) return SKILLHOST_ARG_OK;
        if (memchr(key, '\\', key_size) != NULL && key_size < 256) {
            char decoded[256];
            size_t decoded_size = skillhost__decode_string(key, key + key_size, decoded);
            if (decoded_size == name_size && memcmp(decoded, name, name_size) == 0) return SKILLHOST_ARG_OK;
        }
        skillhost__skip_space(&c);
        if (c.p < c.end && *c.p == ',') {
            ++c.p;
            continue;
        }
        if (c.p < c.end && *c.p == '}') return SKILLHOST_ARG_MISSING;
        return SKILLHOST_ARG_BAD_JSON;
    }
}

/* The string member `name`, decoded to UTF-8, NUL-terminated, in memory from malloc() that the
 * caller frees. `size` (may be NULL) receives its length in bytes; the text may contain NUL bytes
 * (from \u0000), so prefer the size over strlen(). */
static inline skillhost_arg_status skillhost_arg_string(skillhost_string_view args, const char* name, char** out,
                                                        size_t* size) {
    skillhost_json_cursor v;
    skillhost_arg_status status = skillhost__find_member(args, name, &v);
    char* text;
    size_t n;
    if (status != SKILLHOST_ARG_OK) return status;
    if (v.end - v.p < 2 || *v.p != '"') return SKILLHOST_ARG_WRONG_TYPE;
    text = (char*)malloc((size_t)(v.end - v.p));
    if (!text) return SKILLHOST_ARG_NO_MEMORY;
    n = skillhost__decode_string(v.p + 1, v.end - 1, text);
    if (n == (size_t)-1) {
        free(text);
        return SKILLHOST_ARG_BAD_JSON;
    }
    text[n] = '\0';
    *out = text;
    if (size) *size = n;
    return SKILLHOST_ARG_OK;
}

/* Copies a number's text into `buffer` with '.' replaced by the C locale's decimal separator, so
 * strtod reads it the same under any locale. 0 when it is not a number or does not fit. */
static inline int skillhost__number_text(const skillhost_json_cursor* v, char* buffer, size_t capacity) {
    const size_t n = (size_t)(v->end - v->p);
    const char point = localeconv()->decimal_point[0];
    size_t i;
    if (n == 0 || n >= capacity || !(*v->p == '-' || (*v->p >= '0' && *v->p <= '9'))) return 0;
    for (i = 0; i < n; ++i) {
        const char ch = v->p[i];
        if (!((ch >= '0' && ch <= '9') || ch == '-' || ch == '+' || ch == '.' || ch == 'e' || ch == 'E')) return 0;
        buffer[i] = ch == '.' ? point : ch;
    }
    buffer[n] = '\0';
    return 1;
}

/* The integer member `name` (a JSON number without fraction or exponent, within int64_t). */
static inline skillhost_arg_status skillhost_arg_int(skillhost_string_view args, const char* name, int64_t* out) {
    skillhost_json_cursor v;
    skillhost_arg_status status = skillhost__find_member(args, name, &v);
    const char* p;
    int negative;
    uint64_t magnitude = 0;
    if (status != SKILLHOST_ARG_OK) return status;
    p = v.p;
    negative = p < v.end && *p == '-';
    if (negative) ++p;
    if (p >= v.end) return SKILLHOST_ARG_WRONG_TYPE;
    for (; p < v.end; ++p) {
        if (*p < '0' || *p > '9') return SKILLHOST_ARG_WRONG_TYPE;
        if (magnitude > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) return SKILLHOST_ARG_WRONG_TYPE;
        magnitude = magnitude * 10 + (uint64_t)(*p - '0');
    }
    if (negative ? magnitude > (uint64_t)INT64_MAX + 1 : magnitude > (uint64_t)INT64_MAX)
        return SKILLHOST_ARG_WRONG_TYPE;
    *out = negative ? (magnitude == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)magnitude) : (int64_t)magnitude;
    return SKILLHOST_ARG_OK;
}

/* The number member `name` (integer or not) as a double. */
static inline skillhost_arg_status skillhost_arg_number(skillhost_string_view args, const char* name, double* out) {
    skillhost_json_cursor v;
    skillhost_arg_status status = skillhost__find_member(args, name, &v);
    char text[64];
    char* end = NULL;
    double value;
    if (status != SKILLHOST_ARG_OK) return status;
    if (!skillhost__number_text(&v, text, sizeof text)) return SKILLHOST_ARG_WRONG_TYPE;
    value = strtod(text, &end);
    if (end == text || *end != '\0') return SKILLHOST_ARG_WRONG_TYPE;
    *out = value;
    return SKILLHOST_ARG_OK;
}

/* The boolean member `name`: *out becomes 1 (true) or 0 (false). */
static inline skillhost_arg_status skillhost_arg_bool(skillhost_string_view args, const char* name, int* out) {
    skillhost_json_cursor v;
    skillhost_arg_status status = skillhost__find_member(args, name, &v);
    if (status != SKILLHOST_ARG_OK) return status;
    if (v.end - v.p == 4 && memcmp(v.p, "true", 4) == 0)
        *out = 1;
    else if (v.end - v.p == 5 && memcmp(v.p, "false", 5) == 0)
        *out = 0;
    else
        return SKILLHOST_ARG_WRONG_TYPE;
    return SKILLHOST_ARG_OK;
}

/* ---- Writing results ------------------------------------------------------------------------- */

typedef struct skillhost_json_out {
    char* data; /* malloc'd; freed by skillhost_out_send() or skillhost_out_free() */
    size_t size;
    size_t capacity;
    unsigned depth;
    unsigned char in_array[SKILLHOST_JSON_OUT_MAX_DEPTH];
    unsigned char has_items[SKILLHOST_JSON_OUT_MAX_DEPTH];
    int failed; /* 1: out of memory, 2: too large, 3: too deep or unbalanced */
} skillhost_json_out;

#define SKILLHOST_JSON_OUT_INIT \
    { NULL, 0, 0, 0, {0}, {0}, 0 }

static inline void skillhost__append(skillhost_json_out* out, const char* bytes, size_t n) {
    if (out->failed) return;
    if (n > SKILLHOST_JSON_OUT_MAX_BYTES - out->size) {
        out->failed = 2;
        return;
    }
    if (out->size + n + 1 > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 256;
        char* grown;
        while (capacity < out->size + n + 1) capacity *= 2;
        grown = (char*)realloc(out->data, capacity);
        if (!grown) {
            out->failed = 1;
            return;
        }
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->size, bytes, n);
    out->size += n;
    out->data[out->size] = '\0';
}

/* Appends `text` as a JSON string literal; invalid UTF-8 bytes become U+FFFD. */
static inline void skillhost__append_string(skillhost_json_out* out, const char* text, size_t n) {
    size_t i = 0;
    skillhost__append(out, "\"", 1);
    while (i < n && !out->failed) {
        const unsigned char c = (unsigned char)text[i];
        size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        size_t k;
        int valid = length > 0 && i + length <= n;
        for (k = 1; valid && k < length; ++k) valid = ((unsigned char)text[i + k] & 0xC0) == 0x80;
        if (valid && length > 1) {
            /* Reject overlong forms, surrogates and code points above U+10FFFF. */
            const unsigned char c1 = (unsigned char)text[i + 1];
            if ((length == 2 && c < 0xC2) || (length == 3 && c == 0xE0 && c1 < 0xA0) ||
                (length == 3 && c == 0xED && c1 >= 0xA0) || (length == 4 && c == 0xF0 && c1 < 0x90) ||
                (length == 4 && (c > 0xF4 || (c == 0xF4 && c1 >= 0x90))))
                valid = 0;
        }
        if (!valid) {
            skillhost__append(out, "\xEF\xBF\xBD", 3);
            ++i;
        } else if (c == '"' || c == '\\') {
            char escaped[2];
            escaped[0] = '\\';
            escaped[1] = (char)c;
            skillhost__append(out, escaped, 2);
            ++i;
        } else if (c < 0x20) {
            char escaped[8];
            snprintf(escaped, sizeof escaped, "\\u%04x", (unsigned)c);
            skillhost__append(out, escaped, 6);
            ++i;
        } else {
            skillhost__append(out, text + i, length);
            i += length;
        }
    }
    skillhost__append(out, "\"", 1);
}

/* The separator and (inside an object) the key before a new value. */
static inline void skillhost__begin_value(skillhost_json_out* out, const char* key) {
    if (out->depth == 0) {
        if (out->size > 0) out->failed = 3; /* a second top-level value */
        return;
    }
    if (out->has_items[out->depth - 1]) skillhost__append(out, ",", 1);
    out->has_items[out->depth - 1] = 1;
    if (!out->in_array[out->depth - 1]) {
        skillhost__append_string(out, key ? key : "", key ? strlen(key) : 0);
        skillhost__append(out, ":", 1);
    }
}

static inline void skillhost__open(skillhost_json_out* out, const char* key, int array) {
    skillhost__begin_value(out, key);
    if (out->depth >= SKILLHOST_JSON_OUT_MAX_DEPTH) {
        out->failed = 3;
        return;
    }
    skillhost__append(out, array ? "[" : "{", 1);
    out->in_array[out->depth] = (unsigned char)array;
    out->has_items[out->depth] = 0;
    ++out->depth;
}

static inline void skillhost__close(skillhost_json_out* out, int array) {
    if (out->depth == 0 || out->in_array[out->depth - 1] != array) {
        out->failed = 3;
        return;
    }
    --out->depth;
    skillhost__append(out, array ? "]" : "}", 1);
}

static inline void skillhost_out_begin_object(skillhost_json_out* out, const char* key) {
    skillhost__open(out, key, 0);
}
static inline void skillhost_out_end_object(skillhost_json_out* out) {
    skillhost__close(out, 0);
}
static inline void skillhost_out_begin_array(skillhost_json_out* out, const char* key) {
    skillhost__open(out, key, 1);
}
static inline void skillhost_out_end_array(skillhost_json_out* out) {
    skillhost__close(out, 1);
}

/* `size` bytes of UTF-8 text as a string value. */
static inline void skillhost_out_string_n(skillhost_json_out* out, const char* key, const char* text, size_t size) {
    skillhost__begin_value(out, key);
    skillhost__append_string(out, text, size);
}
static inline void skillhost_out_string(skillhost_json_out* out, const char* key, const char* text) {
    skillhost_out_string_n(out, key, text ? text : "", text ? strlen(text) : 0);
}
static inline void skillhost_out_int(skillhost_json_out* out, const char* key, int64_t value) {
    char text[32];
    skillhost__begin_value(out, key);
    snprintf(text, sizeof text, "%lld", (long long)value);
    skillhost__append(out, text, strlen(text));
}
/* NaN and infinities have no JSON form and are written as null. */
static inline void skillhost_out_number(skillhost_json_out* out, const char* key, double value) {
    char text[40];
    const char point = localeconv()->decimal_point[0];
    size_t i;
    skillhost__begin_value(out, key);
    if (isnan(value) || isinf(value)) {
        skillhost__append(out, "null", 4);
        return;
    }
    snprintf(text, sizeof text, "%.17g", value);
    for (i = 0; text[i]; ++i)
        if (text[i] == point) text[i] = '.';
    skillhost__append(out, text, strlen(text));
}
static inline void skillhost_out_bool(skillhost_json_out* out, const char* key, int value) {
    skillhost__begin_value(out, key);
    skillhost__append(out, value ? "true" : "false", value ? 4 : 5);
}
static inline void skillhost_out_null(skillhost_json_out* out, const char* key) {
    skillhost__begin_value(out, key);
    skillhost__append(out, "null", 4);
}

static inline void skillhost_out_free(skillhost_json_out* out) {
    free(out->data);
    out->data = NULL;
    out->size = out->capacity = 0;
}

/* Writes the built value as the call's result (or, if building failed, an error saying why),
 * frees the buffer, and returns the status invoke() should return. */
static inline skillhost_status skillhost_out_send(skillhost_json_out* out, const skillhost_result_writer* writer) {
    skillhost_status status = SKILLHOST_STATUS_OK;
    if (!out->failed && (out->depth != 0 || out->size == 0)) out->failed = 3;
    if (out->failed == 1) {
        status = skillhost_fail(writer, SKILLHOST_STATUS_ERROR, "OUT_OF_MEMORY",
                                "the result did not fit in memory; ask for less at once");
    } else if (out->failed == 2) {
        status = skillhost_fail(writer, SKILLHOST_STATUS_ERROR, "RESULT_TOO_LARGE",
                                "the result is larger than the plugin allows; ask for less at once");
    } else if (out->failed) {
        status = skillhost_fail(writer, SKILLHOST_STATUS_ERROR, "PLUGIN_BUG",
                                "the skill built an unbalanced or too deeply nested result; report this to the "
                                "plugin's author");
    } else {
        skillhost_string_view result;
        result.data = out->data;
        result.size = out->size;
        writer->write_result(writer->writer_context, result); /* the host copies the bytes */
    }
    skillhost_out_free(out);
    return status;
}

#endif /* SKILLHOST_SKILL_C_H */
