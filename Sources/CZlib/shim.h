// zlib as a Swift module (system library, pkg-config "zlib"): recorded answers that came
// compressed are stored decoded; WebSocket messages are compressed with permessage-deflate.
#ifndef UNDERSTUDY_CZLIB_SHIM_H
#define UNDERSTUDY_CZLIB_SHIM_H

#include <zlib.h>

/// inflateInit2 is a macro; this is the call it stands for.
static inline int understudy_inflate_init(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

/// deflateInit2 is a macro too.
static inline int understudy_deflate_init(z_stream *stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
}

#endif
