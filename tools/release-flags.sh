#!/usr/bin/env bash
# Prints the `swift build` flags of a release build (`make release`, docker/Dockerfile).
# On Linux: the Swift runtime and Foundation linked into the binary, and, when the toolchain has
# lld, the code laid out by use: each function in a section of its own, the ones a server runs
# placed together in the order of tools/link/functions.txt, the compiler's unnamed helpers together
# (tools/link/unnamed.ld), and relative relocations packed (RELR; glibc loads them from 2.36).
# Fewer pages of the binary are then mapped: docs/performance-machinery.md, "Code laid out by use".
# And jemalloc linked in, when its static library is installed (libjemalloc-dev): it answers every
# malloc of the process, libevent's and the Swift runtime's included: a stub request costs ~15%
# less CPU under load (glibc's allocator kept consolidating its free lists): docs/performance-machinery.md,
# "jemalloc linked as one object".
set -euo pipefail
[ "$(uname)" = Linux ] || exit 0
link="$(cd "$(dirname "$0")" && pwd)/link"
flags=(--static-swift-stdlib)
# C targets' debug information as DWARF 4, as Swift writes it: clang writes 5, which the bench's
# valgrind (Debian 12's 3.19) refuses ("corrupted debuginfo") and so cannot count instructions.
flags+=(-Xcc -gdwarf-4)
# The toolchain's own bin folder, where clang looks for ld.lld first.
resources=$("${SWIFT:-swift}" -print-target-info 2>/dev/null | sed -n 's/.*"runtimeResourcePath": "\(.*\)".*/\1/p')
if [ -n "$resources" ] && [ -x "$resources/../../bin/ld.lld" ]; then
  flags+=(-Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -use-ld=lld
          -Xlinker "--symbol-ordering-file=$link/functions.txt" -Xlinker --no-warn-symbol-ordering
          -Xlinker -T -Xlinker "$link/unnamed.ld")
  # ARCHIVE as one object, .build/NAME/NAME.o (made again when the archive is newer); prints its path.
  whole_object() {
    local folder
    folder="$(cd "$(dirname "$link")/.." && pwd)/.build/$2"
    if [ ! "$folder/$2.o" -nt "$1" ]; then
      mkdir -p "$folder"
      "$resources/../../bin/ld.lld" -r --whole-archive "$1" -o "$folder/$2.o"
    fi
    echo "$folder/$2.o"
  }
  jemalloc="$(pkg-config --variable=libdir jemalloc 2>/dev/null || true)/libjemalloc_pic.a"
  if [ -f "$jemalloc" ]; then
    # As one object, not an archive: the static runtime's flags keep an archive's symbols to the
    # executable, and libevent and libc must allocate and free through the same malloc as Swift.
    flags+=(-Xlinker "$(whole_object "$jemalloc" jemalloc)")
  else
    echo "release-flags: no libjemalloc_pic.a (apt-get install libjemalloc-dev): glibc's malloc, slower under load" >&2
  fi
  # libxml2 linked in, its character converters answered by the ICU that Foundation already links
  # in: Debian's libxml2.so would load a second ICU (libicudata, 30 MB) for the five converter
  # calls libxml2 makes when iconv lacks an encoding. ICU's C API is stable across versions; the
  # version suffix of its names (ucnv_open_72) only keeps two ICUs apart, and Foundation's copy names
  # them swift_ucnv_open. Every versioned name libxml2 wants is mapped so; one that Foundation's ICU
  # lacks fails the link.
  xml="$(pkg-config --variable=libdir libxml-2.0 2>/dev/null || true)/libxml2.a"
  if [ -f "$xml" ]; then
    # As one object, so its definitions are the binary's own (the module map still names
    # libxml2.so, which then serves nothing: tools/slim-binary.sh drops it for the image).
    object=$(whole_object "$xml" libxml2)
    flags+=(-Xlinker "$object" -Xlinker -llzma)
    for name in $(nm -u "$object" | awk '$2 ~ /_[0-9]+$/ {print $2}' | sort -u); do
      flags+=(-Xlinker "--defsym=$name=swift_${name%_*}")
    done
  else
    echo "release-flags: no libxml2.a (apt-get install libxml2-dev): libxml2 and a second ICU loaded at run time" >&2
  fi
  glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  if [ -n "$glibc" ] && [ "$(printf '%s\n2.36\n' "$glibc" | sort -V | head -n 1)" = 2.36 ]; then
    flags+=(-Xlinker -z -Xlinker pack-relative-relocs)
  fi
fi
echo "${flags[@]}"
