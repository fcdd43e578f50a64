// Umbrella header for libevent (core + evhttp + evdns), plus small inline helpers for what Swift
// cannot reach directly (TAILQ macros).
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

/// First header of an evkeyvalq list, or NULL.
static inline struct evkeyval *understudy_headers_first(struct evkeyvalq *headers) {
    return headers ? headers->tqh_first : NULL;
}

/// The header after `header`, or NULL.
static inline struct evkeyval *understudy_headers_next(struct evkeyval *header) {
    return header->next.tqe_next;
}

#endif
