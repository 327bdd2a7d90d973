#!/usr/bin/env python3
"""The share of a target's lines in types that no unit test names (issue 43,
point 4): each file is one type (named after it; `Type+Part.swift` counts
toward `Type`), and a type counts as named when a unit test's code (not a
comment) says its name. Coverage (`make coverage`) says which lines run; this
says which types a test asks about directly, through a fake or a lab.

Usage: Tests/coverage/unnamed_types.py [--target PeerIO] [--max PERCENT] [--list N]
Exits 1 when the share is over --max (make test's unit phase: 25).
"""
import argparse, glob, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))
parser = argparse.ArgumentParser()
parser.add_argument("--target", default="PeerIO")
parser.add_argument("--max", type=float, default=None)
parser.add_argument("--list", type=int, default=0)
args = parser.parse_args()

code = []
for path in glob.glob(os.path.join(root, "Tests", "**", "*.swift"), recursive=True):
    if "/integration/" in path or "/fuzz/" in path:
        continue
    with open(path, encoding="utf-8") as f:
        code.extend(line for line in f.read().split("\n") if not line.strip().startswith("//"))
tests = "\n".join(code)

total = unnamed = 0
rows = []
for path in sorted(glob.glob(os.path.join(root, "Sources", args.target, "**", "*.swift"), recursive=True)):
    with open(path, encoding="utf-8") as f:
        lines = sum(1 for _ in f)
    total += lines
    name = os.path.basename(path)[:-len(".swift")].split("+")[0]
    if not re.search(r"\b" + re.escape(name) + r"\b", tests):
        unnamed += lines
        rows.append((lines, os.path.relpath(path, root)))

share = 100.0 * unnamed / total if total else 0.0
print(f"{args.target}: {total} lines, {unnamed} in types no unit test names ({share:.0f}%)")
for lines, path in sorted(rows, reverse=True)[:args.list]:
    print(f"  {lines:5d} {path}")
if args.max is not None and share > args.max:
    print(f"over the limit of {args.max:.0f}%: test the largest of them through a fake or the loopback lab", file=sys.stderr)
    sys.exit(1)
