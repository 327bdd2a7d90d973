#!/usr/bin/python3
"""Publish COUNT DNS-SD services of TYPE through avahi-daemon's D-Bus API and
keep them until killed. Used by the peer-cap test (a flood of fake services).

avahi-daemon allows at most 32 entries per entry group by default, so the
services are spread over groups of 25.
"""
import signal
import sys

import dbus

count = int(sys.argv[1])
service_type = sys.argv[2]
prefix = sys.argv[3] if len(sys.argv) > 3 else "fake"
port = 9

bus = dbus.SystemBus()
server = dbus.Interface(bus.get_object("org.freedesktop.Avahi", "/"), "org.freedesktop.Avahi.Server")
groups = []
for start in range(0, count, 25):
    path = server.EntryGroupNew()
    group = dbus.Interface(bus.get_object("org.freedesktop.Avahi", path), "org.freedesktop.Avahi.EntryGroup")
    for n in range(start, min(count, start + 25)):
        # interface -1, protocol -1 (all), flags 0, no id in TXT: a foreign advertiser.
        group.AddService(-1, -1, dbus.UInt32(0), "%s-%03d" % (prefix, n), service_type, "", "",
                         dbus.UInt16(port), [dbus.ByteArray(b"fake=1")])
    group.Commit()
    groups.append(group)
print("published %d" % count, flush=True)
signal.sigwait([signal.SIGTERM, signal.SIGINT])
