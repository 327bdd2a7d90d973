#!/usr/bin/env bash
# Discovery through the site's DNS (issue 46), for peerbench: two subnets
# joined by a router, Knot DNS on a third, peerd on host 1 browsing the
# zone. Each run starts peerd on host 2 (which publishes itself with a
# signed update) and notes, in wall-clock seconds, when peerd started, when
# kdig on host 1 first resolves host 2's pointer and SRV from the same
# server (polling as fast as it can), and when host 1's peerd lists it
# (its peerFound event). Then host 2 stops, which removes its records.
#
#   Tests/bench/widearea_bench.sh BIN_DIR RUNS
#
# Prints one line a run: run=N start=T resolved=T listed=T
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$(cd "${1:?usage: widearea_bench.sh BIN_DIR RUNS}" && pwd) || exit 1
RUNS=${2:-5}
. "$ROOT/Tests/lab/lab.sh"
. "$ROOT/Tests/integration/helpers.sh"

lab_up 3 >&2 || { echo "error=lab_up failed"; exit 1; }
lab_subnets
lab_dns_server 3 >&2 || { echo "error=no DNS server"; exit 1; }
key="$LAB_DIR/dns/tsig.key"
start_peerd 1 --log-level notice --wide-area peers.lab --dns-server "$LAB_DNS" --dns-update-key "$key" >&2
for run in $(seq 1 "$RUNS"); do
    : >"$LAB_DIR/found.out"
    lab_spawn 1 "$LAB_DIR/found.out" "$BIN/peerbench" probe wait-found "$(sock 1)" host2
    finder=$LAB_PID
    lab_wait_for 10 grep -q ready "$LAB_DIR/found.out" || { echo "error=the probe did not start"; exit 1; }
    # kdig polls from host 1's namespace: the path peerd's queries take.
    : >"$LAB_DIR/kdig.out"
    ip netns exec "$(lab_ns 1)" bash -c "until kdig @$LAB_DNS +short host2._peerd._tcp.peers.lab SRV | grep -q . \
        && kdig @$LAB_DNS +short _peerd._tcp.peers.lab PTR | grep -q '^host2\.'; do :; done; date +%s.%N" >"$LAB_DIR/kdig.out" 2>/dev/null &
    poller=$!
    start=$(date +%s.%N)
    lab_spawn 2 "$LAB_DIR/h2/peerd.log" "$BIN/peerd" --name host2 --state-dir "$LAB_DIR/h2/state" --socket "$(sock 2)" \
        --log-level notice --wide-area peers.lab --dns-server "$LAB_DNS" --dns-update-key "$key"
    echo "$LAB_PID" >"$LAB_DIR/h2/peerd.pid"
    wait "$poller"
    lab_wait_for 20 grep -q found= "$LAB_DIR/found.out" || { echo "error=host 1 did not list host 2"; exit 1; }
    wait "$finder" 2>/dev/null
    echo "run=$run start=$start resolved=$(cat "$LAB_DIR/kdig.out") listed=$(sed -n 's/^found=//p' "$LAB_DIR/found.out")"
    stop_peerd 2
    lab_wait_for 10 sees_lost 1 host2 || { echo "error=host 1 still lists host 2 after its stop"; exit 1; }
done
echo done
