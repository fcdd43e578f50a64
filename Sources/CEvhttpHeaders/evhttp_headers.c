#include "CEvhttpHeaders.h"

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>

// libevent's declarations, without its headers (this target has no include path for them).
extern int evbuffer_add(struct evbuffer *buffer, const void *data, size_t length);
extern int evbuffer_add_vprintf(struct evbuffer *buffer, const char *format, va_list arguments);

// The formats of evhttp_make_header (libevent 2.1's http.c): "%s: %s\r\n" per header, and the
// response's status line.
static const char header_format[] = "%s: %s\r\n";
static const char status_format[] = "HTTP/%d.%d %d %s\r\n";

// Per thread: one counter shared by the loops would move its cache line between their cores
// on every header line (measured ~50 ns a move on a two-core machine).
static _Thread_local unsigned long fast_lines;

unsigned long understudy_fast_printf_lines(void) { return fast_lines; }

// Appends `text` (vsnprintf's "(null)" for NULL) to `line` at `*used`, if it fits in `capacity`.
static int append_text(char *line, size_t capacity, size_t *used, const char *text) {
    if (text == NULL) text = "(null)";
    size_t length = strlen(text);
    if (length > capacity - *used) return 0;
    memcpy(line + *used, text, length);
    *used += length;
    return 1;
}

