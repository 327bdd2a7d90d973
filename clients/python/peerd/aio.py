"""peerd from asyncio: the methods of `peerd.Client`, as coroutines."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

from .client import MAX_LINE, socket_path
from ._protocol import PASS, answer, file_entry, request_line, resume, transfer_step
from .datagrams import MAX_DATAGRAM, parse, send_now
from .errors import TransportError, Unreachable


class _Connection:
    """One connection; the stream's limit lets peerd's largest lines through."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.next_id = 1
        self.events: list[dict[str, Any]] = []

    @classmethod
    async def open(cls, path: str) -> _Connection:
        try:
            reader, writer = await asyncio.open_unix_connection(path, limit=MAX_LINE + 1)
        except OSError as error:
            raise Unreachable(f"cannot reach peerd at {path}: {error.strerror}; is it running?") from error
        return cls(reader, writer)

    def close(self) -> None:
        self.writer.close()

    async def line(self) -> dict[str, Any]:
        try:
            raw = await self.reader.readline()
        except (asyncio.LimitOverrunError, ValueError) as error:
            raise TransportError("peerd sent an over-long line") from error
        except OSError as error:
            # A daemon stopping under a request resets the connection: the
            # same error the blocking client gives, so a stream comes back.
            raise TransportError(f"reading from peerd: {error}") from error
        if not raw:
            raise TransportError("peerd closed the connection")
        try:
            return json.loads(raw)
        except ValueError as error:
            raise TransportError(f"peerd sent a line that is not JSON: {error}") from error

    async def call(self, method: str, params: dict[str, Any] | None = None, fds: list[int] | None = None) -> Any:
        request_id = self.next_id
        self.next_id += 1
        data = request_line(request_id, method, params)
        if fds:
            await self.writer.drain()
            # asyncio's socket is non-blocking; a copy of its descriptor sends the
            # line with SCM_RIGHTS (the buffer has room: it was just drained).
            raw = self.writer.get_extra_info("socket")
            copy = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=os.dup(raw.fileno()))
            try:
                while True:
                    try:
                        socket.send_fds(copy, [data], fds)
                        break
                    except BlockingIOError:
                        await asyncio.sleep(0.01)
            except OSError as error:
                raise TransportError(f"cannot send to peerd: {error}") from error
            finally:
                copy.close()
        else:
            try:
                self.writer.write(data)
                await self.writer.drain()
            except OSError as error:
                raise TransportError(f"cannot send to peerd: {error}") from error
        while True:
            result = answer(await self.line(), request_id, self.events)
            if result is not PASS:
                return result

    async def event(self) -> dict[str, Any]:
        if self.events:
            return self.events.pop(0)
        while True:
            line = await self.line()
            if "event" in line:
                return line["event"]


def _info(info: dict[str, str]) -> list[str] | None:
    return [f"{key}={value}" for key, value in sorted(info.items())] or None


async def _open_with_descriptor(path: str, method: str, params: dict[str, Any], app: str | None, info: dict[str, str],
                                kind: int) -> tuple[_Connection, socket.socket]:
    """A connection of its own that registered `app` and sent `method` with one
    end of a new socket pair of `kind` (SCM_RIGHTS): the connection, and our end."""
    connection = await _Connection.open(path)
    mine, theirs = socket.socketpair(socket.AF_UNIX, kind)
    try:
        if app is not None:
            await connection.call("register", {"app": app, "info": _info(info)})
        raw = connection.writer.get_extra_info("socket")
        copy = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=os.dup(raw.fileno()))
        try:
            socket.send_fds(copy, [request_line(method, method, params)], [theirs.fileno()])
        finally:
            copy.close()
    except BaseException:
        mine.close()
        connection.close()
        raise
    finally:
        theirs.close()
    return connection, mine


