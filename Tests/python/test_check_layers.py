"""tools/check-layers.py: two folders of a module that use each other fail with the pair and a use
each way; a use only in a comment, a string or after a `.` is none; one-way folders pass; and the
repository's own modules are layered."""
import os
import subprocess
import sys

from understudy_server import ROOT

SCRIPT = os.path.join(ROOT, "tools", "check-layers.py")


def check(root, *arguments):
    return subprocess.run([sys.executable, SCRIPT, "--root", str(root), *arguments], capture_output=True, text=True, timeout=60)


def module(tmp_path, files):
    for path, source in files.items():
        file = tmp_path / "Sources" / "Mod" / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(source)
    return tmp_path


def test_folders_that_use_each_other_fail_with_a_use_each_way(tmp_path):
    root = module(tmp_path, {
        "Low/Alpha.swift": "public struct Alpha {\n    var beta: Beta?\n}\n",
        "High/Beta.swift": "struct Beta {\n    let alpha = Alpha()\n}\n",
    })
    result = check(root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Mod: folders High and Low use each other" in result.stdout
    assert "Alpha.swift:2: Beta" in result.stdout and "Beta.swift:2: Alpha" in result.stdout


def test_comments_strings_and_members_are_no_uses_and_one_way_passes(tmp_path):
    root = module(tmp_path, {
        "Low/Alpha.swift": 'public struct Alpha {\n    // Beta is above\n    let text = "Beta"\n    func f(_ x: Alpha) { _ = x.Beta }\n}\n',
        "High/Beta.swift": "struct Beta {\n    let alpha = Alpha()\n}\n",
    })
    result = check(root)
    assert result.returncode == 0 and result.stdout == "", result.stdout + result.stderr
    graph = check(root, "--graph")
    assert "Mod: High -> Low: Alpha" in graph.stdout, graph.stdout


def test_the_repositorys_modules_are_layered():
    result = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
