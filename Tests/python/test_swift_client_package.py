"""UnderstudyClient as an app's tests use it: a throwaway package outside the repository depends on
this one by path, imports the library product and nothing else, and its XCTest case stubs and
verifies in a scope made for it (deleted when the test ends) against a real server, and a failed
verify is reported at its own line. Also: the product's dependency graph holds
none of the server's targets or system libraries."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.request

import pytest

from understudy_server import ROOT, serve

MANIFEST = """// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ShopAppTests",
    platforms: [.macOS(.v15), .iOS(.v16)],
    dependencies: [.package(path: %(root)s)],
    targets: [
        .testTarget(name: "ShopAppTests", dependencies: [.product(name: "UnderstudyClient", package: %(identity)s)]),
    ]
)
"""

TEST = r'''import XCTest
import UnderstudyClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Order: Codable, Equatable {
    var id: Int
    var items: [String]
}

final class CheckoutTests: XCTestCase {
    func testAnOrderIsPostedOnceInAScopeOfItsOwn() async throws {
        let understudy = try Understudy.fromEnvironment()
        try await understudy.waitUntilHealthy(timeout: .seconds(30))
        let scope = try await understudy.makeScope(for: self)
        XCTAssertTrue(scope.name.hasPrefix("CheckoutTests.testAnOrderIsPostedOnceInAScopeOfItsOwn-"), scope.name)
        try await scope.stub(.post("/orders").withBody(.matchesJSONPath("$.items[0]"))
            .willReturn(.json(encoding: Order(id: 7, items: ["tea"]), status: 201)))

        // The app's own code: a path relative to its base URL.
        var request = URLRequest(url: try XCTUnwrap(URL(string: "orders", relativeTo: scope.baseURL)))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"items": ["tea"]}"#.utf8)
        let (body, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 201)
        XCTAssertEqual(try JSONDecoder().decode(Order.self, from: body), Order(id: 7, items: ["tea"]))

        try await scope.verify(.post("/orders"), .once)
        let failure = try await scope.verification(of: .get("/orders"))
        XCTAssertTrue(failure?.description.contains("1. POST /orders") ?? false, failure?.description ?? "no failure")
        let other = try await understudy.makeScope()
        let othersCount = try await other.count(.anyRequest)
        XCTAssertEqual(othersCount, 0, "another scope saw nothing")
        try await other.delete()
        print("CLIENT-CHECK-DONE")
    }

    func testAFailedVerifyIsReportedAtItsOwnLine() async throws {
        let scope = try await Understudy.fromEnvironment().makeScope(for: self)
        try await scope.verify(.get("/never-sent"))  // THE-VERIFY
        print("WENT-ON-AFTER-VERIFY")
    }
}
'''


@pytest.fixture(scope="module")
def swift():
    swift = shutil.which("swift")
    if not swift:
        pytest.fail("swift is needed (the toolchain that builds the server)")
    return swift


def test_the_client_product_depends_on_foundation_only(swift):
    described = subprocess.run([swift, "package", "describe", "--type", "json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert described.returncode == 0, described.stderr
    package = json.loads(described.stdout[described.stdout.index("{"):])
    product = next(p for p in package["products"] if p["name"] == "UnderstudyClient")
    assert product["targets"] == ["UnderstudyClient"]
    target = next(t for t in package["targets"] if t["name"] == "UnderstudyClient")
    assert not target.get("target_dependencies") and not target.get("product_dependencies"), target


def test_an_outside_package_stubs_and_verifies_through_the_client(swift):
    with tempfile.TemporaryDirectory(prefix="understudy-client-check-") as work:
        app = os.path.join(work, "ShopAppTests")
        os.makedirs(os.path.join(app, "Tests", "ShopAppTests"))
        identity = os.path.basename(ROOT).lower()
        with open(os.path.join(app, "Package.swift"), "w") as manifest:
            manifest.write(MANIFEST % {"root": json.dumps(ROOT), "identity": json.dumps(identity)})
        with open(os.path.join(app, "Tests", "ShopAppTests", "CheckoutTests.swift"), "w") as test:
            test.write(TEST)
        stubs = os.path.join(work, "stubs")
        os.makedirs(stubs)
        environment = dict(os.environ, UNDERSTUDY_URL="")
        with serve(stubs, "--no-watch") as url:
            environment["UNDERSTUDY_URL"] = url
            done = subprocess.run([swift, "test", "--package-path", app, "--filter", "testAnOrderIsPostedOnce"],
                                  capture_output=True, text=True, timeout=900, env=environment)
            output = done.stdout + done.stderr
            assert done.returncode == 0 and "CLIENT-CHECK-DONE" in output, output[-6000:]
            failed = subprocess.run([swift, "test", "--package-path", app, "--filter", "testAFailedVerify"],
                                    capture_output=True, text=True, timeout=600, env=environment)
            scopes = json.load(urllib.request.urlopen(url + "/__admin/scopes"))["scopes"]
        # The failed verify: reported at its own line with the server's explanation, and the test went on.
        line = TEST.splitlines().index(next(l for l in TEST.splitlines() if "THE-VERIFY" in l)) + 1
        output = failed.stdout + failed.stderr
        assert failed.returncode != 0, output[-4000:]
        assert re.search(r"CheckoutTests\.swift:%d: error: .*Expected at least 1 request matching GET /never-sent" % line, output), output[-4000:]
        assert "WENT-ON-AFTER-VERIFY" in output, output[-4000:]
        # Each scope made for a test case was deleted when its test ended.
        assert not [s["name"] for s in scopes if s["name"].startswith("CheckoutTests.")], scopes
        # SwiftPM makes a folder for every target of the graph; only the client's holds object files.
        compiled = set()
        for folder, _, files in os.walk(os.path.join(app, ".build", "debug")):
            if any(name.endswith(".o") for name in files):
                compiled.add(os.path.relpath(folder, os.path.join(app, ".build", "debug")).split(os.sep)[0])
        server = {"%s.build" % target for target in ("HTTPServer", "MockCore", "JSON", "WireFormat", "Stubs", "CLibevent", "CSQLite", "CLibxml2", "CZlib")}
        assert "UnderstudyClient.build" in compiled and not compiled & server, "the app's tests compiled %s" % sorted(compiled)
