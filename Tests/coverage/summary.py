#!/usr/bin/env python3
"""Where the unit tests' weight is (issue 43, point 4): of each target's
executable lines, how many the unit tests run, and the files they never
run, from the JSON that `swift test --enable-code-coverage` writes.

Usage: Tests/coverage/summary.py CODECOV_JSON [TARGET ...]   (default PeerIO)
"""
import json
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    data = json.load(open(sys.argv[1]))["data"][0]["files"]
    for target in sys.argv[2:] or ["PeerIO"]:
        marker = f"/Sources/{target}/"
        rows = [(f["summary"]["lines"]["count"], f["summary"]["lines"]["covered"], f["filename"].split(marker)[1])
                for f in data if marker in f["filename"]]
        total = sum(r[0] for r in rows)
        covered = sum(r[1] for r in rows)
        never = sorted((r for r in rows if r[1] == 0 and r[0] > 0), reverse=True)
        never_lines = sum(r[0] for r in never)
        print(f"{target}: {covered} of {total} executable lines run by unit tests ({100 * covered / max(total, 1):.0f}%); "
              f"{len(never)} files no unit test runs hold {never_lines} ({100 * never_lines / max(total, 1):.0f}%)")
        for count, _, name in never:
            print(f"  {count:5d}  {name}")


if __name__ == "__main__":
    main()
