#!/usr/bin/env bash
# The lab peerbench measures in (issue 13): two hosts, peerd on each
# (paired, auto-accept for paired peers, no auto-connect so that the
# session-setup figure starts from no session, caps of 512 peers), sshd and an iperf3 server on
# host 2. Prints KEY=VALUE lines and then `ready`, and holds the lab until
# it gets SIGTERM (then brings it down).
#
#   Tests/bench/bench_lab.sh BIN_DIR [--pin]
#
# --pin: each peerd (every thread) on a core of its own, host N's on core
# N-1 (`taskset`), as on two real hosts; the clients run anywhere.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$(cd "${1:?usage: bench_lab.sh BIN_DIR}" && pwd) || exit 1
. "$ROOT/Tests/lab/lab.sh"
. "$ROOT/Tests/integration/helpers.sh"
. "$ROOT/Tests/integration/session_tests.sh"
. "$ROOT/Tests/integration/pairing_tests.sh"

lab_up 2 >&2 || { echo "error=lab_up failed"; exit 1; }
# Caps above the 200 services and 10 peers the listing figure adds.
for i in 1 2; do
    start_peerd "$i" --log-level notice --auto-connect no --download-dir "$LAB_DIR/dl$i" \
        --max-peers 512 --max-unverified-peers 512 >&2
done
if [ "${2:-}" = --pin ]; then
    for i in 1 2; do taskset -a -pc $((i - 1)) "$(cat "$LAB_DIR/h$i/peerd.pid")" >&2 || fail "cannot pin peerd on host $i"; done
    echo "PINNED=yes"
fi
lab_wait_for 10 sees 1 host2 || fail "host1 did not see host2"
lab_wait_for 10 sees 2 host1 || fail "host2 did not see host1"
pair_hosts 1 2 >&2
ctl 1 disconnect host2 >/dev/null 2>&1

# sshd on host 2: root by key only, a host key of its own.
if command -v sshd >/dev/null && command -v iperf3 >/dev/null; then
    ssh-keygen -q -t ed25519 -N '' -f "$LAB_DIR/hostkey"
    ssh-keygen -q -t ed25519 -N '' -f "$LAB_DIR/userkey"
    mkdir -p "$LAB_DIR/ssh" /run/sshd
    cp "$LAB_DIR/userkey.pub" "$LAB_DIR/ssh/authorized_keys"
    cat >"$LAB_DIR/sshd_config" <<CONF
Port 2222
HostKey $LAB_DIR/hostkey
PermitRootLogin prohibit-password
AuthorizedKeysFile $LAB_DIR/ssh/authorized_keys
StrictModes no
UsePAM no
PidFile $LAB_DIR/sshd.pid
Subsystem sftp /usr/lib/openssh/sftp-server
CONF
    lab_spawn 2 "$LAB_DIR/sshd.log" "$(command -v sshd)" -D -e -f "$LAB_DIR/sshd_config"
    lab_spawn 2 "$LAB_DIR/iperf.log" iperf3 -s
    echo "TOOLS=yes"
else
    echo "TOOLS=no"
fi
lab_spawn 2 "$LAB_DIR/echo.log" "$BIN/peerbench" probe tcp-echo-server 7777
lab_wait_for 5 grep -q ready "$LAB_DIR/echo.log"
# The raw UDP reference for the datagram path (issue 26).
lab_spawn 2 "$LAB_DIR/udp-echo.log" "$BIN/peerbench" probe udp-echo-server 7778
lab_wait_for 5 grep -q ready "$LAB_DIR/udp-echo.log"

for i in 1 2; do
    echo "NS$i=$(lab_ns "$i")"
    echo "ADDR$i=$(lab_address "$i")"
    echo "SOCK$i=$(sock "$i")"
    echo "BUS$i=$LAB_DIR/h$i/bus.sock"
    echo "PEERD$i=$(cat "$LAB_DIR/h$i/peerd.pid")"
    echo "AVAHI$i=$(cat "$LAB_DIR/h$i/avahi.pid")"
done
echo "LAB_DIR=$LAB_DIR"
echo ready
while :; do sleep 1; done
