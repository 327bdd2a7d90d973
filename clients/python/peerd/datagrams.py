"""Datagrams (docs/control-protocol.md, "Datagrams"): MultipeerConnectivity's
unreliable mode. Each is sent now or dropped now, never queued, retried or
ordered, at most 1,200 bytes, over UDP beside the session."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from typing import Any

from ._protocol import PASS, answer, request_line

#: The most data one datagram of the default app carries (less the app name's length for an app).
MAX_DATAGRAM = 1200
#: A record from peerd: kind, the sender's UUID, lost (u32), then the data.
_RECEIVED_HEADER = 21


def record(peer: str, data: bytes) -> bytes:
    """The record that sends `data` to `peer` (a UUID) through a datagram socket."""
    return b"\x01" + uuid.UUID(peer).bytes + data


def parse(raw: bytes) -> dict[str, Any] | None:
    """A record peerd wrote: `{"peer", "data": bytes, "lost"}`, or None when it is not one.
    `peer` is spelled as the daemon's rows spell `id` (upper case), so the two compare equal."""
    if len(raw) < _RECEIVED_HEADER or raw[0] != 1:
        return None
    return {"peer": str(uuid.UUID(bytes=raw[1:17])).upper(), "data": raw[21:], "lost": int.from_bytes(raw[17:21], "big")}


def send_now(sock: socket.socket, data: bytes, to: str) -> bool:
    """Writes one datagram to the peer with UUID `to` on a datagram socket,
    without waiting; False when it was dropped here (the socket was full)."""
    if len(data) > MAX_DATAGRAM:
        raise ValueError(f"a datagram carries at most {MAX_DATAGRAM} bytes; this one has {len(data)}")
    try:
        return sock.send(record(to, data), socket.MSG_DONTWAIT) > 0
    except BlockingIOError:
        return False


class Datagrams:
    """A `datagrams` socket (a SOCK_SEQPACKET pair, one record a datagram):
    `send(data, to)` now or never, iteration yields each datagram of the app
    that arrives as `{"peer", "data", "lost"}`, `close()` returns the daemon's
    counts. A reader that falls behind loses datagrams (`lost` says how many);
    it never holds peerd back."""

    def __init__(self, connection: Any, app: str | None) -> None:
        self._connection = connection
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            params: dict[str, Any] = {"app": app} if app is not None else {}
            socket.send_fds(connection.sock, [request_line("datagrams", "datagrams", params)], [theirs.fileno()])
        except BaseException:
            mine.close()
            connection.close()
            raise
        finally:
            theirs.close()
        self.socket = mine

    def send(self, data: bytes, to: str) -> bool:
        """Sends one datagram to the peer with UUID `to`; False when it was dropped here (the socket was full)."""
        return send_now(self.socket, data, to)

    def receive(self) -> dict[str, Any] | None:
        """The next datagram, or None once the socket ended."""
        while True:
            raw = self.socket.recv(_RECEIVED_HEADER + MAX_DATAGRAM + 1)
            if not raw:
                return None
            datagram = parse(raw)
            if datagram is not None:
                return datagram

    def __iter__(self) -> Iterator[dict[str, Any]]:
        while (datagram := self.receive()) is not None:
            yield datagram

    def close(self) -> dict[str, Any]:
        """Ends it; returns the daemon's counts (`sent`, `refused`, `received`, `lost`)."""
        try:
            self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            while True:
                result = answer(self._connection.line(), "datagrams", [])
                if result is not PASS:
                    return result or {}
        finally:
            self.socket.close()
            self._connection.close()

    def __enter__(self) -> Datagrams:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
