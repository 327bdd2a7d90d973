#!/usr/bin/env python3
"""The soak's traffic client for one lab host (issue 21, point 7).

It speaks peerd's control protocol (docs/control-protocol.md) directly and
keeps going while peerd is killed and restarted under it:

  queued   `send` with `queue` to every peer: "Q FROM TO N", N counting up
           per (sender, receiver); a number is confirmed once peerd answered
           `queued: true`, and "maybe" when the connection broke first
  plain    `send` to every connected peer: "P FROM TO N" (no promise)
  channel  with --channel-to, a `channel` to that peer: "C FROM TO N"
           messages written through it, confirmed once the channel's answer
           says the peer acknowledged them
  take     `take` of everything waiting, recorded

Files and pipes are run by soak.sh with peerctl. Everything is written as
JSON lines to OUT/sent.jsonl and OUT/received.jsonl. While OUT/quiet exists
it sends nothing (its channel is ended) but keeps taking, and goes on when
the file goes; once OUT/stop exists it takes one last time and exits.

Usage: traffic.py --socket PATH --me N --peers N=NAME,... --out DIR
                  [--channel-to N] [--no-send-to N,...] [--interval S]
"""
import argparse
import base64
import collections
import json
import os
import socket
import struct
import time


class Control:
    """One control connection; None results mean the connection broke."""

    def __init__(self, path):
        self.path = path
        self.sock = None
        self.buffer = b""
        self.next_id = 1

    def connect(self):
        if self.sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(20)
            try:
                sock.connect(self.path)
            except OSError:
                sock.close()
                return False
            self.sock, self.buffer = sock, b""
        return True

    def close(self):
        if self.sock is not None:
            self.sock.close()
        self.sock = None

    def call(self, method, params, fds=None):
        """The answer's (result, error), or None when the connection broke
        before the answer (the request's outcome is then unknown)."""
        if not self.connect():
            return "down"
        request_id = self.next_id
        self.next_id += 1
        line = (json.dumps({"v": 1, "id": request_id, "method": method, "params": params}) + "\n").encode()
        try:
            if fds:
                socket.send_fds(self.sock, [line], fds)
            else:
                self.sock.sendall(line)
            while True:
                while b"\n" not in self.buffer:
                    chunk = self.sock.recv(1 << 20)
                    if not chunk:
                        raise OSError("closed")
                    self.buffer += chunk
                raw, self.buffer = self.buffer.split(b"\n", 1)
                answer = json.loads(raw)
                if answer.get("id") == request_id:
                    return answer.get("result"), answer.get("error")
        except (OSError, ValueError):
            self.close()
            return None


