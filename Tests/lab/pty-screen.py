#!/usr/bin/env python3
"""Runs a command in a pseudo-terminal and keeps a model of its screen.

Usage: pty-screen.py SCRIPT -- COMMAND...

SCRIPT is a file of steps, one per line:
  size COLS ROWS      set the window size (SIGWINCH goes to the command)
  wait TEXT           wait (up to 10 s) until TEXT is on the screen
  gone TEXT           wait (up to 10 s) until TEXT is not on the screen
  selected TEXT       wait until the reverse-video row holding TEXT is shown
  keys HEX            send bytes (hex, e.g. 1b5b42 for Down)
  dump                print the screen
  say WORD            print WORD at once (a test waits for it)
  end                 wait for the command to exit; print its status
The screen model understands what peerctl top sends: cursor moves
(CSI r;c H), clear (CSI 2J), SGR (bold, dim, reverse), the alternate
screen and cursor visibility, and wide characters.
Exit status 0 when every step passed; on a failed step the screen is
printed and the status is 1.
"""
import fcntl, os, pty, re, select, signal, struct, sys, termios, time, unicodedata

steps = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip()]
cmd = sys.argv[sys.argv.index("--") + 1:]
cols, rows = 120, 30
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm-256color"
    os.execvp(cmd[0], cmd)

def set_size(c, r):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", r, c, 0, 0))
    os.kill(pid, signal.SIGWINCH)

set_size(cols, rows)
screen = [[(" ", False)] * cols for _ in range(rows)]
cy = cx = 0
reverse = False
alt_entered = alt_left = 0
raw = b""

def feed(data):
    global cy, cx, reverse, alt_entered, alt_left, screen
    text = data.decode("utf-8", "replace")
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\x1b":
            m = re.match(r"\x1b\[([?0-9;]*)([A-Za-z])", text[i:])
            if not m:
                i += 1
                continue
            params, final = m.group(1), m.group(2)
            if final == "H":
                parts = [int(p) if p else 1 for p in params.split(";")] if params else [1, 1]
                cy, cx = parts[0] - 1, (parts[1] - 1 if len(parts) > 1 else 0)
            elif final == "J" and params == "2":
                screen = [[(" ", False)] * cols for _ in range(rows)]
            elif final == "m":
                codes = [int(p) for p in params.split(";") if p] or [0]
                for c in codes:
                    if c == 0: reverse = False
                    elif c == 7: reverse = True
            elif final == "h" and params == "?1049":
                alt_entered += 1
            elif final == "l" and params == "?1049":
                alt_left += 1
            i += len(m.group(0))
            continue
        if ch in "\r\n":
            i += 1
            continue
        w = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
        if 0 <= cy < rows and 0 <= cx < cols:
            screen[cy][cx] = (ch, reverse)
            if w == 2 and cx + 1 < cols: screen[cy][cx + 1] = ("", reverse)
        cx += w
        i += 1

def lines():
    return ["".join(c for c, _ in row).rstrip() for row in screen]

def selected_lines():
    return ["".join(c for c, r in row if r).strip() for row in screen]

def pump(timeout):
    global raw
    r, _, _ = select.select([fd], [], [], timeout)
    if r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            return False
        raw += data
        feed(data)
    return True

def until(pred, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if pred():
            return True
        pump(0.05)
    return pred()

def fail(step):
    print("step failed: " + step)
    print("\n".join("|" + l for l in lines()))
    sys.exit(1)

for step in steps:
    word, _, arg = step.partition(" ")
    if word == "size":
        c, r = map(int, arg.split())
        cols, rows = c, r
        screen = [[(" ", False)] * cols for _ in range(rows)]
        set_size(c, r)
        time.sleep(0)  # the resize settles in the command, not here
    elif word == "wait":
        if not until(lambda: any(arg in l for l in lines())): fail(step)
    elif word == "gone":
        if not until(lambda: not any(arg in l for l in lines())): fail(step)
    elif word == "selected":
        if not until(lambda: any(arg in l for l in selected_lines() if l)): fail(step)
    elif word == "keys":
        os.write(fd, bytes.fromhex(arg))
    elif word == "say":
        print(arg, flush=True)
    elif word == "dump":
        print("\n".join("|" + l for l in lines()))
    elif word == "end":
        deadline = time.time() + 10
        status = None
        while time.time() < deadline:
            pump(0.05)
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(st)
                break
        while pump(0.05) and select.select([fd], [], [], 0)[0]:
            pass
        if status is None: fail(step + " (still running)")
        print("exit %d alt-entered %d alt-left %d" % (status, alt_entered, alt_left))
print("ok")
