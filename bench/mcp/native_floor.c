/* The floor of a native MCP server on stdio: it reads each line and writes a canned answer with
 * the request's id, with no JSON parsing, no policy, no validation and no skill. It answers the
 * official SDK client of bench_client.mjs (initialize, tools/list, and the default echo call of
 * the benchmark), so bench/mcp/run.sh runs it side by side with the other servers: its CPU per
 * round trip is what the pipe reads, writes and wake-ups alone cost in that run, below which no
 * stdio server can go. Only the default `--tool echo` arguments are answered correctly (the answer
 * is canned; bench_client.mjs then reports the mismatch for other arguments).
 * Build: cc -O2 -o native_floor bench/mcp/native_floor.c */
#include <string.h>
#include <unistd.h>

static char out[4096];
static size_t out_length;

static void put(const char* text, size_t length) {
    if (out_length + length > sizeof out) length = sizeof out - out_length;
    memcpy(out + out_length, text, length);
    out_length += length;
}

static void put_text(const char* text) {
    put(text, strlen(text));
}

static void flush_out(void) {
    const char* at = out;
    while (out_length > 0) {
        ssize_t n = write(1, at, out_length);
        if (n <= 0) break;
        at += n;
        out_length -= (size_t)n;
    }
    out_length = 0;
}

/* The raw text of the request's "id" value (a number or a string without escapes), or NULL for a
 * notification. */
static const char* find_id(const char* line, size_t* length) {
    const char* id = strstr(line, "\"id\":");
    if (!id) return NULL;
    id += 5;
    size_t n = 0;
    if (id[0] == '"') {
        const char* close = strchr(id + 1, '"');
        if (!close) return NULL;
        n = (size_t)(close - id) + 1;
    } else {
        while (id[n] != '\0' && id[n] != ',' && id[n] != '}') ++n;
    }
    *length = n;
    return id;
}

static void answer(const char* line) {
    size_t id_length = 0;
    const char* id = find_id(line, &id_length);
    if (!id) return; /* a notification: no answer */
    put_text("{\"jsonrpc\":\"2.0\",\"id\":");
    put(id, id_length);
    put_text(",\"result\":");
    if (strstr(line, "\"method\":\"initialize\"")) {
        put_text(
            "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
            "\"serverInfo\":{\"name\":\"native-floor\",\"version\":\"1.0.0\"}}");
    } else if (strstr(line, "\"method\":\"tools/list\"")) {
        put_text(
            "{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
            "{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}}]}");
    } else if (strstr(line, "\"method\":\"tools/call\"")) {
        put_text(
            "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"echo\\\":{\\\"text\\\":\\\"hello from the MCP "
            "benchmark\\\",\\\"repeat\\\":1,\\\"mode\\\":\\\"plain\\\"}}\"}],\"structuredContent\":{\"echo\":"
            "{\"text\":\"hello from the MCP benchmark\",\"repeat\":1,\"mode\":\"plain\"}},\"isError\":false}");
    } else {
        put_text("{}");
    }
    put_text("}\n");
    flush_out();
}

int main(void) {
    static char buffer[1 << 20];
    size_t used = 0;
    for (;;) {
        ssize_t n = read(0, buffer + used, sizeof buffer - 1 - used);
        if (n <= 0) return 0;
        used += (size_t)n;
        buffer[used] = '\0';
        char* start = buffer;
        char* newline;
        while ((newline = memchr(start, '\n', used - (size_t)(start - buffer))) != NULL) {
            *newline = '\0';
            answer(start);
            start = newline + 1;
        }
        used -= (size_t)(start - buffer);
        memmove(buffer, start, used);
        if (used == sizeof buffer - 1) used = 0; /* a line longer than the buffer: dropped */
    }
}
