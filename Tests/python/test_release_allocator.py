"""The allocator of a release build on Linux (tools/release-flags.sh): jemalloc linked in as one
object whose malloc family the whole process then calls, and the settings of CAllocatorSettings,
which jemalloc must accept. A program linked as the release build links (the object, the settings'
source, the executable's symbols exported) prints what jemalloc runs with."""
import os
import platform
import shutil
import subprocess

import pytest

from understudy_server import ROOT

MALLOC_FAMILY = ("malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "malloc_usable_size")

PROGRAM = r"""#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int mallctl(const char *name, void *old, size_t *oldLength, void *new, size_t newLength);

int main(void) {
    bool background = false;
    size_t length = sizeof background;
    if (mallctl("opt.background_thread", &background, &length, NULL, 0) != 0) return 2;
    ssize_t decay = 0;
    length = sizeof decay;
    if (mallctl("opt.dirty_decay_ms", &decay, &length, NULL, 0) != 0) return 3;
    // Made by libc, freed here: both must be jemalloc's.
    char *copy = strdup("evhttp header");
    size_t usable = malloc_usable_size(copy);
    free(copy);
    printf("background_thread=%d dirty_decay_ms=%zd usable=%zu\n", background, decay, usable);
    return 0;
}
"""


def release_flags():
    if platform.system() != "Linux":
        pytest.skip("the release build links jemalloc on Linux only")
    flags = subprocess.run([os.path.join(ROOT, "tools", "release-flags.sh")], capture_output=True, text=True, check=True)
    objects = [flag for flag in flags.stdout.split() if flag.endswith("/jemalloc.o")]
    if not objects:
        pytest.skip(f"no jemalloc here or no lld in the toolchain: {flags.stderr.strip()}")
    return objects[0]


def defined_symbols(path):
    listing = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    return {fields[2]: fields[1] for fields in (line.split() for line in listing.splitlines()) if len(fields) == 3}


def test_the_release_build_links_jemalloc_as_one_object_whose_malloc_family_is_global():
    symbols = defined_symbols(release_flags())
    for name in MALLOC_FAMILY:
        assert symbols.get(name) == "T", f"{name}: {symbols.get(name)}"
    # Weak, so that CAllocatorSettings' definition is the one jemalloc reads.
    assert symbols.get("malloc_conf") in ("V", "W", "v", "w"), symbols.get("malloc_conf")


def test_jemalloc_accepts_the_settings_and_answers_libc_s_allocations(tmp_path):
    jemalloc = release_flags()
    swift = shutil.which("swift")
    clang = os.path.join(os.path.dirname(os.path.realpath(swift)), "clang") if swift else None
    if not clang or not os.path.exists(clang):
        pytest.skip("no clang beside swift")
    (tmp_path / "main.c").write_text(PROGRAM)
    settings = os.path.join(ROOT, "Sources", "CAllocatorSettings")
    program = tmp_path / "allocator"
    subprocess.run([clang, "-O1", "-I", os.path.join(settings, "include"), str(tmp_path / "main.c"),
                    os.path.join(settings, "allocator_settings.c"), jemalloc, "-rdynamic", "-lpthread", "-ldl", "-lm",
                    "-lstdc++", "-o", str(program)], check=True, capture_output=True)
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run
    # jemalloc writes "<jemalloc>: Invalid conf pair" for a setting it does not take.
    assert run.stderr == ""
    assert run.stdout.startswith("background_thread=1 dirty_decay_ms=1000 usable="), run.stdout
    assert int(run.stdout.split("usable=")[1]) >= len("evhttp header") + 1
