#!/usr/bin/env python3
"""Every import of a project module is declared in Package.swift: a Swift file in target T that imports
another target of this package, or a product its targets name, needs that module in T's own
`dependencies` (a transitive one does not count). SwiftPM builds every module into one folder, so an
undeclared import of a module built for some other target compiles until the graph changes.
Imports of anything else (Foundation, Glibc, Testing, ...) are ignored. Exits 1 with one line per
undeclared import; 0, silently, when all are declared. Python 3 standard library only (`make lint`)."""
import argparse
import pathlib
import re
import sys

STRING = r'"(?:[^"\\\n]|\\.)*"'
# Swift 6's access-level imports, attributes (@testable, @_spi(X)) and kinds (`import struct X.Y`).
IMPORT = re.compile(r"\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
                    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(\w+)")
DEFAULT_FOLDER = {"testTarget": "Tests", "plugin": "Plugins"}


def split(text):
    """The items of a Swift argument or array list that starts `text`, split at commas outside brackets
    and strings; the list ends at its closing bracket."""
    items, depth, start = [], 0, 0
    for match in re.finditer(STRING + r"|[\[(]|[\])]|,", text):
        token = match.group()
        if token in "[(":
            depth += 1
        elif token in "])":
            depth -= 1
            if depth < 0:
                text = text[:match.start()]
                break
        elif token == "," and depth == 0:
            items.append(text[start:match.start()].strip())
            start = match.end()
    items.append(text[start:].strip())
    return [item for item in items if item]


def argument(items, label):
    """The value of `label:` among a call's arguments, or None."""
    for item in items:
        if item.startswith(label + ":"):
            return item[len(label) + 1:].strip()
    return None


def parse(manifest):
    """{target: (source folder, declared dependency modules)} and every product module the targets name."""
    # Comments out (a `//` inside a string such as a URL stays), then the arguments of Package(...).
    text = re.sub(STRING + r"|//[^\n]*", lambda m: m.group() if m.group()[0] == '"' else "", manifest)
    package = split(text[text.index("Package(") + len("Package("):])
    targets, products = {}, set()
    for declaration in split(argument(package, "targets")[1:]):
        kind = re.match(r"\.(\w+)\(", declaration)
        if not kind:
            sys.exit(f"Package.swift: not a target declaration: {declaration[:60]}")
        arguments = split(declaration[kind.end():])
        name = argument(arguments, "name").strip('"')
        path = argument(arguments, "path")
        folder = path.strip('"') if path else f"{DEFAULT_FOLDER.get(kind.group(1), 'Sources')}/{name}"
        declared = set()
        for dependency in split((argument(arguments, "dependencies") or "[]")[1:]):
            # "X", .target(name: "X"), .byName(name: "X") or .product(name: "X", package: ..., condition: ...).
            module = re.match(r'"([^"]+)"|\.\w+\(\s*name:\s*"([^"]+)"', dependency)
            declared.add(module.group(1) or module.group(2))
            if dependency.startswith(".product("):
                products.add(module.group(2))
        targets[name] = (folder, declared)
    return targets, products


def imports(path):
    """(line number, module) for each import in a Swift file, skipping multi-line string literals."""
    in_literal = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = None if in_literal else IMPORT.match(line)
        if match:
            yield number, match.group(1)
        if line.count('"""') % 2:
            in_literal = not in_literal


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent,
                        help="the package's folder (default: this repository)")
    root = parser.parse_args().root
    targets, products = parse((root / "Package.swift").read_text(encoding="utf-8"))
    # A product no target names is not built, so importing it fails to compile: no need to know it.
    project = set(targets) | products
    problems = []
    for target, (folder, declared) in sorted(targets.items()):
        for path in sorted((root / folder).rglob("*.swift")):
            for number, module in imports(path):
                if module in project and module != target and module not in declared:
                    problems.append(f"{path.relative_to(root)}:{number}: {target} imports {module}, which "
                                    f"Package.swift does not list among {target}'s dependencies")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
