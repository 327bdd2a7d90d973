#!/usr/bin/env python3
"""Reads one service's TXT record off the wire, the way a foreign mDNS
stack sees it (issue 21, point 6: the order of its strings).

Usage: mdns-txt.py INSTANCE SERVICE_TYPE [SECONDS [LOCAL_IPV4]]
       e.g. mdns-txt.py host1 _peerd._tcp 5 169.254.7.12

LOCAL_IPV4 picks the interface the query leaves by (a lab host has only a
link-local address and no route for multicast).

Sends a one-shot (legacy unicast) DNS query for INSTANCE.SERVICE_TYPE.local
TXT to 224.0.0.251:5353 from an ephemeral port; the responder answers to
that port. Prints the TXT strings, one per line, in wire order. Exits 1
when no answer came in time.
"""
import socket
import struct
import sys
import time


def encode_name(name):
    out = b""
    for label in name.rstrip(".").split("."):
        raw = label.encode()
        out += bytes([len(raw)]) + raw
    return out + b"\0"


def read_name(packet, offset):
    labels, jumped, end = [], False, offset
    while True:
        length = packet[offset]
        if length & 0xC0 == 0xC0:
            pointer = ((length & 0x3F) << 8) | packet[offset + 1]
            if not jumped:
                end = offset + 2
            offset, jumped = pointer, True
            continue
        offset += 1
        if length == 0:
            break
        labels.append(packet[offset:offset + length].decode(errors="replace"))
        offset += length
    return ".".join(labels), (end if jumped else offset)


def txt_strings(packet, wanted):
    _, _, answers, authority, additional = struct.unpack("!HHHHH", packet[2:12])
    offset = 12
    qdcount = struct.unpack("!H", packet[4:6])[0]
    for _ in range(qdcount):
        _, offset = read_name(packet, offset)
        offset += 4
    for _ in range(answers + authority + additional):
        name, offset = read_name(packet, offset)
        rtype, _, _, length = struct.unpack("!HHIH", packet[offset:offset + 10])
        offset += 10
        data = packet[offset:offset + length]
        offset += length
        if rtype == 16 and name.lower() == wanted.lower():
            strings, at = [], 0
            while at < len(data):
                size = data[at]
                strings.append(data[at + 1:at + 1 + size].decode(errors="replace"))
                at += 1 + size
            return strings
    return None


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    wanted = "%s.%s.local" % (sys.argv[1], sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 5
    query = struct.pack("!HHHHHH", 0x5044, 0, 1, 0, 0, 0) + encode_name(wanted) + struct.pack("!HH", 16, 1)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    if len(sys.argv) > 4:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(sys.argv[4]))
    sock.bind(("0.0.0.0", 0))
    sock.settimeout(0.5)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock.sendto(query, ("224.0.0.251", 5353))
        try:
            while True:
                packet, _ = sock.recvfrom(9000)
                strings = txt_strings(packet, wanted)
                if strings is not None:
                    for text in strings:
                        print(text)
                    return 0
        except socket.timeout:
            continue
    print("no TXT answer for %s within %g s" % (wanted, seconds), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
