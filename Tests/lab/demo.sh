#!/usr/bin/env bash
# make demo: two simulated LAN hosts, each running avahi-daemon and peerd;
# waits until they find each other and prints each host's `peerctl peers`.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${PEERD_BIN:-$HERE/../../.build/debug}
. "$HERE/lab.sh"

lab_up 2 || exit 1
for i in 1 2; do
    lab_spawn "$i" "$LAB_DIR/h$i/peerd.log" "$BIN/peerd" --name "demo-host-$i" --info "role=demo" \
        --state-dir "$LAB_DIR/h$i/state" --socket "$LAB_DIR/h$i/peerd.sock"
    pids[$i]=$LAB_PID
done
sees() { "$BIN/peerctl" --socket "$LAB_DIR/h$1/peerd.sock" --json peers 2>/dev/null | grep -q "\"name\":\"demo-host-$2\""; }
if ! lab_wait_for 10 sees 1 2 || ! lab_wait_for 10 sees 2 1; then
    echo "demo: the hosts did not find each other; logs:" >&2
    tail -n 20 "$LAB_DIR"/h*/peerd.log >&2
    exit 1
fi
for i in 1 2; do
    echo
    echo "== host $i ($(lab_address "$i")): peerctl status"
    "$BIN/peerctl" --socket "$LAB_DIR/h$i/peerd.sock" status
    echo
    echo "== host $i: peerctl peers"
    "$BIN/peerctl" --socket "$LAB_DIR/h$i/peerd.sock" peers
done
# Each daemon goes by its own name (issue 41): what ps, pgrep, pidof and
# killall find it by.
echo
echo "== pgrep -a -x peerd"
pgrep -a -x peerd | grep -F "$LAB_DIR" || true
for i in 1 2; do
    pgrep -x peerd | grep -qx "${pids[$i]}" || { echo "demo: pgrep -x peerd does not find host $i's daemon (pid ${pids[$i]})" >&2; exit 1; }
done
echo
echo "demo: both hosts discovered each other; tearing the lab down."
