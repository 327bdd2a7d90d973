#!/usr/bin/env bash
# The scale figure (issue 25, point 5): N lab hosts (24 by default), each
# with its own avahi-daemon and peerd. Prints KEY=VALUE lines and exits;
# `peerbench --only scale` runs it and makes the rows.
#
#   Tests/bench/scale_lab.sh BIN_DIR [HOSTS]
#
# 1. avahi-browse runs on every host; then peerd starts on every host at
#    once. Per host: the time from that start until peerd lists all the
#    others, and until avahi-browse has resolved all their services: the
#    same publications, seen by both.
# 2. Idle with every peer listed (after SETTLE seconds, 5 by default), for
#    IDLE seconds (30 by default): each peerd's private
#    memory and wake-ups (context switches of all its threads), and the
#    packets the hosts send (mDNS: no session is up yet), next to the same
#    hosts with avahi-daemon alone after peerd stops.
# 3. Each host pairs with 3 others (its neighbours on a ring and the host
#    across it); then every peerd is stopped and all start at once: the
#    time until every paired session is back, and the dials made.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$(cd "${1:?usage: scale_lab.sh BIN_DIR [HOSTS]}" && pwd) || exit 1
N=${2:-24}
IDLE=${SCALE_IDLE:-30}
SETTLE=${SCALE_SETTLE:-5}
. "$ROOT/Tests/lab/lab.sh"
. "$ROOT/Tests/integration/helpers.sh"
. "$ROOT/Tests/integration/session_tests.sh"
. "$ROOT/Tests/integration/pairing_tests.sh"

now() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }

# start_every_peerd LOG: peerd on every host at once (none waits for
# another), each logging to LOG in its host's folder; then waits for
# every control socket.
start_every_peerd() {
    local i
    for i in $(seq 1 "$N"); do
        lab_spawn "$i" "$LAB_DIR/h$i/$1" "$BIN/peerd" --name "host$i" --state-dir "$LAB_DIR/h$i/state" \
            --socket "$(sock "$i")" --log-level debug
        echo "$LAB_PID" >"$LAB_DIR/h$i/peerd.pid"
    done
    for i in $(seq 1 "$N"); do
        lab_wait_for 10 test -S "$(sock "$i")" || { echo "error=peerd on host $i did not start"; exit 1; }
    done
}

lab_up "$N" >&2 || { echo "error=lab_up failed"; exit 1; }
echo "hosts=$N"

# 1. Listing. avahi-browse first, its resolved lines stamped as they come.
for i in $(seq 1 "$N"); do
    lab_spawn "$i" "$LAB_DIR/h$i/browse.log" sh -c \
        "avahi-browse -rp _peerd._tcp | while IFS= read -r line; do printf '%s %s\n' \"\$(date +%s.%N)\" \"\$line\"; done"
    echo "$LAB_PID" >"$LAB_DIR/h$i/browse.pid"
done
sleep 1
start=$(now)
start_every_peerd peerd.log
for i in $(seq 1 "$N"); do
    lab_spawn "$i" "$LAB_DIR/h$i/listed.out" "$BIN/peerbench" probe wait-peers "$(sock "$i")" $((N - 1)) 120
    echo "$LAB_PID" >"$LAB_DIR/h$i/listed.pid"
done
for i in $(seq 1 "$N"); do wait "$(cat "$LAB_DIR/h$i/listed.pid")" || { echo "error=host $i did not list every peer"; cat "$LAB_DIR/h$i/listed.out" >&2; exit 1; }; done
# avahi-browse: the time its resolved lines ("=") name every other host's service.
lab_wait_for 60 sh -c "for i in \$(seq 1 $N); do [ \"\$(grep ' =;' \"$LAB_DIR/h\$i/browse.log\" | cut -d';' -f4 | sort -u | grep -vc \"^host\$i\$\")\" -ge $((N - 1)) ] || exit 1; done" \
    || { echo "error=avahi-browse did not resolve every service"; exit 1; }
