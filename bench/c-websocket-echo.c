/*
 * The ceiling Understudy's WebSocket channels are measured against: a minimal RFC 6455 echo server
 * on libevent bufferevents, with c-baseline's socket layout (one event_base and listener per
 * thread, each on its own SO_REUSEPORT socket, the epoll changelist on). It answers the upgrade
 * with 101, sends each masked text or binary frame back unmasked with the same payload and answers
 * a close with a close. Only what the bench sends is read: unfragmented text, binary and close
 * frames of up to 64 KiB; anything else closes the connection.
 *
 * usage: c-websocket-echo PORT THREADS (PORT 0 picks a free one)
 */
#define _GNU_SOURCE /* strcasestr */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <openssl/evp.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define MAX_HEADERS 8192

static const char GUID[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/* Sec-WebSocket-Accept for `key` (base64 of SHA-1 of key + GUID) into `out` (29 bytes); 0 on success. */
static int accept_value(const char *key, size_t key_length, char *out) {
    char input[128];
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_length = 0;
    if (key_length + sizeof GUID > sizeof input) return -1;
    memcpy(input, key, key_length);
    memcpy(input + key_length, GUID, sizeof GUID - 1);
    if (!EVP_Digest(input, key_length + sizeof GUID - 1, digest, &digest_length, EVP_sha1(), NULL) || digest_length != 20) return -1;
    EVP_EncodeBlock((unsigned char *)out, digest, 20);
    return 0;
}

static void close_when_sent(struct bufferevent *bev, void *arg) {
    (void)arg;
    bufferevent_free(bev);
}

static void on_event(struct bufferevent *bev, short what, void *arg) {
    (void)what; (void)arg;
    bufferevent_free(bev); /* EOF or error: the client is gone */
}

/* Echoes every whole frame in `input`; -1 on a frame this server does not take, 1 after a close. */
static int echo_frames(struct evbuffer *input, struct evbuffer *output) {
    for (;;) {
        size_t available = evbuffer_get_length(input);
        if (available < 2) return 0;
        unsigned char *head = evbuffer_pullup(input, available < 4 ? (ssize_t)available : 4);
        if (!head) return -1;
        int opcode = head[0] & 0x0f;
        size_t length = head[1] & 0x7f, offset = 2;
        /* Fragmented, unmasked, 64-bit lengths, and opcodes other than text, binary and close are refused. */
        if (!(head[0] & 0x80) || !(head[1] & 0x80) || length == 127 || (opcode != 0x1 && opcode != 0x2 && opcode != 0x8)) return -1;
        if (length == 126) {
            if (available < 4) return 0;
            length = (size_t)head[2] << 8 | head[3];
            offset = 4;
        }
        if (available < offset + 4 + length) return 0;
        unsigned char *frame = evbuffer_pullup(input, (ssize_t)(offset + 4 + length));
        if (!frame) return -1;
        unsigned char *mask = frame + offset, *payload = mask + 4;
        for (size_t i = 0; i < length; i++) payload[i] ^= mask[i & 3];
        unsigned char out[4] = {0x80 | opcode, 126, length >> 8, length & 0xff};
        size_t out_length = 4;
        if (length < 126) { out[1] = (unsigned char)length; out_length = 2; }
        if (evbuffer_add(output, out, out_length) != 0 || evbuffer_add(output, payload, length) != 0) return -1;
        evbuffer_drain(input, offset + 4 + length);
        if (opcode == 0x8) return 1;
    }
}

static void on_frames(struct bufferevent *bev, void *arg) {
    (void)arg;
    int result = echo_frames(bufferevent_get_input(bev), bufferevent_get_output(bev));
    if (result < 0) {
        bufferevent_free(bev);
    } else if (result == 1) { /* the close answered: free the connection once the answer is written */
        bufferevent_disable(bev, EV_READ);
        bufferevent_setcb(bev, NULL, close_when_sent, on_event, NULL);
    }
}

/* Answers the upgrade request once it is all in, then reads frames. */
static void on_handshake(struct bufferevent *bev, void *arg) {
    (void)arg;
    struct evbuffer *input = bufferevent_get_input(bev);
    struct evbuffer_ptr end = evbuffer_search(input, "\r\n\r\n", 4, NULL);
    if (end.pos < 0 && evbuffer_get_length(input) <= MAX_HEADERS) return;
    char headers[MAX_HEADERS + 1], accept[32];
    size_t length = (size_t)end.pos + 4;
    char *key = NULL;
    if (end.pos >= 0 && length <= MAX_HEADERS && evbuffer_remove(input, headers, length) == (int)length) {
        headers[length] = '\0';
        key = strcasestr(headers, "\r\nSec-WebSocket-Key:");
    }
    if (key) {
        key += strlen("\r\nSec-WebSocket-Key:");
        key += strspn(key, " \t");
    }
    if (!key || accept_value(key, strcspn(key, " \t\r"), accept) != 0
        || evbuffer_add_printf(bufferevent_get_output(bev), "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                               "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n", accept) < 0) {
        bufferevent_free(bev);
        return;
    }
    bufferevent_setcb(bev, on_frames, NULL, on_event, NULL);
    on_frames(bev, NULL); /* frames sent right behind the request */
}

static void on_accept(struct evconnlistener *listener, evutil_socket_t fd, struct sockaddr *address, int length, void *arg) {
    (void)address; (void)length; (void)arg;
    int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    struct bufferevent *bev = bufferevent_socket_new(evconnlistener_get_base(listener), fd, BEV_OPT_CLOSE_ON_FREE);
    if (!bev) {
        evutil_closesocket(fd);
        return;
    }
    bufferevent_setcb(bev, on_handshake, NULL, on_event, NULL);
    if (bufferevent_enable(bev, EV_READ | EV_WRITE) != 0) bufferevent_free(bev);
}

static void on_signal(evutil_socket_t sig, short what, void *arg) {
    (void)sig; (void)what; (void)arg;
    exit(0);
}

/* A listening socket on `port` (0: a free one); -1 on failure. */
static int open_socket(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0), on = 1;
    if (fd < 0) return -1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on);
    if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(fd, 1024) != 0
        || evutil_make_socket_nonblocking(fd) != 0) {
        evutil_closesocket(fd);
        return -1;
    }
    return fd;
}

