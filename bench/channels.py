"""WebSocket channels and Server-Sent Events (issue 49's speed and memory), three parts:

- echo: 64-byte text messages echoed over --connections WebSocket connections, one in flight on
  each (bench/ws-load.c), by a message stub and by bench/c-websocket-echo.c on the same libevent,
  in interleaved rounds: messages/s, p50/p99 round trip, and the ratios U/C (medians of the
  rounds). Target: a rate ratio of at least 0.9.
- idle: the resident memory (VmRSS) the server gains holding 10,000 idle WebSocket channels, per
  channel, beside the same for 10,000 idle keep-alive HTTP connections (one request each): the
  difference is what a channel costs beyond its connection. Target: at most 4 KiB.
- sse: the CPU time the server spends on 1,000 open event streams of one event a second, as % of
  one core over 10 s (target: under 5%), and the fewest events a stream got meanwhile (about 10).

Wall-clock figures swing between runs on shared machines: read the medians and ratios. Run by
bench/run.py (skip with --no-channels), or alone (--help)."""
import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time

import harness

ECHO = {"trigger": {"type": "message", "channel": {"type": "websocket", "initiatingRequestPattern": {"urlPath": "/echo"}}},
        "actions": [{"type": "send", "message": {"body": {"data": "{{message.body}}"}}}]}
TICKS = {"request": {"method": "GET", "urlPath": "/ticks"},
         "response": {"status": 200, "eventStream": {"events": [{"data": "tick", "delayMs": 1000}], "repeat": True}}}
