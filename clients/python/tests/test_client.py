"""The Python client against two real daemons in the lab (Tests/integration/example_tests.sh runs it):
$PEERD_SOCKET is host1's, $PEERD_SOCKET2 host2's; the hosts see each other and their default
sessions are connected. Without them, these tests are skipped (test_framing.py needs none)."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import pytest

import peerd
import peerd.aio

ONE = os.environ.get("PEERD_SOCKET")
TWO = os.environ.get("PEERD_SOCKET2")
pytestmark = pytest.mark.skipif(not (ONE and TWO), reason="needs two lab daemons ($PEERD_SOCKET, $PEERD_SOCKET2)")


def eventually(what: str, condition, seconds: float = 10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    pytest.fail(f"timed out waiting until {what}")


def channels_opened(host: int, peer: str) -> int:
    """How many channels with `peer` host `host`'s daemon has opened (its log says each)."""
    log = os.path.join(os.environ["LAB_DIR"], f"h{host}", "peerd.log")
    with open(log, errors="replace") as f:
        return f.read().count(f"channel with '{peer}': opened")


def open_channel(client, host: int, peer: str, opener):
    """Opens a channel and waits until the daemon has it (a message the peer
    sends before that would go to the inbox instead)."""
    before = channels_opened(host, peer)
    channel = opener(client, peer)
    eventually(f"host{host}'s channel with {peer} is open", lambda: channels_opened(host, peer) > before)
    return channel


def test_status_and_peers():
    with peerd.Client(ONE) as client:
        assert client.status()["name"] == "host1"
        names = [peer["name"] for peer in client.peers()]
        assert "host2" in names


def test_errors_are_typed_with_their_field():
    with peerd.Client(ONE) as client:
        with pytest.raises(peerd.NotFound):
            client.invite("no-such-host")
        with pytest.raises(peerd.InvalidParams) as raised:
            client.call("subscribe", since=-1)
        assert raised.value.field == "since"


def test_an_app_invites_sends_and_the_other_side_receives():
    with peerd.Client(ONE) as one, peerd.Client(TWO) as two:
        one.register("pytest-app", {"room": "lab"})
        two.register("pytest-app")
        eventually("host1 sees host2 run the app", lambda: any(p["name"] == "host2" for p in one.peers(app="pytest-app")))
        with two.events(app="pytest-app") as events:
            one.invite("host2", app="pytest-app", context="hello?")
            for event in events:
                if event["type"] == "invitation" and event["invitation"].get("app") == "pytest-app":
                    assert event["invitation"]["context"] == "hello?"
                    two.accept(event["invitation"]["id"])
                    break
        eventually("the app is connected", lambda: next(p for p in one.peers(app="pytest-app") if p["name"] == "host2")["state"] == "connected")
        got: list[dict] = []
        receiver = threading.Thread(target=lambda: got.append(next(iter(two.recv(app="pytest-app")))), daemon=True)
        receiver.start()
        one.send(b"\x00binary\xff", to="host2", app="pytest-app")
        receiver.join(10)
        assert got and got[0]["data"] == b"\x00binary\xff"
        assert got[0]["app"] == "pytest-app"


def test_a_file_with_progress():
    path = os.path.join(os.environ.get("LAB_DIR", "/tmp"), "pytest-file.bin")
    with open(path, "wb") as f:
        f.write(os.urandom(300_000))
    with peerd.Client(ONE) as one, peerd.Client(TWO) as two:
        accepting = two.events()

        def accept_offer():
            for event in accepting:
                if event["type"] == "transferOffered":
                    two.call("acceptTransfer", transfer=event["transfer"]["id"])
                    return
        helper = threading.Thread(target=accept_offer, daemon=True)
        helper.start()
        seen: list[str] = []
        done = one.send_file("host2", path, progress=lambda t: seen.append(t["state"]))
        assert done["state"] == "completed"
        assert seen[-1] == "completed"
        accepting.close()


def test_a_channel_carries_messages_both_ways():
    with peerd.Client(ONE) as one, peerd.Client(TWO) as two:
        left = open_channel(one, 1, "host2", lambda c, p: c.channel(p))
        right = open_channel(two, 2, "host1", lambda c, p: c.channel(p))
        left.send(b"ping")
        assert right.receive() == b"ping"
        right.send(b"pong")
        assert left.receive() == b"pong"
        assert left.close()["state"] in ("closed", "reset")
        right.close()


def test_the_asyncio_client():
    async def run():
        async with await peerd.aio.Client.connect(ONE) as one:
            status = await one.status()
            assert status["name"] == "host1"
            await one.register("pytest-aio")
            peers = await one.peers()
            assert any(p["name"] == "host2" for p in peers)
            with pytest.raises(peerd.NotFound):
                await one.invite("no-such-host")
            events = one.events()
            waiting = asyncio.ensure_future(events.__anext__())   # subscribes, then waits
            await asyncio.sleep(0.3)
            with peerd.Client(TWO) as two:
                two.register("pytest-aio-peer")   # host2's TXT changes: host1 hears of it
                event = await asyncio.wait_for(waiting, 10)
            assert event["type"] in ("peerUpdated", "peerFound")
            await events.aclose()
            before = channels_opened(1, "host2")
            left = await one.channel("host2")
            deadline = time.monotonic() + 10
            while channels_opened(1, "host2") == before:
                assert time.monotonic() < deadline, "host1's channel did not open"
                await asyncio.sleep(0.05)
            with peerd.Client(TWO) as two:
                right = open_channel(two, 2, "host1", lambda c, p: c.channel(p))
                await left.send(b"async ping")
                assert right.receive() == b"async ping"
                right.send(b"async pong")
                assert await left.receive() == b"async pong"
                assert (await left.close())["state"] in ("closed", "reset")
                right.close()
    asyncio.run(run())


def test_unreliable_sends_arrive_as_datagrams():
    with peerd.Client(ONE) as one, peerd.Client(TWO) as two:
        host1 = next(p["id"] for p in two.peers() if p["name"] == "host1")
        with two.datagrams() as incoming:
            incoming.socket.settimeout(0.2)
            got: list[dict] = []

            def arrived():
                # The path may still be probing just after the session came up.
                result = one.send(b"cursor 10 20", "host2", mode="unreliable")
                assert set(result) >= {"sent", "bytes"}
                try:
                    datagram = incoming.receive()
                except TimeoutError:
                    return False
                got.append(datagram)
                return True

            eventually("a datagram crosses", arrived)
            assert got[0]["data"] == b"cursor 10 20"
            assert got[0]["peer"] == next(p["id"] for p in two.peers() if p["name"] == "host1") == host1
        with pytest.raises(peerd.InvalidParams):
            one.send(b"x" * 1201, "host2", mode="unreliable")


def test_the_asyncio_client_takes_datagrams():
    async def run():
        async with await peerd.aio.Client.connect(TWO) as two:
            incoming = await two.datagrams()
            host1 = next(p["id"] for p in await two.peers() if p["name"] == "host1")
            with peerd.Client(ONE) as one:
                async def first():
                    while True:
                        one.send(b"async cursor", "host2", mode="unreliable")
                        try:
                            return await asyncio.wait_for(incoming.receive(), 0.2)
                        except asyncio.TimeoutError:
                            continue
                datagram = await asyncio.wait_for(first(), 10)
            assert datagram == {"peer": host1, "data": b"async cursor", "lost": 0}
            counts = await incoming.close()
            assert counts["received"] >= 1

    asyncio.run(run())

