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
#include <openssl/x509.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/bn.h>
#include <openssl/rand.h>

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

/// SSL_CTX_set_min_proto_version is a macro.
static inline int understudy_ssl_ctx_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

/// SSL_CTX_add1_chain_cert is a macro: adds `certificate` to the chain sent after the current one.
static inline int understudy_ssl_ctx_add1_chain_cert(SSL_CTX *context, X509 *certificate) {
    return (int)SSL_CTX_add1_chain_cert(context, certificate);
}

/// SSL_OP_NO_RENEGOTIATION is a function-like macro: a client cannot make the server redo handshakes.
static inline void understudy_ssl_ctx_refuse_renegotiation(SSL_CTX *context) {
    SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION);
}

/// Macros in OpenSSL 1.1.1 and functions in 3.x: the wrapper compiles against both.
static inline int understudy_pkey_ctx_set_ec_curve(EVP_PKEY_CTX *context, int curve) {
    return EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, curve);
}

static inline int understudy_pkey_ctx_set_named_curve_encoding(EVP_PKEY_CTX *context) {
    return EVP_PKEY_CTX_set_ec_param_enc(context, OPENSSL_EC_NAMED_CURVE);
}

#endif
