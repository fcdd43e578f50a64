#!/usr/bin/env python3
"""Runs a test command with a time limit, passing its output through line by line.

`make test` runs `swift test` through this so that a test that hangs ends the run with a message
naming it, instead of holding the run until CI's own limit kills it silently. A test process's
output to a pipe is block-buffered, so a killed run would lose its last lines: where `stdbuf`
exists (Linux) the command runs line-buffered. Past the limit, the tests that started and did
not end are listed, and the command's process group is ended.

    tools/bounded-swift-test.py MINUTES -- COMMAND [ARGUMENTS...]
"""

import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import threading

# Swift Testing's lines: "◇ Test name() started.", "✔ Test name() passed after …",
# "✘ Test name() failed after …", "➜ Test name() skipped". Cases of a parameterized test
# ("Test case passing …") and the run's own lines are not counted.
STARTED = re.compile(r"^\S+ Test (?!case |run )(.+?) started\.$")
ENDED = re.compile(r"^\S+ Test (?!case |run )(.+?) (?:passed|failed|skipped)\b")


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    minutes = float(sys.argv[1])
    command = sys.argv[3:]
    if shutil.which("stdbuf"):
        command = ["stdbuf", "-oL", "-eL"] + command
    running = collections.Counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    timed_out = threading.Event()

    def stop():
        timed_out.set()
        still = sorted((running - collections.Counter()).elements())
        print(
            f"\nbounded-swift-test: `{' '.join(sys.argv[3:])}` ran past {minutes:g} minutes; "
            f"{len(still)} test(s) started and had not ended:",
            *(f"  {name}" for name in still),
            sep="\n",
            flush=True,
        )
        os.killpg(child.pid, signal.SIGTERM)
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
        # Not waiting for the output's end: a child the tests started may still hold the pipe.
        sys.stdout.flush()
        os._exit(124)

    timer = threading.Timer(minutes * 60, stop)
    timer.daemon = True
    timer.start()
    for raw in child.stdout:
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()
        line = raw.decode("utf-8", "replace").rstrip("\n")
        if match := STARTED.match(line):
            running[match.group(1)] += 1
        elif match := ENDED.match(line):
            running[match.group(1)] -= 1
    status = child.wait()
    timer.cancel()
    sys.exit(124 if timed_out.is_set() else status)


if __name__ == "__main__":
    main()
