/*
 * WebSocket echo load: CONNECTIONS connections to 127.0.0.1:PORT PATH, each upgrading (the 101 and
 * its Sec-WebSocket-Accept checked), then sending one masked 64-byte text frame at a time and
 * waiting for its echo. After a 1-second warm-up it counts the echoes that come back in SECONDS
 * and their round-trip times, and prints one line of JSON:
 *   {"messages": N, "seconds": S, "rate": N/S, "p50_ms": ..., "p99_ms": ..., "errors": E}
 * Errors are refused or failed upgrades, echoes that differ from what was sent, and connections
 * the server closed. One thread, one event loop: as wrk, it should cost less than the server.
 *
 * usage: ws-load PORT [PATH [CONNECTIONS [SECONDS]]]   (defaults: / 64 10)
 */
#define _GNU_SOURCE /* strcasestr */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <openssl/evp.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define PAYLOAD 64
#define WARM_UP_SECONDS 1
#define MAX_HEADERS 8192

struct connection {
    int id;
    unsigned long long sequence;
    unsigned int random;
    char accept[32];            /* the Sec-WebSocket-Accept the server must answer */
    unsigned char sent[PAYLOAD];
    double sent_at;
};

static struct event_base *base;
static const char *path;
static int port, open_connections, recording;
static unsigned long long messages, errors;
static double *latencies, started, stopped;
static size_t latency_count, latency_capacity;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static unsigned int next_random(struct connection *c) { /* xorshift32: masks and keys need not be secret here */
    c->random ^= c->random << 13;
    c->random ^= c->random >> 17;
    c->random ^= c->random << 5;
    return c->random;
}

static int accept_value(const char *key, char *out) {
    char input[128];
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    int written = snprintf(input, sizeof input, "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", key);
    if (written < 0 || (size_t)written >= sizeof input || !EVP_Digest(input, (size_t)written, digest, &length, EVP_sha1(), NULL) || length != 20)
        return -1;
    EVP_EncodeBlock((unsigned char *)out, digest, 20);
    return 0;
}

static void finish(struct bufferevent *bev, struct connection *c) {
    bufferevent_free(bev);
    free(c);
    if (--open_connections == 0) event_base_loopbreak(base);
}

static void fail(struct bufferevent *bev, struct connection *c) {
    errors++;
    finish(bev, c);
}

/* The next message: 64 printable bytes that differ from one message to the next, masked. */
static int send_message(struct bufferevent *bev, struct connection *c) {
    unsigned char frame[2 + 4 + PAYLOAD] = {0x81, 0x80 | PAYLOAD};
    memset(c->sent, 'a' + c->sequence % 26, PAYLOAD);
    int prefix = snprintf((char *)c->sent, PAYLOAD, "%d:%llu:", c->id, c->sequence++);
    if (prefix > 0 && prefix < PAYLOAD) c->sent[prefix] = '.'; /* over snprintf's NUL */
    unsigned int mask = next_random(c);
    memcpy(frame + 2, &mask, 4);
    for (int i = 0; i < PAYLOAD; i++) frame[6 + i] = c->sent[i] ^ frame[2 + (i & 3)];
    c->sent_at = now();
    return bufferevent_write(bev, frame, sizeof frame);
}

static void on_frames(struct bufferevent *bev, void *arg) {
    struct connection *c = arg;
    struct evbuffer *input = bufferevent_get_input(bev);
    for (;;) {
        size_t available = evbuffer_get_length(input);
        if (available < 2) return;
        unsigned char *head = evbuffer_pullup(input, available < 4 ? (ssize_t)available : 4);
        if (!head) { fail(bev, c); return; }
        size_t length = head[1] & 0x7f, offset = 2;
        int opcode = head[0] & 0x0f;
        if ((head[1] & 0x80) || length == 127 || opcode != 0x1) { fail(bev, c); return; } /* a server frame is unmasked; ours are short text */
        if (length == 126) {
            if (available < 4) return;
            length = (size_t)head[2] << 8 | head[3];
            offset = 4;
        }
        if (available < offset + length) return;
        unsigned char *frame = evbuffer_pullup(input, (ssize_t)(offset + length));
        if (!frame) { fail(bev, c); return; }
        if (length != PAYLOAD || memcmp(frame + offset, c->sent, PAYLOAD) != 0) {
            errors++;
        } else if (recording) {
            messages++;
            if (latency_count == latency_capacity) {
                latency_capacity = latency_capacity ? latency_capacity * 2 : 1 << 16;
                double *grown = realloc(latencies, latency_capacity * sizeof *latencies);
                if (!grown) { fprintf(stderr, "out of memory\n"); exit(1); }
                latencies = grown;
            }
            latencies[latency_count++] = (now() - c->sent_at) * 1000;
        }
        evbuffer_drain(input, offset + length);
        if (send_message(bev, c) != 0) { fail(bev, c); return; }
    }
}

