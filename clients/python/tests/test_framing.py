"""The client's framing and errors against a fake daemon on a socketpair: no peerd needed."""

from __future__ import annotations

import json
import socket
import threading

import pytest

import peerd
from peerd.client import _Connection


def fake_connection(script):
    """A _Connection over a socketpair whose other end runs `script(sock)` on a thread."""
    mine, theirs = socket.socketpair()
    thread = threading.Thread(target=script, args=(theirs,), daemon=True)
    thread.start()
    connection = _Connection.__new__(_Connection)
    connection.path = "fake"
    connection.sock = mine
    connection.pending = bytearray()
    connection.next_id = 1
    connection.events = []
    return connection, thread


def read_request(sock) -> dict:
    data = b""
    while not data.endswith(b"\n"):
        data += sock.recv(4096)
    return json.loads(data)


def test_a_call_is_one_line_and_events_before_the_answer_are_kept():
    def daemon(sock):
        request = read_request(sock)
        assert request["method"] == "peers" and request["params"] == {"app": "chat"}
        sock.sendall(b'{"v":1,"event":{"seq":7,"type":"peerFound"}}\n')
        sock.sendall(json.dumps({"v": 1, "id": request["id"], "result": {"peers": []}}).encode() + b"\n")
    connection, _ = fake_connection(daemon)
    assert connection.call("peers", {"app": "chat", "since": None}) == {"peers": []}
    assert connection.event()["seq"] == 7


def test_errors_map_to_their_classes():
    def daemon(sock):
        request = read_request(sock)
        error = {"code": "unsupported", "message": "too old", "feature": "files", "release": "0.1.0"}
        sock.sendall(json.dumps({"v": 1, "id": request["id"], "error": error}).encode() + b"\n")
    connection, _ = fake_connection(daemon)
    with pytest.raises(peerd.Unsupported) as raised:
        connection.call("sendFile", {})
    assert raised.value.release == "0.1.0" and raised.value.feature == "files"


def test_a_line_longer_than_asyncios_default_limit_is_read():
    big = "x" * (1 << 20)
    def daemon(sock):
        request = read_request(sock)
        sock.sendall(json.dumps({"v": 1, "id": request["id"], "result": {"text": big}}).encode() + b"\n")
    connection, _ = fake_connection(daemon)
    assert connection.call("status")["text"] == big


def test_a_consumer_that_stops_reading_holds_the_daemon_back():
    line = json.dumps({"v": 1, "event": {"seq": 1, "type": "peerUpdated", "detail": "y" * 500}}).encode() + b"\n"
    blocked = threading.Event()
    def daemon(sock):
        sock.settimeout(2)
        try:
            while True:
                sock.sendall(line)
        except (socket.timeout, TimeoutError):
            blocked.set()   # the writes backed up: the client is not reading
    connection, thread = fake_connection(daemon)
    assert connection.event()["seq"] == 1
    thread.join(10)
    assert blocked.is_set(), "the daemon's writes never backed up: the client kept reading"
    assert len(connection.pending) <= peerd.client.READ_SIZE, "the client holds at most one read"


def test_no_daemon_is_unreachable():
    with pytest.raises(peerd.Unreachable):
        peerd.Client("/nonexistent/peerd.sock")


def test_resuming_after_a_restart_or_a_truncation_reports_the_gap():
    from peerd._protocol import resume
    assert resume(None, None, {"seq": 3, "truncated": True}) == (None, False), "nothing seen yet: nothing lost"
    assert resume(10, "r", {"seq": 20, "run": "r", "truncated": False}) == (None, False)
    assert resume(10, "r", {"seq": 2000, "run": "r", "truncated": True}) == ({"type": "gap", "reason": "truncated", "after": 10}, False)
    assert resume(10, "r", {"seq": 20, "run": "other"}) == ({"type": "gap", "reason": "daemonRestarted", "after": 10}, True)
    assert resume(10, None, {"seq": 3}) == ({"type": "gap", "reason": "daemonRestarted", "after": 10}, True), "no run ids: the numbers went back"


def test_the_asyncio_client_reports_a_reset_as_a_transport_error():
    """A daemon that stops under a request resets the connection: the
    asyncio client says TransportError, as the blocking one does, so an
    event stream comes back after a restart instead of dying of it."""
    import asyncio

    import peerd.aio

    mine, theirs = socket.socketpair()

    def reset():
        theirs.recv(1)       # the request has come; more of it is unread
        theirs.close()       # closing over unread bytes resets the connection

    thread = threading.Thread(target=reset, daemon=True)
    thread.start()

    async def call():
        reader, writer = await asyncio.open_unix_connection(sock=mine)
        connection = peerd.aio._Connection(reader, writer)
        with pytest.raises(peerd.TransportError):
            await connection.call("status")
        connection.close()

    asyncio.run(call())
    thread.join(5)


def test_datagram_records_are_pinned():
    from peerd.datagrams import parse, record
    peer = "00112233-4455-6677-8899-aabbccddeeff"
    assert record(peer, b"hi") == bytes.fromhex("01" "00112233445566778899aabbccddeeff") + b"hi"
    raw = bytes.fromhex("01" "00112233445566778899aabbccddeeff" "00000003") + b"yo"
    assert parse(raw) == {"peer": peer.upper(), "data": b"yo", "lost": 3}
    assert parse(raw[:20]) is None
    assert parse(b"\x02" + raw[1:]) is None
