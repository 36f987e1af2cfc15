/* The floor of an HTTP server on this machine: two threads (as many as skillhost serve's network
 * threads), each with its own SO_REUSEPORT listener and epoll loop, answering every request on a
 * keep-alive connection with a canned 200 and a JSON body the size of skillhost's answer to
 * POST /v1/skills/noop/call. No authentication, no JSON, no skill: what wrk and the kernel's
 * loopback alone allow here. Run side by side with skillhost serve under the same wrk
 * (bench/http/floor.sh), it bounds the requests/s any server can show on this machine.
 * Build: cc -O2 -pthread -o http_floor bench/http/native_floor.c
 * Run:   http_floor PORT */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONNECTIONS 4096
#define BUFFER_BYTES 65536

static const char kBody[] =
    "{\"status\":\"executed\",\"skill\":\"noop\",\"result\":{},\"call_id\":\"call-0000000000000000\","
    "\"duration_ms\":0.01,\"decision\":{\"action\":\"allow\",\"rule\":\"default\",\"trust\":\"bounded_auto\"},"
    "\"audit\":\"recorded\"}";
static char answer[1024];
static size_t answer_length;

struct connection {
    int fd;
    size_t used;
    char buffer[BUFFER_BYTES];
};

static int port;

static int listener(void) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr*)&address, sizeof address) != 0 || listen(fd, 1024) != 0) {
        perror("http_floor: bind/listen");
        exit(2);
    }
    return fd;
}

/* Answers every whole request in the buffer; false when the connection is to be closed. */
static int serve(struct connection* c) {
    char* start = c->buffer;
    char* end = c->buffer + c->used;
    for (;;) {
        char* head_end = memmem(start, (size_t)(end - start), "\r\n\r\n", 4);
        if (!head_end) break;
        size_t body = 0;
        char* length = memmem(start, (size_t)(head_end - start), "Content-Length:", 15);
        if (length) body = strtoul(length + 15, NULL, 10);
        char* next = head_end + 4 + body;
        if (next > end) break;
        if (write(c->fd, answer, answer_length) != (ssize_t)answer_length) return 0;
        start = next;
    }
    c->used = (size_t)(end - start);
    memmove(c->buffer, start, c->used);
    return c->used < BUFFER_BYTES;
}

static void* loop(void* unused) {
    (void)unused;
    int listen_fd = listener();
    int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event event = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd, &event);
    struct epoll_event ready[256];
    for (;;) {
        int n = epoll_wait(epoll_fd, ready, 256, -1);
        for (int i = 0; i < n; ++i) {
            struct connection* c = ready[i].data.ptr;
            if (!c) {
                int fd;
                while ((fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    int one = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct connection* fresh = calloc(1, sizeof *fresh);
                    fresh->fd = fd;
                    struct epoll_event add = {.events = EPOLLIN, .data.ptr = fresh};
                    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &add);
                }
                continue;
            }
            ssize_t got = read(c->fd, c->buffer + c->used, BUFFER_BYTES - c->used);
            if (got <= 0 && !(got < 0 && errno == EAGAIN)) {
                close(c->fd);
                free(c);
                continue;
            }
            if (got > 0) c->used += (size_t)got;
            if (!serve(c)) {
                close(c->fd);
                free(c);
            }
        }
    }
    return NULL;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: http_floor PORT\n");
        return 2;
    }
    port = atoi(argv[1]);
    answer_length = (size_t)snprintf(answer, sizeof answer,
                                     "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                     "Content-Length: %zu\r\n\r\n%s",
                                     strlen(kBody), kBody);
    pthread_t second;
    pthread_create(&second, NULL, loop, NULL);
    loop(NULL);
    return 0;
}
