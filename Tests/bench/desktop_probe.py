#!/usr/bin/python3
"""peerbench's desktop figures (issue 45): how soon peerd-gtk shows what
the daemon said, and how soon it answers a click, read through the
accessibility tree (AT-SPI) as a screen reader would.

    desktop_probe.py session DIR BIN SOCKET
        starts an X display (Xvfb), a session bus and peerd-gtk on
        SOCKET, and writes DIR/desktop.env (what a client of that desktop
        needs); then, until killed, prints a line as each daemon event
        arrives at a subscriber beside the app, and as the app's list
        changes (both on this process's monotonic clock, so the two
        compare):
            event type=peerFound name=host2 state=notConnected t=12.345
            ui rows=host2|notconnected t=12.361
    desktop_probe.py clicks DIR COUNT ROW
        in the desktop of DIR, COUNT times selects the row named ROW, and
        then selects none, and times each until the detail shows it (its
        title) or shows none; prints p50=… max=… in milliseconds.

Run as the bench runs it: root, inside host 1's network namespace."""
import json
import os
import signal
import subprocess
import sys
import threading
import time


def now():
    return time.monotonic()


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def tree_helpers():
    """The lab tests' driver's way to find the app and an object in it
    (Tests/integration/desktop_drive.py), imported once the desktop's
    environment is set (pyatspi reads it as it loads)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
    import desktop_drive
    return desktop_drive.app, desktop_drive.find


def desktop_env(directory):
    env = dict(os.environ)
    with open(os.path.join(directory, "desktop.env")) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            env[key] = value
    return env


def session(directory, bin_dir, socket):
    home = os.path.join(directory, "desktop")
    os.makedirs(os.path.join(home, "run"), exist_ok=True)
    os.chmod(os.path.join(home, "run"), 0o700)
    os.makedirs(os.path.join(home, ".config", "gtk-4.0"), exist_ok=True)
    with open(os.path.join(home, ".config", "gtk-4.0", "settings.ini"), "w") as f:
        f.write("[Settings]\ngtk-enable-animations=false\n")
    read_end, write_end = os.pipe()
    children = []

    def stop(signum, frame):
        for child in reversed(children):
            child.terminate()
        for child in children:
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
        sys.exit(0)
    signal.signal(signal.SIGTERM, stop)
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset"],
                            pass_fds=[write_end], stderr=subprocess.DEVNULL)
    os.close(write_end)
    children.append(xvfb)
    display = ":" + os.read(read_end, 64).decode().strip()
    bus = "unix:path=" + os.path.join(home, "session.sock")
    env = dict(os.environ, HOME=home, XDG_RUNTIME_DIR=os.path.join(home, "run"), DISPLAY=display,
               DBUS_SESSION_BUS_ADDRESS=bus, GSK_RENDERER="cairo", GTK_A11Y="atspi", NO_AT_BRIDGE="0")
    children.append(subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=" + bus], env=env,
                                     stderr=subprocess.DEVNULL))
    deadline = now() + 10
    while not os.path.exists(os.path.join(home, "session.sock")) and now() < deadline:
        time.sleep(0.02)
    with open(os.path.join(directory, "desktop.env"), "w") as f:
        for key in ["HOME", "XDG_RUNTIME_DIR", "DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "GSK_RENDERER", "GTK_A11Y", "NO_AT_BRIDGE"]:
            f.write("%s=%s\n" % (key, env[key]))
    app = subprocess.Popen([os.path.join(bin_dir, "peerd-gtk"), "--socket", socket, "--size", "1280x800"], env=env,
                           stdout=subprocess.DEVNULL, stderr=open(os.path.join(directory, "desktop-app.log"), "w"))
    children.append(app)
    os.environ.update(env)
    app_root, find = tree_helpers()
    peers = None
    deadline = now() + 20
    while peers is None and now() < deadline:
        peers = find(app_root(), "Peers", "list")
        time.sleep(0.05)
    if peers is None:
        sys.exit("peerd-gtk showed no list")
    watcher = subprocess.Popen([os.path.join(bin_dir, "peerctl"), "--socket", socket, "--json", "watch"], stdout=subprocess.PIPE, text=True)
    children.append(watcher)
    # The agent, beside a notification server, for its memory at idle.
    agent = 0
    if os.path.exists("/usr/bin/dunst"):
        children.append(subprocess.Popen(["dunst"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(0.5)
        started = subprocess.Popen([os.path.join(bin_dir, "peerd-agent"), "--socket", socket], env=env,
                                   stdout=subprocess.DEVNULL, stderr=open(os.path.join(directory, "desktop-agent.log"), "w"))
        children.append(started)
        agent = started.pid
    threading.Thread(target=events, args=(watcher,), daemon=True).start()
    say("ready pid=%d agent=%d" % (app.pid, agent))
    last = None
    while True:
        shown = rows(peers)
        if shown != last:
            say("ui rows=%s t=%.6f" % (",".join(shown) or "-", now()))
            last = shown
        time.sleep(0.002)


def events(watcher):
    for line in watcher.stdout:
        t = now()
        try:
            event = json.loads(line)
        except ValueError:
            continue
        peer = event.get("peer") or {}
        say("event type=%s name=%s state=%s t=%.6f" % (event.get("type"), peer.get("name", "-"), peer.get("state", "-"), t))


def rows(peers):
    """Each peer row's words ("host2 — connected"), without spaces, by name."""
    out = []
    try:
        for row in peers:
            for child in row:
                words = child.name or ""
                if " — " in words:
                    name, _, rest = words.partition(" — ")
                    out.append(name + "|" + rest.split(" — ")[0].replace(" ", ""))
    except Exception:
        pass
    return out


def clicks(directory, count, row_name):
    os.environ.update(desktop_env(directory))
    app_root, find = tree_helpers()
    root = app_root()
    peers = find(root, "Peers", "list")
    if peers is None:
        sys.exit("no list")
    index = None
    for i, row in enumerate(peers):
        if row.name == row_name:
            index = i
    if index is None:
        sys.exit("no row " + row_name)
    selection = peers.querySelection()
    placeholder = "Select a peer to see it here."
    selection.clearSelection()
    deadline = now() + 5
    empty = None
    while empty is None and now() < deadline:
        empty = find(root, placeholder)
    if empty is None:
        sys.exit("the detail never showed its placeholder")
    # The detail's box stays; its children are drawn anew. Reading only
    # them keeps each look at the window to a few calls, so the time is
    # the app's, not the tree walk's.
    detail = empty.parent

    def shown():
        try:
            return [child.name for child in detail]
        except Exception:
            return []
    times = []
    for _ in range(count):
        for select in (True, False):
            start = now()
            if select:
                selection.selectChild(index)
                target = lambda: row_name in shown()
            else:
                selection.clearSelection()
                target = lambda: placeholder in shown()
            deadline = start + 5
            while not target() and now() < deadline:
                pass
            times.append((now() - start) * 1000)
    times.sort()
    say("p50=%.2f p90=%.2f max=%.2f count=%d" % (times[len(times) // 2], times[int(len(times) * 0.9)], times[-1], len(times)))


if __name__ == "__main__":
    if sys.argv[1] == "session":
        session(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "clicks":
        clicks(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit(__doc__)
