#!/usr/bin/env bash
# tools/slim-binary.sh BINARY: the release binary as the container image holds it.
# - Its debug information (a third of it) moves into BINARY.debug; BINARY keeps its symbol table
#   (a crash's backtrace still names functions) and a .gnu_debuglink to that file. To read a
#   crash's addresses with file and line, put the .debug file beside the binary (gdb and the Swift
#   backtracer follow the link) or run `addr2line -f -e understudy.debug ADDRESS`.
# - Its libxml2.so dependency goes when libxml2 is linked in (tools/release-flags.sh): that library
#   would serve nothing and bring a second ICU. Fails when the binary still takes libxml2 from it.
set -euo pipefail
binary=$1
objcopy --only-keep-debug "$binary" "$binary.debug"
objcopy --strip-debug --add-gnu-debuglink="$binary.debug" "$binary"
if readelf -d "$binary" | grep -q 'NEEDED.*\[libxml2\.so'; then
  if nm -D --undefined-only "$binary" | grep -q ' xml'; then
    echo "slim-binary: $binary takes libxml2 from libxml2.so (is libxml2.a installed? apt-get install libxml2-dev)" >&2
    exit 1
  fi
  patchelf --remove-needed "$(readelf -d "$binary" | sed -n 's/.*NEEDED.*\[\(libxml2\.so[^]]*\)\].*/\1/p')" "$binary"
fi