class Channel:
    """A `channel` to one peer: a socketpair end handed to peerd on a
    control connection of its own, whose answer comes when the channel ends."""

    def __init__(self, path, peer):
        self.control = Control(path)
        self.peer = peer
        self.mine = None
        self.inbound = b""
        self.unconfirmed = []

    def open(self):
        if self.mine is not None:
            return True
        if not self.control.connect():
            return False
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        line = (json.dumps({"v": 1, "id": 1, "method": "channel", "params": {"peer": self.peer}}) + "\n").encode()
        try:
            socket.send_fds(self.control.sock, [line], [theirs.fileno()])
        except OSError:
            self.control.close()
            mine.close()
            theirs.close()
            return False
        theirs.close()
        mine.setblocking(False)
        self.control.sock.setblocking(False)
        self.mine = mine
        return True

    def write(self, message):
        try:
            self.mine.sendall(struct.pack("!I", len(message)) + message)
            return True
        except (BlockingIOError, OSError):
            return False

    def poll(self):
        """Messages read from the channel, and whether it ended (then the
        answer, if one came)."""
        messages = []
        try:
            while True:
                chunk = self.mine.recv(1 << 16)
                if not chunk:
                    break
                self.inbound += chunk
        except BlockingIOError:
            pass
        except OSError:
            pass
        while len(self.inbound) >= 4:
            (length,) = struct.unpack("!I", self.inbound[:4])
            if len(self.inbound) < 4 + length:
                break
            messages.append(self.inbound[4:4 + length])
            self.inbound = self.inbound[4 + length:]
        answer = None
        try:
            data = self.control.sock.recv(1 << 16)
            if data:
                answer = json.loads(data.split(b"\n", 1)[0])
            else:
                answer = {"error": {"code": "closed"}}
        except BlockingIOError:
            pass
        except (OSError, ValueError):
            answer = {"error": {"code": "broken"}}
        return messages, answer

    def reset(self):
        if self.mine is not None:
            self.mine.close()
        self.mine = None
        self.inbound = b""
        self.control.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", required=True)
    parser.add_argument("--me", type=int, required=True)
    parser.add_argument("--peers", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--channel-to", type=int)
    parser.add_argument("--no-send-to", default="")
    parser.add_argument("--interval", type=float, default=0.25)
    args = parser.parse_args()
    peers = {int(k): v for k, v in (item.split("=") for item in args.peers.split(","))}
    silent = {int(x) for x in args.no_send_to.split(",") if x}
    os.makedirs(args.out, exist_ok=True)
    sent = open(os.path.join(args.out, "sent.jsonl"), "a", buffering=1)
    received = open(os.path.join(args.out, "received.jsonl"), "a", buffering=1)
    stop = os.path.join(args.out, "stop")
    quiet = os.path.join(args.out, "quiet")
    control = Control(args.socket)
    queued = {p: 0 for p in peers}
    plain = {p: 0 for p in peers}
    channel_count = 0
    channel = Channel(args.socket, peers[args.channel_to]) if args.channel_to else None

    errors = collections.Counter()

    def note_error(method, error):
        # The first few of each kind go to the log: enough to see why.
        key = "%s %s" % (method, (error or {}).get("code"))
        errors[key] += 1
        if errors[key] <= 3:
            print("%s: %s" % (key, (error or {}).get("message")), flush=True)

    def record_received(text, via, inbox=None):
        # The inbox id (take answers): the same id twice is the daemon
        # handing out again what it stored once (it died before marking it
        # taken), not a second copy (check.py tells them apart).
        received.write(json.dumps({"text": text, "via": via, "at": time.time(), "inbox": inbox}) + "\n")

    def take_all():
        while True:
            answer = control.call("take", {"max": 1000})
            if not isinstance(answer, tuple) or answer[0] is None:
                return
            messages = answer[0].get("messages", [])
            for message in messages:
                data = message.get("data")
                if data is None and isinstance(message.get("message"), dict):
                    data = message["message"].get("data")
                record_received(base64.b64decode(data or "").decode(errors="replace"), "take", message.get("inbox"))
            if not messages or answer[0].get("remaining", 0) == 0:
                return

    while True:
        stopping = os.path.exists(quiet)
        if not stopping:
            for peer, peer_id in peers.items():
                if peer in silent:
                    continue
                number = queued[peer]
                text = "Q %d %d %d" % (args.me, peer, number)
                answer = control.call("send", {"peer": peer_id, "data": base64.b64encode(text.encode()).decode(), "queue": True})
                if isinstance(answer, tuple) and answer[0] is not None:
                    sent.write(json.dumps({"kind": "Q", "to": peer, "n": number, "state": "confirmed"}) + "\n")
                    queued[peer] += 1
                elif isinstance(answer, tuple):
                    note_error("send --queue", answer[1])
                elif answer is None:
                    # The daemon went away with the request in flight: it may
                    # or may not have stored it. The number is not used again.
                    sent.write(json.dumps({"kind": "Q", "to": peer, "n": number, "state": "maybe"}) + "\n")
                    queued[peer] += 1
                text = "P %d %d %d" % (args.me, peer, plain[peer])
                answer = control.call("send", {"peer": peer_id, "data": base64.b64encode(text.encode()).decode()})
                if isinstance(answer, tuple) and answer[0] is not None:
                    sent.write(json.dumps({"kind": "P", "to": peer, "n": plain[peer], "state": "queued"}) + "\n")
                    plain[peer] += 1
            if channel is not None and channel.open():
                for _ in range(4):
                    text = "C %d %d %d" % (args.me, args.channel_to, channel_count)
                    if not channel.write(text.encode()):
                        break
                    channel.unconfirmed.append(channel_count)
                    channel_count += 1
        if channel is not None and channel.mine is not None:
            if stopping and channel.unconfirmed:
                try:
                    channel.mine.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
            messages, answer = channel.poll()
            for message in messages:
                record_received(message.decode(errors="replace"), "channel")
            if answer is not None:
                result = answer.get("result") or {}
                through = result.get("acknowledged", 0) if isinstance(result, dict) else 0
                for index, number in enumerate(channel.unconfirmed):
                    state = "confirmed" if index < through else "maybe"
                    sent.write(json.dumps({"kind": "C", "to": args.channel_to, "n": number, "state": state}) + "\n")
                channel.unconfirmed = []
                channel.reset()
        take_all()
        if os.path.exists(stop) and (channel is None or channel.mine is None or not channel.unconfirmed):
            break
        time.sleep(args.interval)
    if channel is not None:
        for number in channel.unconfirmed:
            sent.write(json.dumps({"kind": "C", "to": args.channel_to, "n": number, "state": "maybe"}) + "\n")
    take_all()
    sent.write(json.dumps({"kind": "end"}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
