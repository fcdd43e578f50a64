#!/usr/bin/env bash
# Follows docs/architecture.md's "Adding an emulator" with a throwaway emulator, `acme`, and checks
# what the recipe promises. Its folder: the doc's AcmeEmulator.swift as printed, and a backend,
# settings, model and scope state of the anatomy the doc's table gives; its line in
# RegisteredEmulators.swift; its target in Package.swift as printed. Then it builds and checks:
# `understudy emulators` lists it with its benchmark, `check` checks its folder (and names a bad
# config.json), `serve` starts it when stubs/acme/ exists, it answers its requests, keeps a scope's
# writes in that scope, and `/__admin/backends` lists it. Everything it changes is put back when
# it ends, however it ends (the next build drops acme from the binary).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
for file in Package.swift Sources/understudy/RegisteredEmulators.swift; do
    git diff --quiet -- "$file" || { echo "check-emulator-recipe: $file has changes; commit or stash them first" >&2; exit 2; }
done
[ ! -e Sources/Acme ] || { echo "check-emulator-recipe: Sources/Acme exists already" >&2; exit 2; }

work=$(mktemp -d)
server=""
restore() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    git checkout -q -- Package.swift Sources/understudy/RegisteredEmulators.swift
    rm -rf Sources/Acme "$work"
}
trap restore EXIT
fail() { echo "check-emulator-recipe: $*" >&2; exit 1; }

# 1. The folder. The registration is the doc's code block, as printed.
mkdir Sources/Acme
python3 - docs/architecture.md Sources/Acme/AcmeEmulator.swift <<'EOF'
import re, sys
doc = open(sys.argv[1]).read()
recipe = doc[doc.index("## Adding an emulator"):]
registration = next(b for b in re.findall(r"```swift\n(.*?)```", recipe, re.S) if "public static let acme = Emulator(" in b)
open(sys.argv[2], "w").write("\n".join(line[3:] if line.startswith("   ") else line for line in registration.splitlines()) + "\n")
EOF

cat > Sources/Acme/AcmeSettings.swift <<'EOF'
import Foundation
import JSON
import MockCore

/// `stubs/acme/config.json`: `{"mounts": ["/acme/api"]}`.
struct AcmeSettings: EmulatorSettings {
    var mounts = ["/acme/api"]

    init() {}

    mutating func read(_ json: JSONValue, in file: URL) throws(FixtureError) {
        if let value = try Self.mounts(in: json, formerly: "prefixes", file: file) {
            mounts = try Self.mountPaths(value, file: file)
        }
    }
}
EOF

cat > Sources/Acme/AcmeOrders.swift <<'EOF'
import Foundation
import HTTPServer
import JSON
import Logging
import MockCore

/// The model: the orders of stubs/acme/orders.json (none when it cannot be read: the problem is
/// logged, and `check` names it), and those each scope adds.
final class AcmeOrders: Sendable {
    let orders: [String: JSONValue]
    let added = ScopeKey { _ in AcmeScopeState() }

    init(directory: URL, logger: Logger) {
        let (orders, problem) = Self.read(directory)
        if let problem { logger.warning("acme: \(problem)") }
        self.orders = orders
    }

    static func read(_ directory: URL) -> (orders: [String: JSONValue], problem: FixtureError?) {
        let file = directory.appendingPathComponent("orders.json")
        guard let data = FileManager.default.contents(atPath: file.path) else { return ([:], FixtureError.field(file, "", "is missing")) }
        guard let list = (try? JSONValue.parse(Array(data)))?.arrayValue else {
            return ([:], FixtureError.field(file, "", "must be a list of orders"))
        }
        var orders: [String: JSONValue] = [:]
        for order in list { if let id = order["id"]?.intValue { orders[String(id)] = order } }
        return (orders, nil)
    }

    func handle(_ request: Request, _ context: RequestContext, mount: String) -> Reply {
        let rest = request.path.dropFirst(mount.count)
        if request.method == .post && rest == "/orders" {
            let id = context.scope[added].add()
            return .response(.json("{\"id\":\(id)}", status: 201))
        }
        guard request.method == .get, rest.hasPrefix("/orders/") else { return .decline }
        let id = String(rest.dropFirst("/orders/".count))
        if let order = orders[id] { return .response(.json(order.serialized)) }
        if let number = Int(id), context.scope[added].contains(number) { return .response(.json("{\"id\":\(number),\"added\":true}")) }
        return .response(.json("{\"error\":\"no order \(id)\"}", status: 404))
    }
}
EOF

cat > Sources/Acme/AcmeScopeState.swift <<'EOF'
import HTTPServer
import MockCore

/// The orders a scope added (numbered from 1000).
final class AcmeScopeState: ScopeState {
    private let numbers = Locked<[Int]>([])

    func add() -> Int { numbers.withLock { $0.append(1000 + $0.count); return $0[$0.count - 1] } }
    func contains(_ number: Int) -> Bool { numbers.withLock { $0.contains(number) } }
    func reset() { numbers.withLock { $0 = [] } }
    var estimatedBytes: Int { numbers.withLock { $0.count * 8 } }
    func discard() {}
}
EOF

cat > Sources/Acme/AcmeBackend.swift <<'EOF'
import Foundation
import HTTPServer
import Logging
import MockCore

/// The thin backend: its mounts from the settings, the model loaded in the background.
public final class AcmeBackend: Backend {
    public let name = "acme"
    public let mounts: [String]
    private let loaded = BackgroundLoad<AcmeOrders>()

