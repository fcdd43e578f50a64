#!/usr/bin/env python3
"""Writes tools/link/functions.txt: the functions a server runs, from its start with every shipped
stub to idle and through a CI test session, one symbol per line, for lld's --symbol-ordering-file
(tools/release-flags.sh). Placed together, the code that runs spans fewer pages of the binary, so
fewer are mapped (docs/performance-machinery.md, "Code laid out by use").

Run it after changes that add or move much code (it needs valgrind: `make bench-deps`). A stale
list still builds and works; the server only maps a little more of its binary.

  1. a release build with a link map (`--no-demangle`, so C++ names are as the linker knows them);
  2. the server under callgrind (every executed instruction's address), started twice: with empty
     fixture caches (it makes them) and with the caches made (it reads them); each time until
     healthy, then the CI session of bench/run.py, then a second of idle;
  3. each address's input section, from the map, and for each section the symbol that names it
     alone (a name several sections share would move all of them)."""
import bisect
import collections
import importlib.util
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUTPUT = os.path.join(ROOT, "tools", "link", "functions.txt")
BINARY = os.path.join(ROOT, ".build", "release", "understudy")
PORT = 18461
# A name shared by several sections is still listed when the others are this small: moving them
# too costs little.
SHARED_NAME_SECTION_LIMIT = 16384
MAP_LINE = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (.*)$")


def bench_module():
    # bench/run.py imports its neighbour harness.py.
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    spec = importlib.util.spec_from_file_location("bench_run", os.path.join(ROOT, "bench", "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(map_file):
    flags = subprocess.run([os.path.join(ROOT, "tools", "release-flags.sh")], check=True, capture_output=True, text=True).stdout.split()
    if "-use-ld=lld" not in flags:
        sys.exit("record-functions: the toolchain has no lld, so the release build does not order functions")
    subprocess.run(["swift", "build", "-c", "release", "--product", "understudy", *flags,
                    "-Xlinker", "--no-demangle", "-Xlinker", "-Map=" + map_file], cwd=ROOT, check=True)


def record(cache_dir, out_file, bench):
    """One start under callgrind: healthy, a CI session, a second of idle, stopped."""
    env = dict(os.environ, UNDERSTUDY_CACHE_DIR=cache_dir)
    server = subprocess.Popen(["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-pos=no", "--compress-strings=no",
                               "--callgrind-out-file=" + out_file, BINARY, "serve", "--port", str(PORT), "--no-watch",
                               "--stubs", os.path.join(ROOT, "stubs")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{PORT}/__admin/health", timeout=5).read()
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    raise SystemExit("record-functions: the server under callgrind did not become healthy")
                time.sleep(0.1)
        bench.play_ci_sessions(PORT, 1, check=True)
        time.sleep(1)
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=120)


def read_map(map_file):
    """The .text input sections (start, size, name) in address order, and the symbols in each."""
    sections, symbols, output, current = [], collections.defaultdict(list), None, None
    with open(map_file, errors="replace") as lines:
        for line in lines:
            match = MAP_LINE.match(line.rstrip("\n"))
            if not match:
                continue
            text = match.group(3)
            indent = len(text) - len(text.lstrip(" "))
            if indent == 0:
                output = text.strip()
            elif indent == 8:
                current = len(sections) if output == ".text" else None
                if current is not None:
                    sections.append((int(match.group(1), 16), int(match.group(2), 16), text.strip()))
            elif indent == 16 and current is not None:
                symbols[current].append(text.strip())
    return sections, symbols


def executed_sections(callgrind_file, sections):
    starts = [section[0] for section in sections]
    executed, in_binary = set(), False
    with open(callgrind_file, errors="replace") as lines:
        for line in lines:
            if line.startswith("ob="):
                in_binary = line.rstrip().endswith("/understudy")
            elif in_binary and line.startswith("0x"):
                address = int(line.split()[0], 16)
                index = bisect.bisect_right(starts, address) - 1
                if index >= 0 and address < starts[index] + sections[index][1]:
                    executed.add(index)
    return executed


def ordering_names(sections, symbols, executed):
    sharing = collections.defaultdict(list)
    for index, names in symbols.items():
        for name in names:
            sharing[name].append(index)
    names = set()
    for index in executed:
        candidates = sorted(symbols[index], key=lambda name: (len(sharing[name]), name))
        if not candidates:
            continue  # unnamed helpers: tools/link/unnamed.ld
        name = candidates[0]
        if all(other in executed or sections[other][1] <= SHARED_NAME_SECTION_LIMIT for other in sharing[name]):
            names.add(name)
    return sorted(names)


def main():
    bench = bench_module()
    with tempfile.TemporaryDirectory(prefix="understudy-link-") as scratch:
        map_file = os.path.join(scratch, "understudy.map")
        build(map_file)
        sections, symbols = read_map(map_file)
        executed = set()
        cache_dir = os.path.join(scratch, "cache")
        for run in ("cold", "warm"):
            out_file = os.path.join(scratch, f"callgrind.{run}")
            record(cache_dir, out_file, bench)
            executed |= executed_sections(out_file, sections)
        names = ordering_names(sections, symbols, executed)
    with open(OUTPUT, "w") as output:
        output.writelines(name + "\n" for name in names)
    size = sum(sections[index][1] for index in executed)
    print(f"record-functions: {len(executed)} sections ran ({size // 1024} KB of {sum(s[1] for s in sections) // 1024} KB of code); "
          f"{len(names)} names in {os.path.relpath(OUTPUT, ROOT)}")


if __name__ == "__main__":
    main()
