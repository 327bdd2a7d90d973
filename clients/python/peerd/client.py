"""A blocking client for peerd's control socket (docs/control-protocol.md)."""

from __future__ import annotations

import base64
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

from ._protocol import PASS, answer, file_entry, request_line, resume, transfer_step
from .datagrams import Datagrams
from .errors import TransportError, Unreachable

#: The socket a system peerd listens on.
SYSTEM_SOCKET = "/run/peerd/peerd.sock"
#: The longest line peerd sends (a message event of the largest message).
MAX_LINE = 64 * 1024 * 1024
#: How much one read takes: a consumer that stops reading holds the daemon back.
READ_SIZE = 64 * 1024


def socket_path(explicit: str | None = None) -> str:
    """`explicit`, else `$PEERD_SOCKET`, else the system socket: as peerctl finds it."""
    return explicit or os.environ.get("PEERD_SOCKET") or SYSTEM_SOCKET


class _Connection:
    """One Unix-socket connection: request lines out, response and event lines in."""

    def __init__(self, path: str, timeout: float | None) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(path)
        except OSError as error:
            self.sock.close()
            raise Unreachable(f"cannot reach peerd at {path}: {error.strerror}; is it running?") from error
        self.pending = bytearray()
        self.next_id = 1
        self.events: list[dict[str, Any]] = []

    def close(self) -> None:
        self.sock.close()

    def line(self) -> dict[str, Any]:
        """The next line, decoded; reads only when no whole line is held."""
        while True:
            newline = self.pending.find(b"\n")
            if newline >= 0:
                raw = bytes(self.pending[:newline])
                del self.pending[:newline + 1]
                try:
                    return json.loads(raw)
                except ValueError as error:
                    raise TransportError(f"peerd sent a line that is not JSON: {error}") from error
            if len(self.pending) > MAX_LINE:
                raise TransportError("peerd sent an over-long line")
            try:
                chunk = self.sock.recv(READ_SIZE)
            except OSError as error:
                raise TransportError(f"reading from peerd: {error}") from error
            if not chunk:
                raise TransportError("peerd closed the connection")
            self.pending += chunk

    def call(self, method: str, params: dict[str, Any] | None = None, fds: list[int] | None = None) -> Any:
        """Sends one request and returns its result; events that come first are kept for `event()`."""
        request_id = self.next_id
        self.next_id += 1
        data = request_line(request_id, method, params)
        try:
            if fds:
                socket.send_fds(self.sock, [data], fds)
            else:
                self.sock.sendall(data)
        except OSError as error:
            raise TransportError(f"cannot send to peerd: {error}") from error
        while True:
            result = answer(self.line(), request_id, self.events)
            if result is not PASS:
                return result

    def event(self) -> dict[str, Any]:
        """The next event of a subscription."""
        if self.events:
            return self.events.pop(0)
        while True:
            line = self.line()
            if "event" in line:
                return line["event"]