/* `text` as a number in low...high, else -1. */
static int number(const char *text, int low, int high) {
    char *end;
    long value = strtol(text, &end, 10);
    return *text != '\0' && *end == '\0' && value >= low && value <= high ? (int)value : -1;
}

static void *run(void *arg) {
    event_base_dispatch(arg);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s PORT THREADS\n", argv[0]);
        return 2;
    }
    int port = number(argv[1], 0, 65535), thread_count = number(argv[2], 1, 64);
    if (port < 0 || thread_count < 0) {
        fprintf(stderr, "usage: %s PORT THREADS (PORT 0...65535, THREADS 1...64)\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);

    struct event_base *bases[64];
    for (int i = 0; i < thread_count; i++) {
        struct event_config *config = event_config_new();
        if (!config) return 1;
        event_config_set_flag(config, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
        bases[i] = event_base_new_with_config(config);
        event_config_free(config);
        int fd = open_socket(port);
        if (!bases[i] || fd < 0) { perror("event base/bind/listen"); return 1; }
        if (port == 0) { /* the other threads' sockets share the port the first one got */
            struct sockaddr_in bound;
            socklen_t bound_length = sizeof bound;
            if (getsockname(fd, (struct sockaddr *)&bound, &bound_length) != 0) { perror("getsockname"); return 1; }
            port = ntohs(bound.sin_port);
        }
        if (!evconnlistener_new(bases[i], on_accept, NULL, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, fd)) {
            fprintf(stderr, "evconnlistener_new failed\n");
            return 1;
        }
    }
    struct event *term = evsignal_new(bases[0], SIGTERM, on_signal, NULL);
    struct event *interrupt = evsignal_new(bases[0], SIGINT, on_signal, NULL);
    if (!term || !interrupt || event_add(term, NULL) != 0 || event_add(interrupt, NULL) != 0) return 1;
    printf("listening on http://127.0.0.1:%d\n", port);
    fflush(stdout);
    pthread_t threads[64];
    for (int i = 1; i < thread_count; i++) {
        if (pthread_create(&threads[i], NULL, run, bases[i]) != 0) { perror("pthread_create"); return 1; }
    }
    run(bases[0]);
    return 0;
}