    public init(directory: URL, logger: Logger = Logger(label: "understudy")) {
        mounts = AcmeSettings.load(from: directory, emulator: "acme", logger: logger).mounts
        loaded.start { AcmeOrders(directory: directory, logger: logger) }
    }

    public static func check(directory: URL) -> [FixtureError] {
        AcmeSettings.problems(in: directory) + [AcmeOrders.read(directory).problem].compactMap { $0 }
    }

    public var isReady: Bool { loaded.isLoaded }

    public func handle(_ request: Request, _ context: RequestContext) -> Reply {
        guard let mount = mounts.first(where: { request.path.hasPrefix($0 + "/") }) else { return .decline }
        guard let orders = loaded.value else { return loaded.deferredReply { $0.handle(request, context, mount: mount) } }
        return orders.handle(request, context, mount: mount)
    }
}
EOF

# 2. One line in the registry, and the import above it.
python3 - Sources/understudy/RegisteredEmulators.swift <<'EOF'
import sys
path = sys.argv[1]
text = open(path).read()
text = "import Acme\n" + text
assert "    static let registered: [Emulator] = [\n" in text
text = text.replace("    static let registered: [Emulator] = [\n", "    static let registered: [Emulator] = [\n        .acme,\n", 1)
open(path, "w").write(text)
EOF

# 3. Package.swift: the doc's target, and the executable's dependency.
python3 - docs/architecture.md Package.swift <<'EOF'
import re, sys
doc = open(sys.argv[1]).read()
recipe = doc[doc.index("## Adding an emulator"):]
target = next(b for b in re.findall(r"```swift\n(.*?)```", recipe, re.S) if '.target(name: "Acme"' in b).strip()
package = open(sys.argv[2]).read()
anchor = "        .executableTarget(\n            name: \"understudy\",\n            dependencies: [\n"
assert anchor in package, "Package.swift's understudy target is not where the check expects it"
package = package.replace(anchor, "        " + target + "\n" + anchor + "                \"Acme\",\n", 1)
open(sys.argv[2], "w").write(package)
EOF

echo "check-emulator-recipe: building with acme"
if ! $SWIFT build --product understudy > "$work/build.log" 2>&1; then
    grep -E -A3 "error:" "$work/build.log" | head -40 >&2
    fail "acme, added as docs/architecture.md says, does not build"
fi
binary="$($SWIFT build --show-bin-path)/understudy"

"$binary" emulators --json > "$work/emulators.json"
python3 - "$work/emulators.json" <<'EOF' || fail "understudy emulators does not list acme as the doc says"
import json, sys
emulators = {e["name"]: e for e in json.load(open(sys.argv[1]))["emulators"]}
acme = emulators["acme"]
assert acme["summary"].startswith("the Acme order service"), acme
assert [b["name"] for b in acme["benchmarks"]] == ["acme-order"], acme
EOF
"$binary" serve --help | grep -q "acme" || fail "serve --help does not list acme"

mkdir -p "$work/stubs/acme"
echo '[{"id": 1, "item": "anvil"}]' > "$work/stubs/acme/orders.json"
"$binary" check --stubs "$work/stubs" > "$work/check.txt" 2>&1 || fail "check fails a good acme folder: $(cat "$work/check.txt")"
echo '{"mounts": "acme"}' > "$work/stubs/acme/config.json"
if "$binary" check --stubs "$work/stubs" > "$work/check.txt" 2>&1; then fail "check passes a bad acme/config.json"; fi
grep -q "acme/config.json" "$work/check.txt" || fail "check does not name acme/config.json: $(cat "$work/check.txt")"
echo '{"mounts": ["/acme/api", "/acme/v2"]}' > "$work/stubs/acme/config.json"

"$binary" serve --port 0 --stubs "$work/stubs" --no-watch > "$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do grep -q "listening" "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
port=$(grep -o "127.0.0.1:[0-9]*\|0.0.0.0:[0-9]*\|localhost:[0-9]*" "$work/serve.log" | head -1 | cut -d: -f2)
[ -n "$port" ] || fail "serve did not say where it listens: $(cat "$work/serve.log")"
python3 - "$port" <<'EOF' || fail "acme does not serve as the recipe says"
import json, sys, time, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
def call(path, method="GET", scope=None):
    request = urllib.request.Request(base + path, method=method, headers={"X-Understudy-Scope": scope} if scope else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
for _ in range(100):
    if call("/__admin/health")[0] == 200:
        break
    time.sleep(0.1)
assert call("/acme/api/orders/1") == (200, b'{"id":1,"item":"anvil"}'), call("/acme/api/orders/1")
assert call("/acme/v2/orders/1")[0] == 200, "the second mount from config.json"
status, body = call("/acme/api/orders", "POST", scope="team-a")
assert status == 201 and json.loads(body)["id"] == 1000, (status, body)
assert call("/acme/api/orders/1000", scope="team-a")[0] == 200
assert call("/acme/api/orders/1000", scope="team-b")[0] == 404, "a scope's write stays in its scope"
backends = json.loads(call("/__admin/backends")[1])["backends"]
assert any(b["name"] == "acme" and b["kind"] == "emulator" for b in backends), backends
EOF
echo "check-emulator-recipe: acme, added as docs/architecture.md says, builds, is listed, checked and served"