class Client:
    """peerd from asyncio: `peerd.Client`'s methods as coroutines, events and
    messages as async iterators (each on a connection of its own).

    >>> client = await peerd.aio.Client.connect()
    >>> await client.register("share")
    """

    def __init__(self, path: str, connection: _Connection) -> None:
        self.socket = path
        self._requests = connection
        self._apps: dict[str, dict[str, str]] = {}

    @classmethod
    async def connect(cls, socket: str | None = None) -> Client:
        """Connects: at `socket`, else `$PEERD_SOCKET`, else the system socket."""
        path = socket_path(socket)
        return cls(path, await _Connection.open(path))

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection (its apps are withdrawn)."""
        self._requests.close()

    async def call(self, method: str, **params: Any) -> Any:
        """Any method by name, with its params."""
        return await self._requests.call(method, params)

    async def status(self) -> dict[str, Any]:
        """The daemon's status."""
        return await self.call("status")

    async def register(self, app: str, info: dict[str, str] | None = None) -> dict[str, Any]:
        """Registers `app` on this connection."""
        self._apps[app] = dict(info or {})
        return await self.call("register", app=app, info=_info(info or {}))

    async def peers(self, app: str | None = None) -> list[dict[str, Any]]:
        """The peers (with `app`, those that advertise it)."""
        return (await self.call("peers", app=app))["peers"]

    async def invite(self, peer: str, app: str | None = None, context: str | None = None,
                     timeout: float | None = None) -> dict[str, Any]:
        """Invites `peer`."""
        return await self.call("invite", peer=peer, app=app, context=context, timeout=timeout)

    async def invitations(self, app: str | None = None) -> list[dict[str, Any]]:
        """The invitations waiting here."""
        return (await self.call("invitations", app=app))["invitations"]

    async def accept(self, invitation: str) -> dict[str, Any]:
        """Accepts an invitation."""
        return await self.call("accept", invitation=invitation)

    async def decline(self, invitation: str) -> dict[str, Any]:
        """Declines an invitation."""
        return await self.call("decline", invitation=invitation)

    async def send(self, data: bytes, to: str | list[str], app: str | None = None, queued: bool = False, mode: str = "reliable",
                   fallback: bool = False) -> Any:
        """Sends `data` to one peer or several; `mode="unreliable"`: one datagram (as `peerd.Client.send`)."""
        encoded = base64.b64encode(data).decode()
        if mode == "unreliable":
            if isinstance(to, list) or queued:
                raise ValueError("an unreliable send goes to one peer, now, and is never queued")
            return await self.call("datagram", peer=to, data=encoded, app=app, fallback=True if fallback else None)
        if mode != "reliable":
            raise ValueError(f"mode is 'reliable' or 'unreliable', not {mode!r}")
        if isinstance(to, list):
            return (await self.call("send", peers=to, data=encoded, app=app, queue=True if queued else None))["results"]
        return await self.call("send", peer=to, data=encoded, app=app, queue=True if queued else None)

    async def _subscribe(self, app: str | None, since: int | None, take: bool) -> tuple[_Connection, dict[str, Any]]:
        connection = await _Connection.open(self.socket)
        try:
            if app is not None:
                await connection.call("register", {"app": app, "info": _info(self._apps.get(app, {}))})
            result = await connection.call("subscribe", {"since": since, "take": True if take else None, "app": app})
        except BaseException:
            connection.close()
            raise
        return connection, result

    async def _stream(self, app: str | None, since: int | None, take: bool,
                      reconnect_for: float) -> AsyncIterator[dict[str, Any]]:
        """Events, coming back after the daemon restarts: as `peerd.Subscription`."""
        last, run = since, None
        connection: _Connection | None = None
        broken: float | None = None   # when the connection broke, while it comes back
        loop = asyncio.get_running_loop()
        try:
            while True:
                if connection is None:
                    try:
                        connection, result = await self._subscribe(app, last, take)
                    except (Unreachable, TransportError):
                        if broken is None or loop.time() - broken > reconnect_for:
                            raise
                        await asyncio.sleep(0.2)
                        continue
                    broken = None
                    gap, again = (None, False) if take else resume(last, run, result)
                    run = result.get("run")
                    if gap is not None:
                        yield gap
                    if again:
                        connection.close()
                        connection, last = None, 0
                    continue
                try:
                    event = await connection.event()
                except TransportError:
                    connection.close()
                    connection, broken = None, loop.time()
                    continue
                if event.get("type") == "error" and (event.get("error") or {}).get("code") == "shuttingDown":
                    continue
                if isinstance(event.get("seq"), int):
                    last = event["seq"]
                yield event
        finally:
            if connection is not None:
                connection.close()

    async def events(self, app: str | None = None, since: int | None = None,
                     reconnect_for: float = 30.0) -> AsyncIterator[dict[str, Any]]:
        """The daemon's events, read as you iterate; after a daemon restart it
        comes back by itself and yields `{"type": "gap", ...}` for what it missed."""
        async for event in self._stream(app, since, False, reconnect_for):
            yield event

    async def recv(self, app: str | None = None, reconnect_for: float = 30.0) -> AsyncIterator[dict[str, Any]]:
        """Messages taken for this host, the inbox's first; `data` is bytes."""
        async for event in self._stream(app, None, True, reconnect_for):
            if event.get("type") == "message" and "message" in event:
                message = dict(event["message"])
                message["data"] = base64.b64decode(message["data"])
                yield message

    async def datagrams(self, app: str | None = None) -> AsyncDatagrams:
        """A datagram socket of `app` on a connection of its own (as `peerd.Client.datagrams`):
        `send(data, to)` now or never, and `async for` over the datagrams that arrive."""
        return await AsyncDatagrams.open(self.socket, app, self._apps.get(app or "", {}))

    async def channel(self, peer: str, app: str | None = None) -> Channel:
        """A message channel to `peer`, on a connection of its own (as `peerd.Client.channel`)."""
        return await Channel.open(self.socket, peer, app, self._apps.get(app or "", {}))

    async def send_file(self, peer: str, path: str, app: str | None = None,
                        progress: Callable[[dict[str, Any]], None] | None = None, name: str | None = None) -> dict[str, Any]:
        """Sends one file; with `progress`, waits for its end (as `peerd.Client.send_file`)."""
        watcher = (await self._subscribe(app, None, take=False))[0] if progress else None
        try:
            fd = os.open(path, os.O_RDONLY)
            try:
                entry = file_entry(os.fstat(fd), path, name)
                transfer = (await self._requests.call("sendFile", {"peer": peer, "files": [entry], "app": app}, fds=[fd]))["transfer"]
            finally:
                os.close(fd)
            if watcher is None or progress is None:
                return transfer
            while True:
                state, last = transfer_step(await watcher.event(), transfer["id"])
                if state is not None:
                    progress(state)
                    if last:
                        return state
        finally:
            if watcher is not None:
                watcher.close()


