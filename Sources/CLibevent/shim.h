// Umbrella header for libevent (core + evhttp + evdns + OpenSSL bufferevents), plus small inline
// helpers for what Swift cannot reach directly (TAILQ macros, OpenSSL macros).
#ifndef UNDERSTUDY_CLIBEVENT_SHIM_H
#define UNDERSTUDY_CLIBEVENT_SHIM_H

// libevent's event-config.h defines _GNU_SOURCE, which changes glibc's fd_set field names; system
// headers included first keep the definitions identical to those Swift's Glibc module sees.
#include <sys/types.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netdb.h>
#include <stdint.h>
#include <stdarg.h>

#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <event2/dns.h>
#include <event2/util.h>
#include <event2/bufferevent_ssl.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

/// First header of an evkeyvalq list, or NULL.
static inline struct evkeyval *understudy_headers_first(struct evkeyvalq *headers) {
    return headers ? headers->tqh_first : NULL;
}

/// The header after `header`, or NULL.
static inline struct evkeyval *understudy_headers_next(struct evkeyval *header) {
    return header->next.tqe_next;
}

/// SSL_set_tlsext_host_name is a macro: the server name sent in the TLS handshake (SNI).
static inline int understudy_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// SSL_CTX_set_tlsext_servername_callback and its argument are macros: the callback that picks
/// the certificate for the host a client names.
static inline void understudy_ssl_ctx_set_servername_callback(SSL_CTX *context, int (*callback)(SSL *, int *, void *), void *arg) {
    SSL_CTX_set_tlsext_servername_callback(context, callback);
    SSL_CTX_set_tlsext_servername_arg(context, arg);
}

#endif