// Appends `value` in decimal, as %d writes it.
static int append_int(char *line, size_t capacity, size_t *used, int value) {
    char digits[12];
    size_t count = 0;
    unsigned int magnitude = value < 0 ? 0u - (unsigned int)value : (unsigned int)value;
    do {
        digits[count++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    if (value < 0) digits[count++] = '-';
    if (count > capacity - *used) return 0;
    for (size_t index = 0; index < count; index++) line[*used + index] = digits[count - 1 - index];
    *used += count;
    return 1;
}

// Lines longer than this go to vsnprintf as before.
#define LINE_CAPACITY 1024

int evbuffer_add_printf(struct evbuffer *buffer, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    char line[LINE_CAPACITY];
    size_t used = 0;
    int fits = 0;
    if (strcmp(format, header_format) == 0) {
        va_list copy;
        va_copy(copy, arguments);
        const char *key = va_arg(copy, const char *);
        const char *value = va_arg(copy, const char *);
        va_end(copy);
        fits = append_text(line, LINE_CAPACITY, &used, key) && append_text(line, LINE_CAPACITY, &used, ": ")
            && append_text(line, LINE_CAPACITY, &used, value) && append_text(line, LINE_CAPACITY, &used, "\r\n");
    } else if (strcmp(format, status_format) == 0) {
        va_list copy;
        va_copy(copy, arguments);
        int major = va_arg(copy, int), minor = va_arg(copy, int), code = va_arg(copy, int);
        const char *reason = va_arg(copy, const char *);
        va_end(copy);
        fits = append_text(line, LINE_CAPACITY, &used, "HTTP/") && append_int(line, LINE_CAPACITY, &used, major)
            && append_text(line, LINE_CAPACITY, &used, ".") && append_int(line, LINE_CAPACITY, &used, minor)
            && append_text(line, LINE_CAPACITY, &used, " ") && append_int(line, LINE_CAPACITY, &used, code)
            && append_text(line, LINE_CAPACITY, &used, " ") && append_text(line, LINE_CAPACITY, &used, reason)
            && append_text(line, LINE_CAPACITY, &used, "\r\n");
    }
    int written;
    if (fits) {
        fast_lines++;
        written = evbuffer_add(buffer, line, used) == 0 ? (int)used : -1;
    } else {
        written = evbuffer_add_vprintf(buffer, format, arguments);
    }
    va_end(arguments);
    return written;
}

int understudy_printf_header(struct evbuffer *buffer, const char *key, const char *value) {
    return evbuffer_add_printf(buffer, header_format, key, value);
}

int understudy_printf_status(struct evbuffer *buffer, int major, int minor, int code, const char *reason) {
    return evbuffer_add_printf(buffer, status_format, major, minor, code, reason);
}

static int through_vprintf(struct evbuffer *buffer, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int written = evbuffer_add_vprintf(buffer, format, arguments);
    va_end(arguments);
    return written;
}

int understudy_vprintf_header(struct evbuffer *buffer, const char *key, const char *value) {
    return through_vprintf(buffer, header_format, key, value);
}

int understudy_vprintf_status(struct evbuffer *buffer, int major, int minor, int code, const char *reason) {
    return through_vprintf(buffer, status_format, major, minor, code, reason);
}

// evhttp looks its headers up by name with evutil_ascii_strcasecmp, which lower-cases each byte
// through a function call: about 1,900 instructions a request. The same comparison with the
// table inline: ASCII letters folded, every other byte as it is, compared as `char` (signed on
// most targets), as libevent's is.
static const unsigned char lower_table[256] = {
#define ROW(n) n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, n + 7
    ROW(0), ROW(8), ROW(16), ROW(24), ROW(32), ROW(40), ROW(48), ROW(56), 64,
    'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z',
    91, 92, 93, 94, 95, ROW(96), ROW(104), ROW(112), ROW(120), ROW(128), ROW(136), ROW(144), ROW(152), ROW(160), ROW(168),
    ROW(176), ROW(184), ROW(192), ROW(200), ROW(208), ROW(216), ROW(224), ROW(232), ROW(240), ROW(248)
#undef ROW
};

int evutil_ascii_strcasecmp(const char *s1, const char *s2) {
    for (;;) {
        char c1 = (char)lower_table[(unsigned char)*s1++];
        char c2 = (char)lower_table[(unsigned char)*s2++];
        if (c1 < c2) return -1;
        if (c1 > c2) return 1;
        if (c1 == 0) return 0;
    }
}

int understudy_strcasecmp(const char *s1, const char *s2) {
    return evutil_ascii_strcasecmp(s1, s2);
}

int understudy_libevent_strcasecmp(const char *s1, const char *s2) {
    int (*original)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "evutil_ascii_strcasecmp");
    return original ? original(s1, s2) : evutil_ascii_strcasecmp(s1, s2);
}

int understudy_libevent_strcasecmp_found(void) {
    void *original = dlsym(RTLD_NEXT, "evutil_ascii_strcasecmp");
    return original != NULL && original != (void *)evutil_ascii_strcasecmp;
}

// evhttp reads each request's HTTP version with sscanf(version, "HTTP/%d.%d%c", ...): about 940
// instructions a request, most of them vfscanf's set-up. A version spelt the usual way ("HTTP/",
// one to nine digits, ".", one to nine digits, the end) is read here with the same results, 2
// and both numbers (%c finds the end of the input); anything else, and every other format, goes
// to glibc's. libevent calls the C99 name, as does any library built with glibc's headers.
#if defined(__linux__) && defined(__GLIBC__)
static const char version_format[] = "HTTP/%d.%d%c";

extern int __isoc99_vsscanf(const char *input, const char *format, va_list arguments);

static _Thread_local unsigned long fast_versions;

unsigned long understudy_fast_versions(void) { return fast_versions; }

// Reads one to nine decimal digits at `*text` into `*value`, moving past them.
static int read_digits(const char **text, int *value) {
    int result = 0;
    const char *start = *text;
    while (**text >= '0' && **text <= '9' && *text - start < 9) result = result * 10 + (*(*text)++ - '0');
    *value = result;
    return *text > start && !(**text >= '0' && **text <= '9');
}

int __isoc99_sscanf(const char *input, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int assigned;
    const char *text = input;
    int major, minor;
    if (strcmp(format, version_format) == 0 && strncmp(text, "HTTP/", 5) == 0 && (text += 5, read_digits(&text, &major))
        && *text++ == '.' && read_digits(&text, &minor) && *text == '\0') {
        *va_arg(arguments, int *) = major;
        *va_arg(arguments, int *) = minor;
        fast_versions++;
        assigned = 2;
    } else {
        assigned = __isoc99_vsscanf(input, format, arguments);
    }
    va_end(arguments);
    return assigned;
}

int understudy_scan_version(const char *version, int *major, int *minor, char *next) {
    return __isoc99_sscanf(version, version_format, major, minor, next);
}

int understudy_glibc_scan_version(const char *version, int *major, int *minor, char *next) {
    int (*original)(const char *, const char *, ...) = (int (*)(const char *, const char *, ...))dlsym(RTLD_NEXT, "__isoc99_sscanf");
    return original(version, version_format, major, minor, next);
}
#endif
