#!/usr/bin/env python3
"""Folders are layers, not labels: no two folders of one module of Sources/ use each other. A module is one
unit to the compiler, so a folder pair used both ways builds, but then neither folder can be read, tested,
moved or split out without the other; one-way pairs order a module's folders in layers.
A file's folder is its first path component under the module. Folder A uses folder B when code of A
(comments and string literals left out, string interpolations kept) names, as a whole word not after a
`.`, something declared top-level (column 0), not private, in B and nowhere else in the module: a type
(`class|struct|enum|protocol|actor|typealias Name`, capitalized), a function, constant or variable (a
lower-case name counts unless the file declares a local or parameter of that name). Nested types make a
name declared in their folder too, so ambiguous, but are no use of it: Swift resolves one unqualified only
within its outer type, whose name makes the use already, and the words they take (Result, Event, Kind)
mean Swift's own elsewhere. Members, those extensions add too, are no names here: `s.trimmed` uses no
folder. Names of under 4 characters and those the using file declares itself (a private type, a generic
parameter) are not uses either. Files directly in the module's folder are folder ".": the module's unfiled
top, which may use any folder and be used by any (`--graph` shows those uses; they are not checked). A
module without subfolders has nothing to check.
Exits 1 with one line per two-way pair, then for each direction up to 5 uses, `file:line: name`; 0,
silently, when every pair is one-way. Modules named as arguments are checked alone. `--graph` prints
every module's folder edges (`A -> B: names`, `A <-> B` when both ways) instead, for humans; the exit
status is the same. Python 3 standard library only (`make lint`)."""
import argparse
import collections
import pathlib
import re
import sys

# In code: a comment, a block comment's start, a string's start (#s of a raw string, quotes; a multi-line
# string's at the end of its line), a parenthesis.
CODE = re.compile(r'//[^\n]*|/\*|(#*)("""(?=[ \t]*\n)|")|[()]')
MODIFIERS = r"(?:(?:@\w+(?:\([^)\n]*\))?|\w+)[ \t]+)*"
# A declaration at column 0 is top-level: what another file may name unqualified.
DECLARATION = re.compile(rf"^([ \t]*)({MODIFIERS})(?:(?:class|struct|enum|protocol|actor|typealias)[ \t]+([A-Z]\w*)"
                         rf"|(?:func|let|var)[ \t]+([A-Za-z_]\w*))", re.M)
# Names a file declares for itself: generic parameters and associated types.
GENERIC = re.compile(r"\b(?:class|struct|enum|actor|typealias|func|init|subscript)\b[^<{(=\n]*<([^>\n]*)>")
WORD = re.compile(r"(?<![.\w])[A-Za-z_]\w*")
# A lower-case name is a use of the top-level one unless a local one shadows it in that file: declared
# there (let, var, func, for, a closure's parameter) or a parameter (`(name: T`, `, _ name: T`).
LOCAL = (r"\b(?:let|var|func|for)[ \t]+{0}\b|[,(][ \t]*(?:\w+[ \t]+)?{0}[ \t]*:"
         r"|\{{[ \t(]*(?:\w+[ \t]*,[ \t]*)*{0}\b[\w\t ,)]*\bin\b")


def code(text):
    """Swift source with its comments and string literals blanked but its line breaks kept; the code of
    a string's interpolations `\\(...)` stays (strings within them blanked too)."""
    kept, i, depth, outer, literal = [], 0, 0, [], None  # outer: (literal, depth) around an interpolation
    while i < len(text):
        if literal:
            quote, hashes = literal
            match = re.compile(rf"\\{hashes}(\()|\\{hashes}.|{quote}{hashes}", re.S).search(text, i)
            end = match.end() if match else len(text)
            kept.append("\n" * text.count("\n", i, end))
            if match and match.group(1):
                outer.append((literal, depth))
                literal, depth = None, 0
                kept.append("(")
            elif match and not match.group().startswith("\\"):
                literal = None
                kept.append('""')
            i = end
            continue
        match = CODE.search(text, i)
        if not match:
            kept.append(text[i:])
            break
        kept.append(text[i:match.start()])
        token, i = match.group(), match.end()
        if token == "/*":  # block comments nest
            nesting, end = 1, len(text)
            for inner in re.finditer(r"/\*|\*/", text[i:]):
                nesting += 1 if inner.group() == "/*" else -1
                if not nesting:
                    end = i + inner.end()
                    break
            kept.append("\n" * text.count("\n", i, end))
            i = end
        elif token == ")" and depth == 0 and outer:
            literal, depth = outer.pop()
            kept.append(")")
        elif token in "()":
            depth += 1 if token == "(" else -1
            kept.append(token)
        elif match.group(2):
            literal = (match.group(2), match.group(1))
    return "".join(kept)


