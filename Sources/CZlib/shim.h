// zlib as a Swift module (system library, pkg-config "zlib"): recorded answers that came
// compressed are stored decoded.
#ifndef UNDERSTUDY_CZLIB_SHIM_H
#define UNDERSTUDY_CZLIB_SHIM_H

#include <zlib.h>

/// inflateInit2 is a macro; this is the call it stands for.
static inline int understudy_inflate_init(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

#endif
