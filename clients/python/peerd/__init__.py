"""peerd from Python: its control socket (docs/control-protocol.md), standard library only.

>>> import peerd
>>> with peerd.Client() as client:
...     client.status()["name"]
"""

from .client import MAX_LINE, SYSTEM_SOCKET, Channel, Client, Subscription, socket_path
from .datagrams import MAX_DATAGRAM, Datagrams
from .errors import (
    Ambiguous, AppBusy, BadRequest, Busy, InvalidParams, NotConnected, NotFound, Overloaded, PeerdError,
    PermissionDenied, QueueFull, ShuttingDown, StorageFailed, TransportError, UnknownMethod, Unreachable,
    UnreachablePeer, Unsupported, UnsupportedVersion, WrongCode,
)

__all__ = [
    "MAX_LINE", "MAX_DATAGRAM", "SYSTEM_SOCKET", "Channel", "Client", "Datagrams", "Subscription", "socket_path",
    "Ambiguous", "AppBusy", "BadRequest", "Busy", "InvalidParams", "NotConnected", "NotFound", "Overloaded",
    "PeerdError", "PermissionDenied", "QueueFull", "ShuttingDown", "StorageFailed", "TransportError",
    "UnknownMethod", "Unreachable", "UnreachablePeer", "Unsupported", "UnsupportedVersion", "WrongCode",
]