def declarations(text):
    """(every name the code `text` declares, types nested or not, at any access level; the types, functions,
    constants and variables it declares top-level and not private, which other files may name)."""
    every, shared = set(), set()
    for indent, modifiers, type_name, value_name in DECLARATION.findall(text):
        name = type_name or value_name
        every.add(name)
        if not indent and len(name) >= 4 and not re.search(r"\b(?:file)?private\b", modifiers):
            shared.add(name)
    for parameters in GENERIC.findall(text):
        every.update(re.findall(r"(?:^|,)\s*(\w+)", parameters))
    every.update(re.findall(r"\bassociatedtype\s+(\w+)", text))
    return every, shared


def uses(text, names):
    """Which of `names` the code `text` uses: a type by its name, a lower-case name unless shadowed."""
    used = set(WORD.findall(text)) & names
    return {name for name in used if name[0].isupper() or not re.search(LOCAL.format(re.escape(name)), text)}


def layers(module):
    """{(folder A, folder B): {(file, name): line}} for each name B alone declares that a file of A uses."""
    files = {path: code(path.read_text(encoding="utf-8")) for path in sorted(module.rglob("*.swift"))}
    folder = {path: (path.relative_to(module).parts[:-1] or (".",))[0] for path in files}
    own = {path: declarations(text) for path, text in files.items()}
    declared, shared = collections.defaultdict(set), {}
    for path, (every, top) in own.items():
        for name in every:
            declared[name].add(folder[path])
        shared.update(dict.fromkeys(top, folder[path]))
    owner = {name: b for name, b in shared.items() if declared[name] == {b}}
    edges = collections.defaultdict(dict)
    for path, text in files.items():
        # A file's own declarations (a private type, a generic parameter) shadow the other folder's.
        for name in uses(text, set(owner) - own[path][0]):
            if owner[name] != folder[path]:
                line = text.count("\n", 0, re.search(rf"(?<![.\w]){name}\b", text).start()) + 1
                edges[folder[path], owner[name]][path, name] = line
    return edges


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent,
                        help="the package's folder (default: this repository)")
    parser.add_argument("--graph", action="store_true", help="print each module's folder edges (A -> B: names) instead")
    parser.add_argument("modules", nargs="*", help="the modules of Sources/ to check (default: all)")
    arguments = parser.parse_args()
    modules = sorted(path for path in (arguments.root / "Sources").iterdir() if path.is_dir())
    unknown = set(arguments.modules) - {module.name for module in modules}
    if unknown:
        parser.error(f"no such module in {arguments.root / 'Sources'}: {', '.join(sorted(unknown))}")
    problems = []
    for module in modules:
        if arguments.modules and module.name not in arguments.modules:
            continue
        edges = layers(module)
        for (a, b), evidence in sorted(edges.items()):
            if arguments.graph:
                arrow = "<->" if (b, a) in edges else "->"
                print(f"{module.name}: {a} {arrow} {b}: {', '.join(sorted({name for _, name in evidence}))}")
            if a < b and "." not in (a, b) and (b, a) in edges:
                problems.append(f"{module.name}: folders {a} and {b} use each other")
                for pair in (a, b), (b, a):
                    # Each file's first use first, so the examples show how widely one folder uses the other.
                    uses_in, ranked = collections.Counter(), []
                    for (path, name), line in sorted(edges[pair].items(), key=lambda item: (item[0][0], item[1])):
                        ranked.append((uses_in[path], path, line, name))
                        uses_in[path] += 1
                    examples = ", ".join(f"{path.relative_to(arguments.root)}:{line}: {name}"
                                         for _, path, line, name in sorted(ranked)[:5])
                    problems.append(f"    {pair[0]} -> {pair[1]}: {examples}")
    for problem in [] if arguments.graph else problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
