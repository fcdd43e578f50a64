"""tools/check-imports.py: a fake two-target package fails with one line per import its manifest does
not declare and passes once it does; the repository's own Package.swift declares every import."""
import os
import subprocess
import sys

from understudy_server import ROOT

SCRIPT = os.path.join(ROOT, "tools", "check-imports.py")

MANIFEST = """// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Fake",
    dependencies: [.package(url: "https://github.com/apple/swift-log", from: "1.11.0")],
    targets: [
        .target(name: "Core"),
        .target(
            name: "App",
            dependencies: [%s.product(name: "Logging", package: "swift-log", condition: .when(platforms: [.linux]))]
        ),
    ]
)
"""

SOURCE = """import Foundation
@testable import Core
import Logging
"""


def check(root):
    return subprocess.run([sys.executable, SCRIPT, "--root", str(root)], capture_output=True, text=True, timeout=60)


def fake_package(tmp_path, dependencies):
    (tmp_path / "Package.swift").write_text(MANIFEST % dependencies)
    for target, source in [("Core", "public let answer = 42\n"), ("App", SOURCE)]:
        (tmp_path / "Sources" / target).mkdir(parents=True)
        (tmp_path / "Sources" / target / (target + ".swift")).write_text(source)
    return tmp_path


def test_undeclared_import_fails(tmp_path):
    result = check(fake_package(tmp_path, ""))
    assert result.returncode == 1
    assert result.stdout == "Sources/App/App.swift:2: App imports Core, which Package.swift does not list among App's dependencies\n"


def test_declared_import_passes(tmp_path):
    result = check(fake_package(tmp_path, '"Core", '))
    assert (result.returncode, result.stdout) == (0, "")


def test_repository_declares_its_imports():
    result = check(ROOT)
    assert (result.returncode, result.stdout) == (0, ""), result.stdout
