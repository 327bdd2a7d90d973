"""The control protocol's lines, with no I/O: what both clients (sync and asyncio) send and how they read what comes back."""

from __future__ import annotations

import json
import os
from typing import Any

from .errors import PeerdError, from_wire

#: A line that is not the awaited answer.
PASS = object()


def request_line(request_id: int | str, method: str, params: dict[str, Any] | None) -> bytes:
    """One request line; params that are None are left out."""
    request: dict[str, Any] = {"v": 1, "id": request_id, "method": method}
    if params:
        kept = {key: value for key, value in params.items() if value is not None}
        if kept:
            request["params"] = kept
    return (json.dumps(request, separators=(",", ":")) + "\n").encode()


def answer(line: dict[str, Any], request_id: int | str, events: list[dict[str, Any]]) -> Any:
    """While awaiting `request_id`'s answer: the result when `line` is it, PASS
    otherwise (an event is kept in `events`); raises the daemon's error."""
    if "event" in line and "id" not in line:
        events.append(line["event"])
        return PASS
    if line.get("id") is None and line.get("error"):
        raise from_wire(line["error"])   # refused before any answer (a client limit)
    if line.get("id") != request_id:
        return PASS
    if line.get("error"):
        raise from_wire(line["error"])
    return line.get("result")


def resume(last: int | None, run: str | None, result: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
    """After a resubscription with `since: last`: the gap to report (an event
    of type "gap", or None) and whether to subscribe again from 0 (the daemon
    restarted: its numbers started over). `run` is the last subscription's."""
    if last is None:
        return None, False
    now = result.get("run")
    restarted = (run != now) if (run is not None and now is not None) else int(result.get("seq", 0)) < last
    if restarted:
        return {"type": "gap", "reason": "daemonRestarted", "after": last}, True
    if result.get("truncated"):
        return {"type": "gap", "reason": "truncated", "after": last}, False
    return None, False


def file_entry(info: os.stat_result, path: str, name: str | None) -> dict[str, Any]:
    """The `files` entry of `sendFile` for a file with `fstat` result `info`."""
    return {"name": name or os.path.basename(path), "size": info.st_size, "mode": info.st_mode & 0o777,
            "mtime": int(info.st_mtime)}


def transfer_step(event: dict[str, Any], transfer: str) -> tuple[dict[str, Any] | None, bool]:
    """What `event` says of `transfer`: its state (or None: another event) and
    whether it is the last; raises PeerdError when the transfer failed."""
    found = event.get("transfer")
    if not found or found.get("id") != transfer:
        return None, False
    if event.get("type") == "transferFailed":
        raise PeerdError(f"the transfer failed: {found.get('reason')}: {found.get('detail', '')}", code="transferFailed")
    return found, event.get("type") == "transferCompleted"
