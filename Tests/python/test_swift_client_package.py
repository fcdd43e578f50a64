"""UnderstudyClient as an app's tests use it: a throwaway package outside the repository depends on
this one by path, imports the library product and nothing else, and its XCTest case stubs and
verifies in a scope of its own against a real server. Also: the product's dependency graph holds
none of the server's targets or system libraries."""
import json
import os
import shutil
import subprocess
import tempfile

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

final class CheckoutTests: XCTestCase {
    func testAnOrderIsPostedOnceInAScopeOfItsOwn() async throws {
        let understudy = try Understudy.fromEnvironment()
        try await understudy.waitUntilHealthy(timeout: .seconds(30))
        let scope = try await understudy.makeScope()
        XCTAssertTrue(scope.name.hasPrefix("CheckoutTests.testAnOrderIsPostedOnceInAScopeOfItsOwn-"), scope.name)
        try await scope.stub(.post("/orders").withBody(.matchesJSONPath("$.items[0]"))
            .willReturn(.json(["id": 7], status: 201)))

        var request = URLRequest(url: scope.url("/orders"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"items": ["tea"]}"#.utf8)
        let (body, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 201)
        XCTAssertEqual(try JSONValue(parsing: body), ["id": 7])

        try await scope.verify(.post("/orders"), .once)
        do {
            try await scope.verify(.get("/orders"))
            XCTFail("nothing was sent with GET")
        } catch let failure as VerificationFailure {
            XCTAssertTrue(failure.description.contains("1. POST /orders"), failure.description)
        }
        let other = try await understudy.makeScope()
        let othersCount = try await other.count(.anyRequest)
        XCTAssertEqual(othersCount, 0, "another scope saw nothing")
        try await scope.delete()
        try await other.delete()
        print("CLIENT-CHECK-DONE")
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
        with serve(stubs, "--no-watch") as url:
            done = subprocess.run([swift, "test", "--package-path", app], capture_output=True, text=True, timeout=900,
                                  env=dict(os.environ, UNDERSTUDY_URL=url))
        output = done.stdout + done.stderr
        assert done.returncode == 0 and "CLIENT-CHECK-DONE" in output, output[-6000:]
        # SwiftPM makes a folder for every target of the graph; only the client's holds object files.
        compiled = set()
        for folder, _, files in os.walk(os.path.join(app, ".build", "debug")):
            if any(name.endswith(".o") for name in files):
                compiled.add(os.path.relpath(folder, os.path.join(app, ".build", "debug")).split(os.sep)[0])
        server = {"%s.build" % target for target in ("HTTPServer", "MockCore", "JSON", "WireFormat", "Stubs", "CLibevent", "CSQLite", "CLibxml2", "CZlib")}
        assert "UnderstudyClient.build" in compiled and not compiled & server, "the app's tests compiled %s" % sorted(compiled)
