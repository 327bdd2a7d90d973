#!/usr/bin/python3
"""Connect to HOST:PORT and say what the server does within 1 s: "closed"
(it hung up), "open" (it kept waiting) or "data" (it sent something).
peerd closes a connection that sends nothing after 2 s, so 1 s tells a
refusal from a wait.

With FRAME_LENGTH, first send a 2-byte big-endian length prefix of that
value and 16 bytes of body, as a session frame that never completes.
"""
import socket
import sys

s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1)
if len(sys.argv) > 3:
    s.sendall(int(sys.argv[3]).to_bytes(2, "big") + b"x" * 16)
try:
    print("closed" if s.recv(1) == b"" else "data", flush=True)
except socket.timeout:
    print("open", flush=True)
except OSError:
    print("closed", flush=True)
