/* The floor of a native MCP server on stdio: it reads each line and writes a canned answer with
 * the request's id, with no JSON parsing, no policy, no validation and no skill. It answers the
 * official SDK client of bench_client.mjs (initialize, tools/list, and the default echo call of
 * the benchmark), so bench/mcp/run.sh runs it side by side with the other servers: its CPU per
 * round trip is what the pipe reads, writes and wake-ups alone cost in that run, below which no
 * stdio server can go. Only the default `--tool echo` arguments are answered correctly (the answer
 * is canned; bench_client.mjs then reports the mismatch for other arguments).
 *
 * Two options add what skillhost's guarantees cost in system calls, and nothing else:
 *   --audit FILE  the audit: before a tools/call is answered its decision record is in FILE (a
 *                 plugin that crashes the process cannot erase it), and its call record follows
 *                 the result. Two appends (write(2), O_APPEND) per call, records of skillhost's
 *                 size. FILE is truncated first.
 *   --relay       the plugin runs in another process: each call is written to a socketpair and
 *                 read back by a child process that answers it, as skillhost's runner does.
 * Beside the plain floor in the same run they give the ratio below which no server with these
 * guarantees can go, whatever its own code costs (docs/performance.md, issue 36's targets).
 * Build: cc -O2 -o native_floor bench/mcp/native_floor.c
 * Run:   native_floor [--audit FILE] [--relay] */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static char out[4096];
static size_t out_length;
static int audit_fd = -1;
static int runner_fd = -1; /* --relay: the host's end of the socketpair */

static void put(char* buffer, size_t* used, size_t capacity, const char* text, size_t length) {
    if (*used + length > capacity) length = capacity - *used;
    memcpy(buffer + *used, text, length);
    *used += length;
}

static void put_text(const char* text) {
    put(out, &out_length, sizeof out, text, strlen(text));
}

static void write_all(int fd, const char* at, size_t length) {
    while (length > 0) {
        ssize_t n = write(fd, at, length);
        if (n <= 0) return;
        at += n;
        length -= (size_t)n;
    }
}

/* The raw text of the request's "id" value, or NULL for a notification. */
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

/* One audit record, one append: a line the size of skillhost's decision and call records. */
static void audit(const char* kind, const char* id, size_t id_length) {
    if (audit_fd < 0) return;
    static const char padding[] =
        "\"ts\":\"2026-11-30T16:00:00.000000Z\",\"user\":\"owner\",\"skill\":\"echo\",\"plugin\":\"echo\","
        "\"trust\":\"supervised_auto\",\"rule\":\"default\",\"session\":\"mcp-0000000000000001\","
        "\"args_sha256\":\"0000000000000000000000000000000000000000000000000000000000000000\","
        "\"duration_us\":12,\"outcome\":\"ok\",\"result_bytes\":120,\"instance\":\"host-1\"";
    char record[1024];
    size_t used = 0;
    put(record, &used, sizeof record, "{\"kind\":\"", 9);
    put(record, &used, sizeof record, kind, strlen(kind));
    put(record, &used, sizeof record, "\",\"call\":", 9);
    put(record, &used, sizeof record, id, id_length);
    put(record, &used, sizeof record, ",", 1);
    put(record, &used, sizeof record, padding, sizeof padding - 1);
    put(record, &used, sizeof record, "}\n", 2);
    write_all(audit_fd, record, used);
}

static const char kResult[] =
    "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"echo\\\":{\\\"text\\\":\\\"hello from the MCP "
    "benchmark\\\",\\\"repeat\\\":1,\\\"mode\\\":\\\"plain\\\"}}\"}],\"structuredContent\":{\"echo\":"
    "{\"text\":\"hello from the MCP benchmark\",\"repeat\":1,\"mode\":\"plain\"}},\"isError\":false}";

/* --relay: the call goes to the runner and its answer comes back (one frame each way). */
static void relay(const char* line) {
    write_all(runner_fd, line, strlen(line));
    static char answer[4096];
    ssize_t n = read(runner_fd, answer, sizeof answer);
    (void)n;
}

static void runner_loop(int fd) {
    static char request[1 << 16];
    for (;;) {
        ssize_t n = read(fd, request, sizeof request);
        if (n <= 0) _exit(0);
        write_all(fd, kResult, sizeof kResult - 1);
    }
}

static void answer(const char* line) {
    size_t id_length = 0;
    const char* id = find_id(line, &id_length);
    if (!id) return;
    const int is_call = strstr(line, "\"method\":\"tools/call\"") != NULL;
    if (is_call) {
        audit("decision", id, id_length);
        if (runner_fd >= 0) relay(line);
    }
    put_text("{\"jsonrpc\":\"2.0\",\"id\":");
    put(out, &out_length, sizeof out, id, id_length);
    put_text(",\"result\":");
    if (strstr(line, "\"method\":\"initialize\"")) {
        put_text(
            "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
            "\"serverInfo\":{\"name\":\"native-floor\",\"version\":\"1.0.0\"}}");
    } else if (strstr(line, "\"method\":\"tools/list\"")) {
        put_text(
            "{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
            "{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}}]}");
    } else if (is_call) {
        put_text(kResult);
        audit("call", id, id_length);
    } else {
        put_text("{}");
    }
    put_text("}\n");
    write_all(1, out, out_length);
    out_length = 0;
}

int main(int argc, char** argv) {
    const char* audit_path = NULL;
    int with_relay = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--relay") == 0) {
            with_relay = 1;
        } else if (strcmp(argv[i], "--audit") == 0 && i + 1 < argc) {
            audit_path = argv[++i];
        } else {
            fprintf(stderr, "usage: native_floor [--audit FILE] [--relay]\n");
            return 2;
        }
    }
    if (audit_path) {
        audit_fd = open(audit_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
        if (audit_fd < 0) {
            perror(audit_path);
            return 2;
        }
    }
    if (with_relay) {
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
            perror("socketpair");
            return 2;
        }
        const pid_t child = fork();
        if (child == 0) {
            close(pair[0]);
            runner_loop(pair[1]);
        }
        close(pair[1]);
        runner_fd = pair[0];
    }
    static char buffer[1 << 20];
    size_t used = 0;
    for (;;) {
        ssize_t n = read(0, buffer + used, sizeof buffer - 1 - used);
        if (n <= 0) break;
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
        if (used == sizeof buffer - 1) used = 0;
    }
    if (runner_fd >= 0) {
        close(runner_fd);
        wait(NULL);
    }
    return 0;
}
