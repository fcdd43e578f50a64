"""What device mode costs: a keep-alive client asking for a fixed body directly over HTTP, and
the same over HTTPS through Understudy as its proxy (CONNECT, TLS ended with a certificate from the
local CA, relayed into the TLS listener); and the first request to a host never seen before (its
leaf certificate issued) against one to a host seen already. One client on one connection, the
same Python client both ways: what is compared is the server side. Run by bench/run.py (skip with
--no-device), or alone."""
import http.client
import ssl
import statistics
import tempfile
import time

import harness

REQUESTS = 3000


def started(workdir):
    """Understudy on the bench stubs, with every name under .bench.example mapped to the files."""
    return harness.start_for_devices(workdir)


def client_context(port):
    """Trusts the server's CA, fetched as a device would."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/__admin/ca.pem")
    pem = connection.getresponse().read().decode()
    connection.close()
    context = ssl.create_default_context(cadata=pem)
    return context


def rate(connection, count, path="/fixed.txt"):
    """Requests per second on one kept-alive connection, and the median latency in ms."""
    latencies = []
    for _ in range(count):
        began = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"{path}: status {response.status}")
        latencies.append(time.perf_counter() - began)
    return count / sum(latencies), statistics.median(latencies) * 1000


def through_proxy(port, context, host):
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=30, context=context)
    connection.set_tunnel(host, 443)
    return connection


def report(rounds=3):
    with tempfile.TemporaryDirectory() as workdir:
        process, port = started(workdir)
        try:
            context = client_context(port)
            direct, proxied = [], []
            for round_number in range(rounds):
                plain = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                rate(plain, 200)
                direct.append(rate(plain, REQUESTS))
                plain.close()
                tunnel = through_proxy(port, context, "www.bench.example")
                rate(tunnel, 200)
                proxied.append(rate(tunnel, REQUESTS))
                tunnel.close()
            # A new host each time: CONNECT, a leaf issued, the handshake, one request.
            first, again = [], []
            for n in range(30):
                host = f"host{n}.bench.example"
                for times in (first, again):
                    began = time.perf_counter()
                    connection = through_proxy(port, context, host)
                    rate(connection, 1)
                    connection.close()
                    times.append(time.perf_counter() - began)
        finally:
            harness.stop(process)
    direct_rps = statistics.median(r for r, _ in direct)
    proxied_rps = statistics.median(r for r, _ in proxied)
    print(f"\ndevice mode, one keep-alive client ({REQUESTS} requests, median of {rounds} rounds): direct HTTP {direct_rps:,.0f} req/s "
          f"(p50 {statistics.median(l for _, l in direct):.3f} ms), HTTPS through the proxy {proxied_rps:,.0f} req/s "
          f"(p50 {statistics.median(l for _, l in proxied):.3f} ms): ratio {proxied_rps / direct_rps:.2f}")
    print(f"  a new connection through the proxy: to a new host {statistics.median(first) * 1000:.2f} ms, to a known one "
          f"{statistics.median(again) * 1000:.2f} ms (median of 30): issuing its certificate ~{(statistics.median(first) - statistics.median(again)) * 1000:.2f} ms")


if __name__ == "__main__":
    report()
