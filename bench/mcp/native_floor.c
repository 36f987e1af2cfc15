/* The floor of a native MCP server on stdio: it reads each line and writes a canned answer, with no
 * JSON parsing, no policy and no skill. Its CPU per round trip (bench/mcp/cpu_per_call.py) is what
 * the pipe reads, writes and wake-ups alone cost, below which no stdio server can go.
 * Build: cc -O2 -o native_floor bench/mcp/native_floor.c */
#include <string.h>
#include <unistd.h>

static void say(const char* text) {
    size_t left = strlen(text);
    while (left > 0) {
        ssize_t n = write(1, text, left);
        if (n <= 0) return;
        text += n;
        left -= (size_t)n;
    }
}

int main(void) {
    static char buffer[65536];
    int answered_initialize = 0;
    for (;;) {
        ssize_t n = read(0, buffer, sizeof buffer);
        if (n <= 0) return 0;
        for (ssize_t i = 0; i < n; ++i) {
            if (buffer[i] != '\n') continue;
            /* The first line is initialize, then a notification (no answer), then the calls. */
            if (!answered_initialize) {
                say("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n");
                answered_initialize = 1;
            } else if (answered_initialize++ > 1) {
                say("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}}\n");
            }
        }
    }
}