class Client:
    """peerd from Python, blocking. Requests go on one connection; each
    event or message iterator opens one of its own.

    >>> with Client() as client:
    ...     client.register("share")
    ...     [peer["name"] for peer in client.peers(app="share")]
    """

    def __init__(self, socket: str | None = None, timeout: float | None = 30.0) -> None:
        self.socket = socket_path(socket)
        self.timeout = timeout
        self._requests = _Connection(self.socket, timeout)
        self._apps: dict[str, dict[str, str]] = {}

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection (its apps are withdrawn)."""
        self._requests.close()

    def call(self, method: str, **params: Any) -> Any:
        """Any method by name, with its params: the result as the daemon sent it."""
        return self._requests.call(method, params)

    # The daemon

    def status(self) -> dict[str, Any]:
        """The daemon's status."""
        return self.call("status")

    def register(self, app: str, info: dict[str, str] | None = None) -> dict[str, Any]:
        """Registers `app` on this client's connection, with discovery `info`."""
        self._apps[app] = dict(info or {})
        return self.call("register", app=app, info=_info(info or {}))

    # Peers and invitations

    def peers(self, app: str | None = None) -> list[dict[str, Any]]:
        """The peers (with `app`, those that advertise it, with its state)."""
        return self.call("peers", app=app)["peers"]

    def invite(self, peer: str, app: str | None = None, context: str | None = None,
               timeout: float | None = None) -> dict[str, Any]:
        """Invites `peer` (a UUID, prefix or name); the answer comes as events."""
        return self.call("invite", peer=peer, app=app, context=context, timeout=timeout)

    def invitations(self, app: str | None = None) -> list[dict[str, Any]]:
        """The invitations waiting here."""
        return self.call("invitations", app=app)["invitations"]

    def accept(self, invitation: str) -> dict[str, Any]:
        """Accepts an invitation."""
        return self.call("accept", invitation=invitation)

    def decline(self, invitation: str) -> dict[str, Any]:
        """Declines an invitation."""
        return self.call("decline", invitation=invitation)

    # Messages

    def send(self, data: bytes, to: str | list[str], app: str | None = None, queued: bool = False, mode: str = "reliable",
             fallback: bool = False) -> Any:
        """Sends `data` to one peer (its result) or several (a result each).
        `mode="unreliable"` sends one datagram instead (MPC's words): now or
        never, at most 1,200 bytes; the result says `sent`, or why `dropped`.
        `fallback=True` carries it in the session when UDP does not cross."""
        encoded = base64.b64encode(data).decode()
        if mode == "unreliable":
            if isinstance(to, list) or queued:
                raise ValueError("an unreliable send goes to one peer, now, and is never queued")
            return self.call("datagram", peer=to, data=encoded, app=app, fallback=True if fallback else None)
        if mode != "reliable":
            raise ValueError(f"mode is 'reliable' or 'unreliable', not {mode!r}")
        if isinstance(to, list):
            return self.call("send", peers=to, data=encoded, app=app, queue=True if queued else None)["results"]
        return self.call("send", peer=to, data=encoded, app=app, queue=True if queued else None)

    def events(self, app: str | None = None, since: int | None = None) -> Subscription:
        """The daemon's events, on a connection of their own (subscribed when
        this returns), read as you iterate: a consumer that stops reading
        holds the daemon back, and nothing piles up here."""
        return Subscription(self.socket, app, self._apps.get(app or "", {}), since=since, take=False)

    def recv(self, app: str | None = None) -> Iterator[dict[str, Any]]:
        """Messages taken for this host (the inbox's first): `{"from", "peerId", "data": bytes, "app"}`."""
        with Subscription(self.socket, app, self._apps.get(app or "", {}), since=None, take=True) as events:
            for event in events:
                if event.get("type") == "message" and "message" in event:
                    message = dict(event["message"])
                    message["data"] = base64.b64decode(message["data"])
                    yield message

    # Files and channels

    def send_file(self, peer: str, path: str, app: str | None = None,
                  progress: Callable[[dict[str, Any]], None] | None = None, name: str | None = None) -> dict[str, Any]:
        """Sends one file. With `progress`, waits for the end, calling it with
        each state of the transfer, and returns the last; raises PeerdError
        when the transfer fails."""
        watcher = self.events(app=app) if progress else None
        try:
            fd = os.open(path, os.O_RDONLY)
            try:
                entry = file_entry(os.fstat(fd), path, name)
                transfer = self._requests.call("sendFile", {"peer": peer, "files": [entry], "app": app}, fds=[fd])["transfer"]
            finally:
                os.close(fd)
            if watcher is None or progress is None:
                return transfer
            return _follow(watcher, transfer["id"], progress)
        finally:
            if watcher is not None:
                watcher.close()

    def datagrams(self, app: str | None = None) -> Datagrams:
        """A datagram socket of `app` (or the default app's) on a connection of
        its own: `send(data, to)` many a second, and the datagrams that arrive,
        as you iterate (see `peerd.datagrams.Datagrams`)."""
        connection = _Connection(self.socket, None)
        if app is not None:
            connection.call("register", {"app": app, "info": _info(self._apps.get(app, {}))})
        return Datagrams(connection, app)

    def channel(self, peer: str, app: str | None = None) -> Channel:
        """A message channel to `peer` (docs/control-protocol.md, "Message
        channels"): `send(bytes)` and `receive()` length-prefixed messages on
        a socket of its own; `close()` ends it and returns the daemon's count.
        It takes the peer's messages once the daemon has opened it (just after
        this returns); one that came before is in the inbox (`recv`)."""
        return Channel(self.socket, peer, app, self._apps.get(app or "", {}))


