#!/usr/bin/env python3
"""The one-client rule (DEVELOPERS.md, "One client"; issue 42, point 4):
PeerKit is the only control client. peerctl and the example programs hold
no control-socket code of their own: no Unix socket or socket pair made
by them, and no record layout of the daemon's sockets (DatagramRecord)
spoken by them. Exits 1 naming each line that breaks it."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLACES = [ROOT / "Sources" / "peerctl", ROOT / "Examples" / "chat"]
FORBIDDEN = re.compile(r"\bsocketpair\s*\(|\bAF_UNIX\b|\bAF_LOCAL\b|\bDatagramRecord\.(send|parseReceived)\b|\bsockaddr_un\b")

broken = []
for place in PLACES:
    for path in sorted(place.rglob("*.swift")):
        if ".build" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if FORBIDDEN.search(line.split("//")[0]):
                broken.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
if broken:
    print("control-socket code outside PeerKit (use PeerKit's):", *broken, sep="\n  ")
    sys.exit(1)
print("one client: peerctl and the examples hold no control-socket code")
