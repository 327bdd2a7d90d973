"""The golden transcripts (Tests/transcripts, its README) replayed against this client: a fake
daemon on a Unix socket answers with a transcript's lines, and the client must send what the
transcript says and read what it answers. PeerKit replays the same files (TranscriptReplayTests),
and a real daemon is checked against them (TranscriptDaemonTests). No peerd needed."""

from __future__ import annotations

import json
import os
import socket
import tempfile
import threading

import peerd

TRANSCRIPTS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Tests", "transcripts")


def steps(name: str) -> list[dict]:
    with open(os.path.join(TRANSCRIPTS, name + ".jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()][1:]


def mismatch(sent: dict, expected: dict) -> str | None:
    """Why the request `sent` is not the transcript's `expected` (the params it names, at least)."""
    if sent.get("method") != expected["method"]:
        return f"sent {sent}, the transcript has {expected}"
    params = sent.get("params") or {}
    for key, value in (expected.get("params") or {}).items():
        if params.get(key) != value:
            return f"{expected['method']}: params.{key} is {params.get(key)!r}, the transcript has {value!r}"
    return None


class Replay:
    """A fake daemon that plays a transcript on its first connection; `problems` collects what
    the client sent that the transcript does not have."""

    def __init__(self, name: str) -> None:
        self.folder = tempfile.mkdtemp(prefix="peerd-transcript-")
        self.path = os.path.join(self.folder, "peerd.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(4)
        self.problems: list[str] = []
        self.steps = steps(name)
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        # The transcript is played on the first connection that sends a request (a client may
        # open one for requests and another for events).
        claimed = threading.Lock()
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.play, args=(connection, claimed), daemon=True).start()

    def play(self, connection: socket.socket, claimed: threading.Lock) -> None:
        reader = connection.makefile("rb")
        first = reader.readline()
        if not first or not claimed.acquire(blocking=False):
            return
        pending = [first]
        request_id = None
        for step in self.steps:
            if "client" in step:
                line = pending.pop() if pending else reader.readline()
                if not line:
                    self.problems.append(f"the client sent nothing for {step['client']}")
                    return
                sent = json.loads(line)
                request_id = sent.get("id")
                problem = mismatch(sent, step["client"])
                if problem:
                    self.problems.append(problem)
            else:
                written = dict(step["daemon"], v=1)
                if "event" not in written:
                    written["id"] = request_id
                connection.sendall(json.dumps(written).encode() + b"\n")
        reader.read()

    def close(self) -> None:
        self.listener.close()


def test_status_a_refusal_and_peers():
    daemon = Replay("status-refusal-peers")
    try:
        with peerd.Client(daemon.path) as client:
            status = client.status()
            assert status["version"] == "0.3.0"
            assert status["features"] == ["accept-name", "files", "streams", "apps", "datagrams", "once", "bulk-lane", "sha256-blocks"]
            try:
                client.invite("5b1f0c2e-8d4a-4c3b-9a61-2f7e0d9c4b11")
                raise AssertionError("the transcript refuses the invitation")
            except peerd.NotFound as error:
                assert "no peer matches '5b1f0c2e-8d4a-4c3b-9a61-2f7e0d9c4b11'" in str(error)
            assert client.peers() == []
        assert daemon.problems == []
    finally:
        daemon.close()


def test_subscribe_then_a_peer_found_and_lost():
    daemon = Replay("subscribe-events")
    try:
        with peerd.Client(daemon.path) as client:
            with client.events() as events:
                found = next(events)
                assert found["type"] == "peerFound" and found["peer"]["name"] == "bravo"
                lost = next(events)
                assert lost["type"] == "peerLost" and lost["peer"]["lost"] is True
        assert daemon.problems == []
    finally:
        daemon.close()
