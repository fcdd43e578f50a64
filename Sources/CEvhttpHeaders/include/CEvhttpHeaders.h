// Three functions evhttp calls on every request, defined again in the executable so that on ELF
// systems libevent's own calls reach these (the executable's definition comes first in symbol
// lookup), with the same results at a fraction of the cost:
// - evbuffer_add_printf: evhttp writes the status line and each header through vsnprintf, about
//   1,400 instructions a line; the two formats it uses for a response are written by hand, byte
//   for byte what vsnprintf writes, and every other format goes to evbuffer_add_vprintf;
// - evutil_ascii_strcasecmp: header look-ups by name, with its lower-casing table inline;
// - sscanf (glibc's C99 `__isoc99_sscanf`, which libevent calls): the request's HTTP version read
//   by hand when it is spelt the usual way; every other input and format goes to glibc's.
// Where the dynamic linker does not interpose (macOS's two-level namespace), libevent keeps its
// own and nothing changes. Tests compare each with libevent's or glibc's.
#ifndef UNDERSTUDY_CEVHTTPHEADERS_H
#define UNDERSTUDY_CEVHTTPHEADERS_H

#include <stddef.h>

struct evbuffer;

/// How many status and header lines the calling thread has written without vsnprintf so far.
unsigned long understudy_fast_printf_lines(void);

/// What evhttp does for one header line, through the interposed function (for tests).
int understudy_printf_header(struct evbuffer *buffer, const char *key, const char *value);
/// What evhttp does for a status line, through the interposed function (for tests).
int understudy_printf_status(struct evbuffer *buffer, int major, int minor, int code, const char *reason);
/// The same lines through libevent's own formatter (for tests).
int understudy_vprintf_header(struct evbuffer *buffer, const char *key, const char *value);
int understudy_vprintf_status(struct evbuffer *buffer, int major, int minor, int code, const char *reason);

/// The header-name comparison evhttp calls, as this target defines it, and as libevent does (for tests).
int understudy_strcasecmp(const char *s1, const char *s2);
int understudy_libevent_strcasecmp(const char *s1, const char *s2);
/// Whether libevent's own comparison was found beside this one (else the above compares with itself).
int understudy_libevent_strcasecmp_found(void);

#if defined(__linux__)
#include <features.h>
#endif
#if defined(__GLIBC__)
/// How many HTTP versions the calling thread has read without glibc's scanf so far.
unsigned long understudy_fast_versions(void);
/// evhttp's version parse, through the executable's sscanf and through glibc's (for tests).
int understudy_scan_version(const char *version, int *major, int *minor, char *next);
int understudy_glibc_scan_version(const char *version, int *major, int *minor, char *next);
#endif

#endif