class Channel:
    """A message channel (as `peerd.Channel`): length-prefixed messages on a socket passed to peerd."""

    def __init__(self, connection: _Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connection = connection
        self._reader = reader
        self._writer = writer

    @classmethod
    async def open(cls, path: str, peer: str, app: str | None, info: dict[str, str]) -> Channel:
        params: dict[str, Any] = {"peer": peer}
        if app is not None:
            params["app"] = app
        connection, mine = await _open_with_descriptor(path, "channel", params, app, info, socket.SOCK_STREAM)
        reader, writer = await asyncio.open_unix_connection(sock=mine, limit=MAX_LINE + 1)
        return cls(connection, reader, writer)

    async def send(self, message: bytes) -> None:
        """Sends one message; waits while the channel is full."""
        self._writer.write(len(message).to_bytes(4, "big") + message)
        await self._writer.drain()

    async def receive(self) -> bytes | None:
        """The next message from the peer, or None once the channel ended."""
        try:
            head = await self._reader.readexactly(4)
            return await self._reader.readexactly(int.from_bytes(head, "big"))
        except asyncio.IncompleteReadError:
            return None

    async def close(self) -> dict[str, Any]:
        """Ends this side and returns the daemon's answer (`state`, `sent`, `acknowledged`, `received`)."""
        if self._writer.can_write_eof():
            self._writer.write_eof()
        try:
            while True:
                result = answer(await self._connection.line(), "channel", [])
                if result is not PASS:
                    return result or {}
        finally:
            self._writer.close()
            self._connection.close()


class AsyncDatagrams:
    """A `datagrams` socket from asyncio: `send(data, to)` now or never (False when
    dropped here), `receive()` and `async for` give `{"peer", "data", "lost"}`,
    `close()` returns the daemon's counts."""

    def __init__(self, connection: _Connection, sock: socket.socket) -> None:
        self._connection = connection
        self.socket = sock

    @classmethod
    async def open(cls, path: str, app: str | None, info: dict[str, str]) -> AsyncDatagrams:
        params: dict[str, Any] = {"app": app} if app is not None else {}
        connection, mine = await _open_with_descriptor(path, "datagrams", params, app, info, socket.SOCK_SEQPACKET)
        mine.setblocking(False)
        return cls(connection, mine)

    def send(self, data: bytes, to: str) -> bool:
        """Sends one datagram to the peer with UUID `to`; False when it was dropped here."""
        return send_now(self.socket, data, to)

    async def receive(self) -> dict[str, Any] | None:
        """The next datagram, or None once the socket ended."""
        loop = asyncio.get_running_loop()
        while True:
            raw = await loop.sock_recv(self.socket, 21 + MAX_DATAGRAM + 1)
            if not raw:
                return None
            datagram = parse(raw)
            if datagram is not None:
                return datagram

    def __aiter__(self) -> AsyncDatagrams:
        return self

    async def __anext__(self) -> dict[str, Any]:
        datagram = await self.receive()
        if datagram is None:
            raise StopAsyncIteration
        return datagram

    async def close(self) -> dict[str, Any]:
        """Ends it; returns the daemon's counts (`sent`, `refused`, `received`, `lost`)."""
        try:
            self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            while True:
                result = answer(await self._connection.line(), "datagrams", [])
                if result is not PASS:
                    return result or {}
        finally:
            self.socket.close()
            self._connection.close()

