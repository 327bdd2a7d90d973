#!/usr/bin/env python3
"""Every code block in docs/apps.md marked `<!-- from PATH -->` must be a
verbatim excerpt of PATH (an example the lab runs), so the docs' code is
code CI runs. Exits 1 naming each block that is not."""

import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parents[2]
doc = (root / "docs" / "apps.md").read_text()
blocks = re.findall(r"<!-- from (\S+) -->\n```\w*\n(.*?)```", doc, re.S)
failures = []
for path, code in blocks:
    source = root / path
    if not source.is_file():
        failures.append(f"{path}: no such file")
    elif code not in source.read_text():
        failures.append(f"{path}: the block starting {code.splitlines()[0].strip()!r} is not in it")
if not blocks:
    failures.append("docs/apps.md has no marked code blocks")
for failure in failures:
    print(f"docs/apps.md: {failure}", file=sys.stderr)
print(f"{len(blocks) - len(failures)} of {len(blocks)} code blocks in docs/apps.md are verbatim in the examples")
sys.exit(1 if failures else 0)
