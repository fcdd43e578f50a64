"""Requests that once held an event loop for seconds (issue 47's audit), against one worker thread:
for each, the wall time of the request and how long a health probe sent 20 ms after it waited on
the same loop. With the request budget (default 100 ms of work) each should be answered in well
under a second, and the probe with it. Wall-clock figures: read them as orders of magnitude.

Run by bench/run.py (skip with --no-pathological), or alone."""
import http.client
import json
import os
import tempfile
import threading
import time

import harness

RUNAWAY_PATTERN = r"^(\w+\s?)*$"
RUNAWAY_VALUE = "word " * 8 + "a" * 24 + "!"


def mappings():
    def post(url, patterns=None, body=None, template=False):
        response = {"body": body or "matched"}
        if template:
            response["transformers"] = ["response-template"]
        return {"request": {"method": "POST", "url": url, **({"bodyPatterns": patterns} if patterns else {})}, "response": response}
    return {
        "unique": post("/unique", [{"matchesJsonSchema": {"type": "array", "uniqueItems": True}}]),
        "items": post("/items", [{"matchesJsonSchema": {"type": "array", "items": {"pattern": RUNAWAY_PATTERN}}}]),
        "names": post("/names", [{"matchesJsonSchema": {"patternProperties": {RUNAWAY_PATTERN: {"type": "integer"}}, "additionalProperties": False}}]),
        "filter": post("/filter", [{"matchesJsonPath": "$[?(@.v =~ /%s/)]" % RUNAWAY_PATTERN}]),
        "parse": post("/parse", [{"matchesJsonPath": "$.key1"}]),
        "template": post("/template", body="{{#each (parseJson request.body) as |v|}}{{#if (matches v '%s')}}y{{/if}}{{/each}}" % RUNAWAY_PATTERN.replace("\\", "\\\\"), template=True),
        "merge": post("/merge", body="{{{jsonMerge request.body request.body}}}", template=True),
        "remove": post("/remove", body="{{{jsonRemove request.body '$[*].id'}}}", template=True),
    }


def cases():
    many_keys = json.dumps({"key%d" % i: i for i in range(60000)})
    return [
        ("uniqueItems, 30,000 numbers", "/unique", "[" + ",".join(str(i) for i in range(30000)) + "]"),
        ("items.pattern, 400 runaway values", "/items", json.dumps([RUNAWAY_VALUE] * 400)),
        ("patternProperties, 400 runaway names", "/names", json.dumps({RUNAWAY_VALUE[:-1] + str(i) + "!": i for i in range(400)})),
        ("JSONPath =~ filter, 400 values", "/filter", json.dumps([{"v": RUNAWAY_VALUE}] * 400)),
        ("a 60,000-key body parsed", "/parse", many_keys),
        ("template matches, 400 values", "/template", json.dumps([RUNAWAY_VALUE] * 400)),
        ("jsonMerge, 60,000 keys with itself", "/merge", many_keys),
        ("jsonRemove, 150,000 selections", "/remove", json.dumps([{"id": 1}] * 150000)),
    ]


def timed(port, method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    began = time.perf_counter()
    connection.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
    answer = connection.getresponse()
    answer.read()
    connection.close()
    return time.perf_counter() - began, answer.status


def report(rounds=3):
    with tempfile.TemporaryDirectory() as workdir:
        stubs = os.path.join(workdir, "stubs")
        os.makedirs(os.path.join(stubs, "mappings"))
        for name, mapping in mappings().items():
            with open(os.path.join(stubs, "mappings", name + ".json"), "w") as out:
                json.dump(mapping, out)
        process, port = harness.start("understudy", 1, (None, stubs, None), extra=("--max-body", str(64 << 20)))
        try:
            print(f"\nrequests that held a loop, one worker thread (median of {rounds}):")
            print(f"{'case':40} {'status':>6} {'request ms':>11} {'probe waited ms':>16}")
            for label, path, body in cases():
                requests, probes, statuses = [], [], set()
                for _ in range(rounds):
                    result = {}
                    worker = threading.Thread(target=lambda: result.update(answer=timed(port, "POST", path, body)))
                    worker.start()
                    time.sleep(0.02)
                    probe, _ = timed(port, "GET", "/__admin/health")
                    worker.join()
                    elapsed, status = result["answer"]
                    requests.append(elapsed)
                    probes.append(probe)
                    statuses.add(status)
                median = lambda values: sorted(values)[len(values) // 2] * 1000
                print(f"{label:40} {'/'.join(map(str, sorted(statuses))):>6} {median(requests):>11.0f} {median(probes):>16.0f}")
        finally:
            harness.stop(process)


if __name__ == "__main__":
    report()
