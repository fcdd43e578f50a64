// evhttp writes a response's status line and each header with evbuffer_add_printf, which goes
// through vsnprintf: about 1,400 instructions a line. This target defines evbuffer_add_printf in
// the executable, so that on ELF systems libevent's own calls reach it (the executable's
// definition comes first in symbol lookup): the two formats evhttp uses for a response are
// written by hand, byte for byte what vsnprintf writes, and every other format goes to libevent's
// evbuffer_add_vprintf. Where the dynamic linker does not interpose (macOS's two-level
// namespace), libevent keeps its own and nothing changes.
#ifndef UNDERSTUDY_CEVHTTPHEADERS_H
#define UNDERSTUDY_CEVHTTPHEADERS_H

#include <stddef.h>

struct evbuffer;

/// How many status and header lines were written without vsnprintf so far (all threads).
unsigned long understudy_fast_printf_lines(void);

/// What evhttp does for one header line, through the interposed function (for tests).
int understudy_printf_header(struct evbuffer *buffer, const char *key, const char *value);
/// What evhttp does for a status line, through the interposed function (for tests).
int understudy_printf_status(struct evbuffer *buffer, int major, int minor, int code, const char *reason);
/// The same lines through libevent's own formatter (for tests).
int understudy_vprintf_header(struct evbuffer *buffer, const char *key, const char *value);
int understudy_vprintf_status(struct evbuffer *buffer, int major, int minor, int code, const char *reason);

#endif