TICK = b"data: tick\n"
UPGRADE = (b"GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
KEEP_ALIVE = b"GET /__admin/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
STREAM = b"GET /ticks HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
IDLE_CHANNELS = 10_000
STREAMS = 1_000
STREAM_SECONDS = 10
PARTS = ("echo", "idle", "sse")
# Connections being opened at once: the server's accept queue and the client's loop keep up.
OPENING_AT_ONCE = 200


def make_stubs(workdir):
    stubs = os.path.join(workdir, "stubs")
    for folder, name, mapping in (("message-mappings", "echo.json", ECHO), ("mappings", "ticks.json", TICKS)):
        os.makedirs(os.path.join(stubs, folder))
        with open(os.path.join(stubs, folder, name), "w") as out:
            json.dump(mapping, out)
    return stubs


def ws_load(port, connections, seconds):
    """ws-load's figures: (messages/s, p50 ms, p99 ms)."""
    out = subprocess.run([harness.WS_LOAD, str(port), "/echo", str(connections), str(seconds)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"ws-load failed: {out.stdout}{out.stderr}")
    result = json.loads(out.stdout)
    if result["errors"]:
        raise RuntimeError(f"ws-load: {result['errors']} errors (failed upgrades, wrong echoes, closed connections)")
    return result["rate"], result["p50_ms"], result["p99_ms"]


def echo(args, stubs):
    results = {"understudy": [], "c": []}
    print(f"\nWebSocket echo: 64-byte messages, {args.connections} connections, {args.threads} server threads, "
          f"{args.duration}s per run, {args.rounds} interleaved rounds")
    for round_number in range(1, args.rounds + 1):
        for kind in results:
            process, port = harness.start("understudy" if kind == "understudy" else "c-websocket", args.threads, (None, stubs, None))
            try:
                figures = ws_load(port, args.connections, args.duration)
            finally:
                harness.stop(process)
            results[kind].append(figures)
            print(f"  round {round_number} {kind:10} {figures[0]:>10,.0f} msg/s  p50 {figures[1]:.3f} ms  p99 {figures[2]:.3f} ms", flush=True)
    for kind, rows in results.items():
        rate, p50, p99 = (statistics.median(row[i] for row in rows) for i in range(3))
        print(f"  median {kind:10} {rate:>10,.0f} msg/s  p50 {p50:.3f} ms  p99 {p99:.3f} ms")
    pairs = list(zip(results["understudy"], results["c"]))
    print(f"  rate ratio U/C {statistics.median(u[0] / c[0] for u, c in pairs):.2f} (target >= 0.90), "
          f"p99 ratio U/C {statistics.median(u[2] / c[2] for u, c in pairs):.2f}")


def raise_descriptor_limit(wanted):
    """Raises this process's open-file limit (inherited by the server it starts) toward `wanted`;
    the limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


async def open_connections(port, count, request, status):
    """`count` connections, each having sent `request` and read the head of an answer with
    `status` (and its body, by Content-Length): the (reader, writer) pairs that got there."""
    gate = asyncio.Semaphore(OPENING_AT_ONCE)

    async def one():
        async with gate:
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 30)
            except (OSError, asyncio.TimeoutError):
                return None
            try:
                writer.write(request)
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
                if not head.startswith(b"HTTP/1.1 %d " % status):
                    raise ConnectionError(head.split(b"\r\n", 1)[0].decode(errors="replace"))
                length = next((int(line.split(b":", 1)[1]) for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")), 0)
                await asyncio.wait_for(reader.readexactly(length), 30)
                return reader, writer
            except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError):
                writer.close()
                return None

    return [pair for pair in await asyncio.gather(*(one() for _ in range(count))) if pair]


async def held_memory(port, pid, count, request, status):
    """(connections held, KiB of VmRSS each added) once `count` idle connections are open."""
    before = harness.resident_memory(pid)[0]
    held = await open_connections(port, count, request, status)
    await asyncio.sleep(1)
    after = harness.resident_memory(pid)[0]
    for _, writer in held:
        writer.close()
    return len(held), (after - before) * 1024 / max(len(held), 1)


def idle(args, stubs, count):
    limit = raise_descriptor_limit(count + 100)
    print(f"\nidle connections: {count:,} held 1 s each way, {args.threads} server threads; VmRSS gained per connection")
    if limit < count + 100:
        print(f"  (this process may open {limit:,} descriptors, fewer than {count:,}: raise `ulimit -n`)")
    per_connection = {}
    for label, request, status, extra in (("WebSocket channels", UPGRADE, 101, ("--max-channels", str(count))),
                                          ("keep-alive HTTP", KEEP_ALIVE, 200, ())):
        process, port = harness.start("understudy", args.threads, (None, stubs, None), extra=extra)
        try:
            time.sleep(1)  # start-up's own allocations settled
            held, per_connection[label] = asyncio.run(held_memory(port, process.pid, count, request, status))
        finally:
            harness.stop(process)
        print(f"  {label:20} {held:>7,} of {count:,} held  {per_connection[label]:>6.2f} KiB each")
    beyond = per_connection["WebSocket channels"] - per_connection["keep-alive HTTP"]
    print(f"  a channel beyond its connection: {beyond:.2f} KiB (target <= 4 KiB)")


def cpu_seconds(pid):
    """User + system CPU time of a process so far, from /proc/PID/stat (fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def watch_streams(port, pid, count, seconds):
    """(streams open, % of one core the server used over `seconds`, fewest events a stream got then)."""
    opened = await open_connections(port, count, STREAM, 200)
    ticks = [0] * len(opened)

    async def read(index, reader):
        tail = b""
        while data := await reader.read(65536):
            data = tail + data
            ticks[index] += data.count(TICK)
            tail = data[1 - len(TICK):]  # a tick split between reads is counted once whole

    readers = [asyncio.create_task(read(index, reader)) for index, (reader, _) in enumerate(opened)]
    await asyncio.sleep(1.5)  # the openings' work done, and a first event everywhere
    counted, cpu, began = list(ticks), cpu_seconds(pid), time.monotonic()
    await asyncio.sleep(seconds)
    share = (cpu_seconds(pid) - cpu) / (time.monotonic() - began) * 100
    fewest = min((now - then for now, then in zip(ticks, counted)), default=0)
    for task in readers:
        task.cancel()
    for _, writer in opened:
        writer.close()
    return len(opened), share, fewest


def sse(args, stubs, count, seconds):
    raise_descriptor_limit(count + 100)
    process, port = harness.start("understudy", args.threads, (None, stubs, None))
    try:
        opened, share, fewest = asyncio.run(watch_streams(port, process.pid, count, seconds))
    finally:
        harness.stop(process)
    print(f"\nevent streams: {opened:,} of {count:,} open, one event a second each, {args.threads} server threads: "
          f"{share:.2f}% of one core over {seconds} s (target < 5%); the fewest events a stream got: {fewest} (about {seconds})")


def report(args, channels=IDLE_CHANNELS, streams=STREAMS, stream_seconds=STREAM_SECONDS, parts=PARTS):
    missing = [path for path in (harness.WS_LOAD, harness.C_WEBSOCKET_ECHO) if not os.path.exists(path)]
    if missing:
        print(f"\nchannels: skipped (no {', '.join(missing)}: make bench builds them)")
        return
    with tempfile.TemporaryDirectory() as workdir:
        stubs = make_stubs(workdir)
        if "echo" in parts and args.rounds > 0:
            echo(args, stubs)
        if "idle" in parts:
            idle(args, stubs, channels)
        if "sse" in parts:
            sse(args, stubs, streams, stream_seconds)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10, help="seconds per echo run")
    parser.add_argument("--connections", type=int, default=64, help="echo connections")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="server worker threads")
    parser.add_argument("--channels", type=int, default=IDLE_CHANNELS, help="idle connections held")
    parser.add_argument("--streams", type=int, default=STREAMS, help="event streams open")
    parser.add_argument("--stream-seconds", type=int, default=STREAM_SECONDS, help="seconds the streams' CPU time is measured")
    parser.add_argument("--part", action="append", choices=PARTS, help="default: all")
    options = parser.parse_args()
    report(options, options.channels, options.streams, options.stream_seconds, options.part or PARTS)
