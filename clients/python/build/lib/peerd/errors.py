"""The errors of the client: one class per daemon error code (docs/control-protocol.md, "Errors")."""

from __future__ import annotations

from typing import Any


class PeerdError(Exception):
    """The daemon refused a request: its code, its words, and the parameter at fault where it named one."""

    code: str = "internal"

    def __init__(self, message: str, *, code: str | None = None, field: str | None = None,
                 feature: str | None = None, release: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.field = field
        self.feature = feature
        self.release = release

    def __str__(self) -> str:
        return f"{self.message} ({self.code})"


class Unreachable(PeerdError):
    """No daemon answers at the socket (not running, or this user may not use it)."""
    code = "unreachable"


class TransportError(PeerdError):
    """The connection broke, or carried something that is not the protocol."""
    code = "transport"


def _subclass(name: str, code: str, doc: str) -> type[PeerdError]:
    return type(name, (PeerdError,), {"code": code, "__doc__": doc})


BadRequest = _subclass("BadRequest", "badRequest", "The request line was not a request.")
UnsupportedVersion = _subclass("UnsupportedVersion", "unsupportedVersion", "The request's protocol version is not spoken.")
UnknownMethod = _subclass("UnknownMethod", "unknownMethod", "No such method.")
InvalidParams = _subclass("InvalidParams", "invalidParams", "A parameter is missing or malformed; `field` names it.")
PermissionDenied = _subclass("PermissionDenied", "permissionDenied", "This user may not do that.")
NotFound = _subclass("NotFound", "notFound", "No such peer, invitation or transfer.")
Ambiguous = _subclass("Ambiguous", "ambiguous", "The selector matches several peers.")
Overloaded = _subclass("Overloaded", "overloaded", "The daemon is at a limit; try again later.")
ShuttingDown = _subclass("ShuttingDown", "shuttingDown", "The daemon is stopping.")
NotConnected = _subclass("NotConnected", "notConnected", "No session (or app state) with the peer.")
Busy = _subclass("Busy", "busy", "A queue is full; retry shortly.")
StorageFailed = _subclass("StorageFailed", "storageFailed", "The daemon could not write its state.")
QueueFull = _subclass("QueueFull", "queueFull", "The queue for that peer is full.")
Unsupported = _subclass("Unsupported", "unsupported", "The peer's release cannot do it; `feature` and `release` say why.")
AppBusy = _subclass("AppBusy", "appBusy", "The peer refuses the app's messages for now.")
WrongCode = _subclass("WrongCode", "wrongCode", "The pairing code was wrong.")
UnreachablePeer = _subclass("UnreachablePeer", "unreachable", "No address of the peer answered.")

_BY_CODE: dict[str, type[PeerdError]] = {
    cls.code: cls for cls in (BadRequest, UnsupportedVersion, UnknownMethod, InvalidParams, PermissionDenied, NotFound,
                              Ambiguous, Overloaded, ShuttingDown, NotConnected, Busy, StorageFailed, QueueFull,
                              Unsupported, AppBusy, WrongCode, UnreachablePeer)
}


def from_wire(error: dict[str, Any]) -> PeerdError:
    """The exception for a daemon's `error` object."""
    code = str(error.get("code", "internal"))
    cls = _BY_CODE.get(code, PeerdError)
    return cls(str(error.get("message", "")), code=code, field=error.get("field"),
               feature=error.get("feature"), release=error.get("release"))