peerd_worst=0; avahi_worst=0
for i in $(seq 1 "$N"); do
    listed=$(sed -n 's/^listed=//p' "$LAB_DIR/h$i/listed.out")
    echo "listed_ms_$i=$(ms "$start" "$listed")"
    # The stamp of the line that completed the set of names.
    resolved=$(awk -v self="host$i" '$2 ~ /^=;/ { split($2, f, ";"); if (f[4] != self && !(f[4] in seen)) { seen[f[4]] = 1; last = $1 } } END { print last }' "$LAB_DIR/h$i/browse.log")
    echo "resolved_ms_$i=$(ms "$start" "$resolved")"
done
for i in $(seq 1 "$N"); do kill "$(cat "$LAB_DIR/h$i/browse.pid")" 2>/dev/null; done

# 2. Idle: memory, wake-ups, multicast packets, from SETTLE seconds after
# every host listed every other (a long settle shows the steady state:
# Avahi's queriers back off, 1 s doubling to an hour).
sleep "$SETTLE"
private_kb() { awk '/^Private_(Clean|Dirty)/ { kb += $2 } END { print kb }' "/proc/$1/smaps_rollup"; }
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { n += $2 } END { print n }'; }
# Packets the hosts sent (the switch's ports receive them; veth counts
# no multicast apart): at idle, with no session up, that is mDNS.
packets_sent() {
    local total=0 i n
    for i in $(seq 1 "$N"); do
        n=$(ip -n "$(lab_switch_ns)" -s link show "p$i-$LAB_ID" | awk '/RX:/ { getline; print $2; exit }')
        total=$((total + n))
    done
    echo "$total"
}
for i in $(seq 1 "$N"); do before[i]=$(switches "$(cat "$LAB_DIR/h$i/peerd.pid")"); done
m0=$(packets_sent)
sleep "$IDLE"
m1=$(packets_sent)
for i in $(seq 1 "$N"); do
    pid=$(cat "$LAB_DIR/h$i/peerd.pid")
    echo "private_kb_$i=$(private_kb "$pid")"
    echo "wakeups_$i=$(( $(switches "$pid") - before[i] ))"
done
echo "idle_seconds=$IDLE"
echo "settle_seconds=$SETTLE"
echo "packets_peerd=$((m1 - m0))"

# 3. Pairing on a ring and across it, then all restarted at once.
for i in $(seq 1 "$N"); do
    next=$(( i % N + 1 ))
    pair_hosts "$i" "$next" >&2
    if [ "$i" -le $(( N / 2 )) ]; then pair_hosts "$i" $(( i + N / 2 )) >&2; fi
done
for i in $(seq 1 "$N"); do kill "$(cat "$LAB_DIR/h$i/peerd.pid")"; done
for i in $(seq 1 "$N"); do wait "$(cat "$LAB_DIR/h$i/peerd.pid")" 2>/dev/null; done
pkill -f "peerctl --socket $LAB_DIR" 2>/dev/null
# avahi-daemon alone, the same hosts, the same length of time.
sleep 5
m0=$(packets_sent)
sleep "$IDLE"
m1=$(packets_sent)
echo "packets_avahi=$((m1 - m0))"
restart=$(now)
start_every_peerd restart.log
for i in $(seq 1 "$N"); do
    lab_spawn "$i" "$LAB_DIR/h$i/back.out" "$BIN/peerbench" probe wait-sessions "$(sock "$i")" 3 60
    echo "$LAB_PID" >"$LAB_DIR/h$i/back.pid"
done
for i in $(seq 1 "$N"); do wait "$(cat "$LAB_DIR/h$i/back.pid")" || { echo "error=host $i did not get its 3 sessions back"; cat "$LAB_DIR/h$i/back.out" >&2; exit 1; }; done
for i in $(seq 1 "$N"); do
    echo "back_ms_$i=$(ms "$restart" "$(sed -n 's/^back=//p' "$LAB_DIR/h$i/back.out")")"
    echo "dials_$i=$(grep -c ': dialling ' "$LAB_DIR/h$i/restart.log")"
done
echo "pairings=$(( N + N / 2 ))"
echo done
