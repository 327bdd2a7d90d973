"""Browses an app's DNS-SD subtype with python-zeroconf, a foreign mDNS
stack (not Avahi): prints the first instance whose name starts with the
wanted one, with its TXT as JSON, and exits 0; exits 1 when none is seen
in time, or its TXT cannot be read in time. Usage: zeroconf_browse.py SUBTYPE INSTANCE SECONDS [KEY=VALUE]
(SUBTYPE such as _chat._sub._peerd._tcp.local.). With KEY=VALUE, a TXT
without that string is asked for again until the deadline: mDNS is
eventually consistent, and a browser that asks as the instance appears
can hear the TXT of a moment before (peerd publishes an app's subtype
and updates its TXT in two steps, AvahiController: on a loaded host a
query can come between them)."""
import json
import sys
import time

from zeroconf import IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf

subtype, wanted, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
required = sys.argv[4].split("=", 1) if len(sys.argv) > 4 else None
service_type = subtype.split("._sub.", 1)[1]
zc = Zeroconf(ip_version=IPVersion.V4Only)
found = []


def on_change(zeroconf, service_type, name, state_change):
    if state_change is ServiceStateChange.Added:
        found.append(name)


browser = ServiceBrowser(zc, subtype, handlers=[on_change])
deadline = time.monotonic() + seconds
status = 1
while time.monotonic() < deadline:
    hits = [name for name in found if name.startswith(wanted + ".")]
    if hits:
        # The instance is seen; its TXT is asked for until the deadline (a
        # loaded machine can take longer than one query's wait to answer).
        left = max(0.1, deadline - time.monotonic())
        info = zc.get_service_info(service_type, hits[0], timeout=int(min(left, 3) * 1000))
        if info is not None:
            txt = {k.decode(): (v.decode() if v is not None else None) for k, v in info.properties.items()}
            if required is None or txt.get(required[0]) == required[1] or time.monotonic() >= deadline:
                print(json.dumps({"name": hits[0], "txt": txt}))
                status = 0
                break
            # An earlier TXT: the new one's announcement replaces it in
            # the cache (its records carry the cache-flush bit).
            time.sleep(0.1)
        continue
    time.sleep(0.05)
zc.close()
sys.exit(status)
