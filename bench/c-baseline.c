/*
 * The ceiling Understudy's engine is measured against: a minimal libevent evhttp server answering
 * every request with the fixed 200-byte body of bench/stubs/__files/fixed.txt. Same socket layout
 * and libevent settings as Understudy: one event_base + evhttp per thread, each on its own
 * SO_REUSEPORT socket, the epoll changelist on, no default Content-Type.
 *
 * usage: c-baseline PORT THREADS BODY_FILE
 */
#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static char *body;
static size_t body_length;
static struct event_base *bases[64];
static int thread_count;

static void on_request(struct evhttp_request *req, void *arg) {
    (void)arg;
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "text/plain; charset=utf-8");
    evbuffer_add_reference(evhttp_request_get_output_buffer(req), body, body_length, NULL, NULL);
    evhttp_send_reply(req, 200, NULL, NULL);
}

static void on_signal(evutil_socket_t sig, short what, void *arg) {
    (void)sig; (void)what; (void)arg;
    exit(0); /* a clean exit, so valgrind writes its profile */
}

static int open_socket(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0), on = 1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(fd, 1024) != 0) {
        perror("bind/listen");
        exit(1);
    }
    evutil_make_socket_nonblocking(fd);
    return fd;
}

static void *run(void *arg) {
    event_base_dispatch((struct event_base *)arg);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s PORT THREADS BODY_FILE\n", argv[0]);
        return 2;
    }
    int port = atoi(argv[1]);
    thread_count = atoi(argv[2]);
    if (thread_count < 1 || thread_count > 64) thread_count = 1;
    FILE *file = fopen(argv[3], "rb");
    if (!file) { perror(argv[3]); return 1; }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    body = malloc(size > 0 ? (size_t)size : 1);
    body_length = fread(body, 1, size > 0 ? (size_t)size : 0, file);
    fclose(file);
    signal(SIGPIPE, SIG_IGN);

    pthread_t threads[64];
    for (int i = 0; i < thread_count; i++) {
        struct event_config *config = event_config_new();
        event_config_set_flag(config, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
        bases[i] = event_base_new_with_config(config);
        event_config_free(config);
        struct evhttp *http = evhttp_new(bases[i]);
        evhttp_set_gencb(http, on_request, NULL);
        evhttp_set_default_content_type(http, NULL);
        struct evconnlistener *listener = evconnlistener_new(bases[i], NULL, NULL,
            LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, open_socket(port));
        evhttp_bind_listener(http, listener);
    }
    struct event *term = evsignal_new(bases[0], SIGTERM, on_signal, NULL);
    struct event *interrupt = evsignal_new(bases[0], SIGINT, on_signal, NULL);
    event_add(term, NULL);
    event_add(interrupt, NULL);
    printf("listening on http://127.0.0.1:%d\n", port);
    fflush(stdout);
    for (int i = 1; i < thread_count; i++) pthread_create(&threads[i], NULL, run, bases[i]);
    run(bases[0]);
    for (int i = 1; i < thread_count; i++) pthread_join(threads[i], NULL);
    return 0;
}
