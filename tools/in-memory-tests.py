#!/usr/bin/env python3
"""Prints the `swift test --filter` pattern of the suites that need no socket, no child process
and no server: those `make test-fast` runs. A test file counts as in memory when it names none of
the things below; the rest (framing, TLS, tunnels, real clients, the CLI) run in `make test`.
A file's text cannot show what a helper in another file does: `make test-fast` sets
UNDERSTUDY_TEST_LANE=in-memory, under which UnderstudyTesting's TestServer, ChildProcess and
RawHTTPConnection refuse (TestLane.swift), so a suite counted here that reaches one fails."""

import pathlib
import re
import sys

# What a test that leaves memory uses: a server on a socket, a child process, a URL session, a loop.
OUTSIDE = re.compile(
    r"TestServer|UnderstudyProcess|withUnderstudy|ChildProcess|RawHTTPConnection\(|TestWebSocket|URLSession|NoRedirects|EventLoop|socket\(|HTTPServer\(|nginx|podman|curl"
)
SUITE = re.compile(r"^(?:@Suite[^\n]*\n|@Suite[^\n]*?\s)?(?:final class|class|struct|enum)\s+(\w+)", re.M)


def suites(root: pathlib.Path):
    for path in sorted((root / "Tests").rglob("*.swift")):
        if "UnderstudyTesting" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        if "@Test" not in text or OUTSIDE.search(text):
            continue
        target = path.relative_to(root / "Tests").parts[0]
        for name in SUITE.findall(text):
            yield f"{target}.{name}"


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    found = sorted(set(suites(root)))
    if not found:
        print("no in-memory suites found", file=sys.stderr)
        return 1
    print("^(" + "|".join(re.escape(name) for name in found) + ")(/|$)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