static void on_event(struct bufferevent *bev, short what, void *arg) {
    struct connection *c = arg;
    if (!(what & BEV_EVENT_CONNECTED)) { fail(bev, c); return; } /* refused, reset or closed by the server */
    int on = 1;
    setsockopt(bufferevent_getfd(bev), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    unsigned char nonce[16];
    char key[32];
    for (int i = 0; i < 16; i++) nonce[i] = (unsigned char)next_random(c);
    EVP_EncodeBlock((unsigned char *)key, nonce, 16);
    if (accept_value(key, c->accept) != 0
        || evbuffer_add_printf(bufferevent_get_output(bev), "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", path, port, key) < 0)
        fail(bev, c);
}

static void on_handshake(struct bufferevent *bev, void *arg) {
    struct connection *c = arg;
    struct evbuffer *input = bufferevent_get_input(bev);
    struct evbuffer_ptr end = evbuffer_search(input, "\r\n\r\n", 4, NULL);
    if (end.pos < 0) {
        if (evbuffer_get_length(input) > MAX_HEADERS) fail(bev, c);
        return;
    }
    char headers[MAX_HEADERS + 1];
    size_t length = (size_t)end.pos + 4;
    if (length > MAX_HEADERS || evbuffer_remove(input, headers, length) != (int)length) { fail(bev, c); return; }
    headers[length] = '\0';
    char *accept = strcasestr(headers, "\r\nSec-WebSocket-Accept:");
    if (accept) {
        accept += strlen("\r\nSec-WebSocket-Accept:");
        accept += strspn(accept, " \t");
    }
    size_t accept_length = strlen(c->accept);
    if (strncmp(headers, "HTTP/1.1 101 ", 13) != 0 || !accept || strncmp(accept, c->accept, accept_length) != 0
        || !strchr(" \t\r", accept[accept_length])) {
        fail(bev, c);
        return;
    }
    bufferevent_setcb(bev, on_frames, NULL, on_event, c);
    if (send_message(bev, c) != 0) fail(bev, c);
}

static void on_warmed_up(evutil_socket_t fd, short what, void *arg) {
    (void)fd; (void)what; (void)arg;
    recording = 1;
    started = now();
}

static void on_done(evutil_socket_t fd, short what, void *arg) {
    (void)fd; (void)what; (void)arg;
    event_base_loopbreak(base);
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(double p) { /* nearest rank */
    if (latency_count == 0) return 0;
    size_t rank = (size_t)(p * latency_count + 0.999999);
    return latencies[rank > 0 ? rank - 1 : 0];
}

static long argument(int argc, char **argv, int index, long fallback, long low, long high) {
    if (argc <= index) return fallback;
    char *end;
    long value = strtol(argv[index], &end, 10);
    if (*end != '\0' || value < low || value > high) {
        fprintf(stderr, "bad argument %s (%ld...%ld)\n", argv[index], low, high);
        exit(2);
    }
    return value;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: %s PORT [PATH [CONNECTIONS [SECONDS]]]\n", argv[0]);
        return 2;
    }
    port = (int)argument(argc, argv, 1, 0, 1, 65535);
    path = argc > 2 ? argv[2] : "/";
    int connections = (int)argument(argc, argv, 3, 64, 1, 100000);
    long seconds = argument(argc, argv, 4, 10, 1, 86400);
    if (path[0] != '/' || strpbrk(path, " \r\n")) { fprintf(stderr, "bad path %s\n", path); return 2; }

    base = event_base_new();
    if (!base) return 1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < connections; i++) {
        struct connection *c = calloc(1, sizeof *c);
        struct bufferevent *bev = c ? bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE) : NULL;
        if (!bev) { fprintf(stderr, "out of memory\n"); return 1; }
        c->id = i;
        c->random = 2463534242u ^ (unsigned int)i * 2654435761u;
        open_connections++;
        bufferevent_setcb(bev, on_handshake, NULL, on_event, c);
        if (bufferevent_enable(bev, EV_READ | EV_WRITE) != 0
            || bufferevent_socket_connect(bev, (struct sockaddr *)&address, sizeof address) != 0) {
            errors++;
            bufferevent_free(bev);
            free(c);
            open_connections--;
        }
    }
    struct timeval warm_up = {WARM_UP_SECONDS, 0}, total = {WARM_UP_SECONDS + seconds, 0};
    struct event *warmed = evtimer_new(base, on_warmed_up, NULL), *done = evtimer_new(base, on_done, NULL);
    if (!warmed || !done || evtimer_add(warmed, &warm_up) != 0 || evtimer_add(done, &total) != 0) return 1;
    if (open_connections > 0) event_base_dispatch(base);
    stopped = now();

    double elapsed = recording ? stopped - started : 0;
    qsort(latencies, latency_count, sizeof *latencies, compare);
    printf("{\"messages\": %llu, \"seconds\": %.3f, \"rate\": %.1f, \"p50_ms\": %.3f, \"p99_ms\": %.3f, \"errors\": %llu}\n",
           messages, elapsed, elapsed > 0 ? messages / elapsed : 0.0, percentile(0.50), percentile(0.99), errors);
    return messages > 0 ? 0 : 1;
}