def _info(info: dict[str, str]) -> list[str] | None:
    return [f"{key}={value}" for key, value in sorted(info.items())] or None


def _follow(events: Subscription, transfer: str, progress: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    for event in events:
        state, last = transfer_step(event, transfer)
        if state is not None:
            progress(state)
            if last:
                return state
    raise TransportError("the event stream ended")


class Subscription:
    """A subscription on a connection of its own: iterate for events. When
    the daemon restarts or the connection breaks, it connects again (for up
    to `reconnect_for` seconds), subscribes with `since` the last event it
    gave, and yields `{"type": "gap", "reason": ..., "after": N}` for what it
    could not get: never hidden."""

    def __init__(self, path: str, app: str | None, info: dict[str, str], since: int | None, take: bool,
                 reconnect_for: float = 30.0) -> None:
        self._path, self._app, self._info, self._take = path, app, info, take
        self._reconnect_for = reconnect_for
        self._last: int | None = since
        self._run: str | None = None
        self._pending: list[dict[str, Any]] = []
        self._connection = self._subscribe()

    def _subscribe(self) -> _Connection:
        connection = _Connection(self._path, None)
        try:
            if self._app is not None:
                connection.call("register", {"app": self._app, "info": _info(self._info)})
            result = connection.call("subscribe", {"since": self._last, "take": True if self._take else None, "app": self._app})
        except BaseException:
            connection.close()
            raise
        gap, again = (None, False) if self._take else resume(self._last, self._run, result)
        self._run = result.get("run")
        self.result = result
        if gap is not None:
            self._pending.append(gap)
        if again:
            connection.close()
            self._last = 0
            return self._subscribe()
        return connection

    def __iter__(self) -> Subscription:
        return self

    def __next__(self) -> dict[str, Any]:
        broken: float | None = None
        while True:
            if self._pending:
                return self._pending.pop(0)
            try:
                event = self._connection.event()
            except TransportError:
                broken = broken or time.monotonic()
                self._connection.close()
                while True:
                    if time.monotonic() - broken > self._reconnect_for:
                        raise
                    time.sleep(0.2)
                    try:
                        self._connection = self._subscribe()
                        break
                    except (Unreachable, TransportError):
                        continue
                continue
            if event.get("type") == "error" and (event.get("error") or {}).get("code") == "shuttingDown":
                continue   # the daemon stops: the next read breaks, and it comes back with it
            if isinstance(event.get("seq"), int):
                self._last = event["seq"]
            return event

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Ends the subscription."""
        self._connection.close()


class Channel:
    """A message channel: length-prefixed messages through a socket passed to peerd."""

    _REQUEST_ID = 1

    def __init__(self, path: str, peer: str, app: str | None, info: dict[str, str]) -> None:
        self._connection = _Connection(path, None)
        mine, theirs = socket.socketpair()
        try:
            if app is not None:
                self._connection.call("register", {"app": app, "info": _info(info)})
            params: dict[str, Any] = {"peer": peer}
            if app is not None:
                params["app"] = app
            socket.send_fds(self._connection.sock, [request_line("channel", "channel", params)], [theirs.fileno()])
        except BaseException:
            mine.close()
            self._connection.close()
            raise
        finally:
            theirs.close()
        self.socket = mine

    def send(self, message: bytes) -> None:
        """Sends one message (at least one byte); blocks while the channel is full."""
        self.socket.sendall(len(message).to_bytes(4, "big") + message)

    def receive(self) -> bytes | None:
        """The next message from the peer, or None once the channel ended."""
        head = self._exactly(4)
        if head is None:
            return None
        return self._exactly(int.from_bytes(head, "big"))

    def _exactly(self, count: int) -> bytes | None:
        data = bytearray()
        while len(data) < count:
            chunk = self.socket.recv(count - len(data))
            if not chunk:
                return None
            data += chunk
        return bytes(data)

    def close(self) -> dict[str, Any]:
        """Ends this side, waits for the daemon's answer, and returns it
        (`state`, `sent`, `acknowledged`, `received`)."""
        self.socket.shutdown(socket.SHUT_WR)
        try:
            while True:
                result = answer(self._connection.line(), "channel", [])
                if result is not PASS:
                    return result or {}
        finally:
            self.socket.close()
            self._connection.close()
