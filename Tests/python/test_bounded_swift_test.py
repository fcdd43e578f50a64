"""tools/bounded-swift-test.py: a test command that runs past its limit is ended, with the tests
that started and had not ended named (a parameterized test's cases and the run's own lines are
not tests); its output comes through line by line even from a program that buffers a pipe's
output; a command within its limit keeps its output and exit status."""
import os
import shutil
import subprocess
import sys
import time

import pytest

from understudy_server import ROOT

SCRIPT = os.path.join(ROOT, "tools", "bounded-swift-test.py")

# Swift Testing's lines, as `swift test` prints them.
STARTED_AND_STUCK = """◇ Test run started.
◇ Suite Slow started.
◇ Test quick() started.
✔ Test quick() passed after 0.1 seconds.
◇ Test stuck(request:reason:) started.
◇ Test case passing 2 arguments request → "GET", reason → "x" to stuck(request:reason:) started.
◇ Test twice() started.
◇ Test twice() started.
✘ Test twice() failed after 0.2 seconds with 1 issue.
"""


def bounded(minutes, *command):
    return subprocess.run([sys.executable, SCRIPT, str(minutes), "--", *command], capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(shutil.which("stdbuf") is None, reason="stdbuf (coreutils) makes the output line-buffered on Linux only")
def test_a_run_past_its_limit_is_ended_and_names_the_tests_still_running(tmp_path):
    pid_file = tmp_path / "pid"
    lines = tmp_path / "lines.txt"
    lines.write_text(STARTED_AND_STUCK)
    # `tr` writes through C's stdio, which holds a pipe's output until it exits: only a
    # line-buffered run shows these lines before the kill.
    script = f"echo $$ > '{pid_file}'; {{ cat '{lines}'; sleep 600; }} | tr x x"
    started = time.monotonic()
    result = bounded(0.05, "/bin/sh", "-c", script)
    assert result.returncode == 124, result.stdout + result.stderr
    assert time.monotonic() - started < 60
    assert "◇ Test stuck(request:reason:) started." in result.stdout, "the lines came through before the kill"
    message = result.stdout.split("ran past 0.05 minutes;")[1]
    assert message.splitlines()[0].strip() == "2 test(s) started and had not ended:"
    assert sorted(line.strip() for line in message.splitlines()[1:] if line.strip()) == ["stuck(request:reason:)", "twice()"]
    # The command's process group is gone.
    pid = int(pid_file.read_text())
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the shell {pid} still runs")


def test_a_run_within_its_limit_keeps_its_output_and_status():
    result = bounded(1, "/bin/sh", "-c", "echo '✔ Test quick() passed after 0.1 seconds.'; echo to-stderr >&2; exit 3")
    assert result.returncode == 3
    assert "✔ Test quick() passed after 0.1 seconds." in result.stdout and "to-stderr" in result.stdout
    assert "ran past" not in result.stdout


def test_a_command_line_without_its_separator_is_refused():
    result = subprocess.run([sys.executable, SCRIPT, "5", "swift", "test"], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "MINUTES -- COMMAND" in result.stderr
