#!/usr/bin/env python3
"""share: send a file or some text to a peer running share, and receive them (issue 24).

Built on the peerd Python client (clients/python), app "share":

    share.py send PEER FILE          send a file, with progress
    share.py send PEER --text TEXT   send some text (the clipboard's, say)
    share.py receive [--count N]     accept share's invitations and files, print what comes

Options: --socket PATH (else $PEERD_SOCKET, else /run/peerd/peerd.sock).
"""

from __future__ import annotations

import argparse
import base64
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))

import peerd  # noqa: E402

APP = "share"


def connect_app(client: peerd.Client, peer: str, timeout: float = 30) -> None:
    """Invites the peer's share and waits until it is connected."""
    with client.events(app=APP) as events:
        result = client.invite(peer, app=APP, timeout=timeout)
        if (result.get("app") or {}).get("state") == "connected":
            return
        for event in events:
            state = event.get("app") or {}
            if event.get("type") != "appStateChanged" or state.get("app") != APP:
                continue
            if state.get("state") == "connected":
                return
            if state.get("state") == "notConnected":
                raise SystemExit(f"share: {peer} did not take the invitation: {state.get('reason')}: {state.get('detail', '')}")


def send(client: peerd.Client, peer: str, path: str | None, text: str | None) -> None:
    connect_app(client, peer)
    if text is not None:
        client.send(text.encode(), to=peer, app=APP)
        print(f"sent {len(text.encode())} bytes of text to {peer}", flush=True)
        return
    assert path is not None

    def progress(transfer: dict) -> None:
        print(f"progress {transfer.get('bytes', 0)}/{transfer.get('totalBytes', 0)} {transfer.get('state')}", flush=True)

    done = client.send_file(peer, path, app=APP, progress=progress)
    print(f"sent {os.path.basename(path)} to {peer}: {done.get('state')}", flush=True)


def name_of(client: peerd.Client, peer: str | None) -> str | None:
    """A peer's name, from its UUID (a message names its sender by UUID)."""
    if peer is None:
        return None
    return next((row["name"] for row in client.peers() if row["id"] == peer), None)


def receive(client: peerd.Client, count: int | None) -> None:
    received = 0
    with peerd.Subscription(client.socket, APP, {}, since=None, take=True) as events:
        print("share: receiving", flush=True)
        for event in events:
            kind = event.get("type")
            if kind == "invitation" and (event.get("invitation") or {}).get("app") == APP:
                client.accept(event["invitation"]["id"])
            elif kind == "transferOffered" and (event.get("transfer") or {}).get("app") == APP:
                client.call("acceptTransfer", transfer=event["transfer"]["id"], app=APP)
            elif kind == "transferCompleted" and (event.get("transfer") or {}).get("app") == APP:
                transfer = event["transfer"]
                where = transfer.get("directory") or "the downloads folder"
                print(f"file from {transfer.get('name')}: {transfer.get('totalFiles')} file(s), {transfer.get('bytes')} bytes, in {where}", flush=True)
                received += 1
            elif kind == "message" and (event.get("message") or {}).get("app") == APP:
                data = base64.b64decode(event["message"]["data"])
                sender = name_of(client, event["message"].get("from")) or event["message"].get("peerId")
                print(f"text from {sender}: {data.decode(errors='replace')}", flush=True)
                received += 1
            if count is not None and received >= count:
                return


def main() -> int:
    parser = argparse.ArgumentParser(prog="share.py", description=__doc__.splitlines()[0])
    parser.add_argument("--socket")
    commands = parser.add_subparsers(dest="command", required=True)
    send_parser = commands.add_parser("send", help="send a file or some text to PEER")
    send_parser.add_argument("peer")
    send_parser.add_argument("file", nargs="?")
    send_parser.add_argument("--text")
    receive_parser = commands.add_parser("receive", help="receive files and text")
    receive_parser.add_argument("--count", type=int, help="stop after N files or texts")
    args = parser.parse_args()
    try:
        with peerd.Client(args.socket) as client:
            client.register(APP)
            if args.command == "send":
                if (args.file is None) == (args.text is None):
                    parser.error("send takes a FILE or --text TEXT")
                send(client, args.peer, args.file, args.text)
            else:
                receive(client, args.count)
    except peerd.PeerdError as error:
        print(f"share: {error}", file=sys.stderr)
        return 3 if isinstance(error, peerd.Unreachable) else 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
