#!/usr/bin/env bash
# The soak (issue 21, point 7): four paired lab hosts, each running peerd
# and a traffic client, while faults are injected at random for
# SOAK_MINUTES (default 20); then what arrived is checked against what was
# sent. `make soak` runs it; `make test` runs a 3-minute one.
#
# Faults: a host's link down and up; SIGKILL of peerd and a restart;
# avahi-daemon restarted; host 4's download disk full; a step of one
# host's wall clock (peerd runs with Tests/soak/clockstep.c preloaded, which
# steps only CLOCK_REALTIME, as a real step does).
#
# Traffic: queued messages numbered per sender and receiver, plain
# messages, channel messages (host 3 to host 4), send-file (each host to
# the next, resumed after the sender's daemon restarts), and pipes.
#
# Checked at the end (Tests/soak/check.py): every confirmed queued message
# reached the application at least once, in order per sender; every file
# arrived byte-identical or its transfer says why not; no daemon exited but
# the ones we killed; every pair is connected within 10 s of the last
# fault; each daemon's private memory and descriptors are within 10% of
# where they were before the faults. Prints a table and "N passed, N
# failed"; exits non-zero on any failure.
#
# Env: PEERD_BIN (default .build/debug), SOAK_MINUTES (20), SOAK_SEED
# (random; printed, so a run can be repeated), SOAK_OUT (where the logs,
# the table and every daemon's log are kept; /tmp/peerd-soak-SEED),
# SOAK_KEEP=1 keeps the lab folder too; SOAK_HEAP_REPORT=1 keeps each
# daemon's malloc_info beside its smaps (needs gdb); SOAK_FAULTS keeps
# only the kinds it names ("link kill avahi disk clock", the default;
# "none" for traffic alone); SOAK_WARMUP, the seconds traffic flows
# before the first measure (60; make test's smoke, which only reports
# memory, 20).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${PEERD_BIN:-$ROOT/.build/debug}
BIN=$(cd "$BIN" 2>/dev/null && pwd) || { echo "no directory $BIN: build first (make build)"; exit 1; }
. "$ROOT/Tests/lab/lab.sh"
. "$ROOT/Tests/integration/helpers.sh"
for suite in "$ROOT"/Tests/integration/*_tests.sh; do . "$suite"; done
[ "$(id -u)" = 0 ] || { echo "the soak needs root (network namespaces)"; exit 1; }

MINUTES=${SOAK_MINUTES:-20}
WARMUP=${SOAK_WARMUP:-60}
SEED=${SOAK_SEED:-$(( $(date +%s) % 32768 ))}
RANDOM=$SEED
HOSTS=4
[ -n "${SOAK_KEEP:-}" ] && export LAB_KEEP=1

say() { printf 'soak %s  %s\n' "$(date +%H:%M:%S)" "$*"; }

lab_up_or_retry "$HOSTS" || exit 1
SOAK=${SOAK_OUT:-/tmp/peerd-soak-$SEED}
rm -rf "$SOAK"
mkdir -p "$SOAK/files" "$SOAK/pipes"
CLOCKSTEP=$SOAK/clockstep.so
cc -O2 -Wall -Werror -shared -fPIC -o "$CLOCKSTEP" "$HERE/clockstep.c" -ldl || { echo "cannot build clockstep.so"; exit 1; }
# Host 4's downloads live on a small disk of their own, which a fault fills.
DOWNLOADS=$(mktemp -d /tmp/peerd-soak-dl.XXXXXX)
mount -t tmpfs -o size=256m,nr_inodes=8192 tmpfs "$DOWNLOADS" || { echo "cannot mount a tmpfs"; exit 1; }
cleanup() {
    touch "$SOAK/quiet" "$SOAK/stop" 2>/dev/null
    jobs -p | xargs -r kill 2>/dev/null
    lab_down
    umount "$DOWNLOADS" 2>/dev/null
    rmdir "$DOWNLOADS" 2>/dev/null
}
trap cleanup EXIT
say "seed $SEED, $MINUTES minutes, lab $LAB_DIR"

# ---------- daemons ----------

# start_soak_peerd I: peerd on host I with its wall clock offset by the
# seconds in h$I/clock (read at most once a second), paired peers accepted
# by policy. Its event history is small (64), so the bounded history fills
# during the warm-up: memory that grows after it is not a cache filling up.
start_soak_peerd() {
    local i=$1 extra=()
    [ "$i" = 4 ] && extra=(--download-dir "$DOWNLOADS")
    [ -f "$LAB_DIR/h$i/clock" ] || echo "+0" >"$LAB_DIR/h$i/clock"
    lab_spawn "$i" "$LAB_DIR/h$i/peerd.log" env LD_PRELOAD="$CLOCKSTEP" CLOCKSTEP_FILE="$LAB_DIR/h$i/clock" \
        "$BIN/peerd" --name "host$i" --state-dir "$LAB_DIR/h$i/state" --socket "$(sock "$i")" --log-level info \
        --auto-accept paired --event-history 64 "${extra[@]}"
    echo "$LAB_PID" >"$LAB_DIR/h$i/peerd.pid"
    echo "$LAB_PID" >>"$SOAK/pids.$i"
    disown "$LAB_PID" 2>/dev/null   # its SIGKILL is ours: no "Killed" from the shell
    lab_wait_for 15 ctl "$i" status || { echo "peerd on host $i did not start"; tail "$LAB_DIR/h$i/peerd.log"; exit 1; }
}

for i in $(seq 1 $HOSTS); do start_soak_peerd "$i"; done
for a in $(seq 1 $HOSTS); do
    for b in $(seq 1 $HOSTS); do
        [ "$a" != "$b" ] || continue
        lab_wait_for 20 sees "$a" "host$b" || { echo "host$a does not see host$b"; exit 1; }
    done
done
for a in $(seq 1 $HOSTS); do
    for b in $(seq $((a + 1)) $HOSTS); do
        ( pair_hosts "$a" "$b" ) >"$SOAK/pair-$a-$b.log" 2>&1 \
            || { echo "pairing host$a with host$b failed:"; sed 's/^/    /' "$SOAK/pair-$a-$b.log"; exit 1; }
    done
done
all_connected() {
    local i
    for i in $(seq 1 $HOSTS); do
        [ "$(json "$i" peers | jq '[.peers[] | select(.paired and .state == "connected")] | length')" = $((HOSTS - 1)) ] || return 1
    done
}
lab_wait_for 30 all_connected || { echo "the paired hosts did not all connect"; exit 1; }
say "4 hosts up, 6 pairs paired and connected"

# glibc's own account of a daemon's heap (malloc_info: free chunks by
# size), through gdb, with SOAK_HEAP_REPORT=1: what a trim could not give
# back, and in pieces of what size.
heap_report() {
    command -v gdb >/dev/null || return 0
    timeout 60 gdb -p "$1" -batch -ex "set \$f = (void*)fopen(\"$2\", \"w\")" \
        -ex 'call (int)malloc_info(0, $f)' -ex 'call (int)fclose($f)' >/dev/null 2>&1
}
# Private memory and descriptors of each daemon, quiet; each daemon's
# smaps kept beside them (smaps.I.before, .after), to see what grew.
measure() {
    local i pid
    for i in $(seq 1 $HOSTS); do
        pid=$(cat "$LAB_DIR/h$i/peerd.pid")
        cp "/proc/$pid/smaps" "$SOAK/smaps.$i.$1" 2>/dev/null
        json "$i" status >"$SOAK/status.$i.$1" 2>/dev/null
        printf '%s %s %s\n' "$i" \
            "$(awk '/^Private_(Clean|Dirty)/ {s += $2} END {print s}' "/proc/$pid/smaps_rollup")" \
            "$(ls "/proc/$pid/fd" | wc -l)"
        # After the figures: gdb's calls allocate in the daemon.
        if [ -n "${SOAK_HEAP_REPORT:-}" ]; then heap_report "$pid" "$SOAK/heap.$i.$1.xml"; fi
    done
}
# ---------- traffic ----------

for i in $(seq 1 $HOSTS); do
    peers=""
    for j in $(seq 1 $HOSTS); do [ "$i" = "$j" ] || peers+="${peers:+,}$j=host$j"; done
    args=()
    # Host 3 writes channel messages to host 4. A channel takes its peer's
    # messages ahead of the inbox, so host 4 sends host 3 nothing else.
    [ "$i" = 3 ] && args=(--channel-to 4)
    [ "$i" = 4 ] && args=(--no-send-to 3)
    mkdir -p "$SOAK/t$i"
    lab_spawn "$i" "$SOAK/t$i/traffic.log" python3 "$HERE/traffic.py" --socket "$(sock "$i")" --me "$i" --peers "$peers" \
        --out "$SOAK/t$i" "${args[@]}"
    echo "$LAB_PID" >"$SOAK/t$i/pid"
done
# traffic.py reads its own folder's quiet and stop files.
signal_traffic() { local i; for i in $(seq 1 $HOSTS); do touch "$SOAK/t$i/$1"; done; }
queues_empty() {
    local i
    for i in $(seq 1 $HOSTS); do
        [ "$(json "$i" queue | jq '[.queues[].messages] | add // 0')" = 0 ] || return 1
    done
}

# send_files I J: host I sends a file of 1-24 MiB to host J, one after
# another; each line of files.tsv says what became of one. A file that
# arrived is checked at once (its SHA-256 on the receiver) and removed there,
# as an application would take it, so the small disk fills only by faults.
send_files() {
    local i=$1 j=$2 n=0
    while [ ! -e "$SOAK/quiet" ]; do
        if [ -e "$SOAK/pause" ]; then rm -f "$SOAK/busy.files$i"; sleep 0.5; continue; fi
        touch "$SOAK/busy.files$i"
        local f="$SOAK/files/f$i-$n.bin"
        head -c $(( (RANDOM % 24 + 1) * 1048576 )) /dev/urandom >"$f"
        local id="" state="" reason="" deadline=$(( $(date +%s) + 240 ))
        # A file once begun is offered until it is, even after quiet: a
        # fault just before the end (the sender killed) only delays it.
        while [ -z "$id" ] && [ "$(date +%s)" -lt "$deadline" ]; do
            id=$(ctl "$i" --json send-file "host$j" "$f" --no-wait 2>"$SOAK/files/offer-err$i" | jq -r '.id // empty')
            [ -n "$id" ] || sleep 1
        done
        # Never offered in 240 s: the last refusal says why.
        [ -n "$id" ] || reason="never offered: $(tail -n 1 "$SOAK/files/offer-err$i" 2>/dev/null)"
        if [ -n "$id" ]; then
            while [ "$(date +%s)" -lt "$deadline" ]; do
                local info
                if ! info=$(ctl "$i" --json transfers "$id" 2>"$SOAK/files/err$i"); then
                    if grep -q "no transfer $id" "$SOAK/files/err$i"; then
                        # The sending daemon restarted and forgot it: offer the same file again under its id.
                        ctl "$i" --json send-file "host$j" "$f" --no-wait --resume "$id" >/dev/null 2>&1 || sleep 1
                    else
                        sleep 1   # the daemon is down (killed, restarting)
                    fi
                    continue
                fi
                state=$(jq -r '.transfers[0].state // empty' <<<"$info" 2>/dev/null)
                reason=$(jq -r '(.transfers[0].reason // "") + " " + (.transfers[0].detail // "")' <<<"$info" 2>/dev/null)
                case "$state" in completed|failed|declined|cancelled) break ;; esac
                sleep 1
            done
        fi
        local digest arrived=-
        digest=$(sha256sum <"$f" | cut -d' ' -f1)
        if [ "$state" = completed ]; then
            local landed="$LAB_DIR/h$j/state/downloads/host$i/$(basename "$f")"
            [ "$j" = 4 ] && landed="$DOWNLOADS/host$i/$(basename "$f")"
            if [ -f "$landed" ]; then arrived=$(sha256sum <"$landed" | cut -d' ' -f1); rm -f "$landed"; else arrived=missing; fi
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$j" "$(basename "$f")" "$digest" "${id:--}" "${state:-stuck}" \
            "$arrived" "${reason:-}" >>"$SOAK/files.tsv"
        rm -f "$f"
        n=$((n + 1))
        sleep $(( RANDOM % 3 + 1 ))
    done
    rm -f "$SOAK/busy.files$i"
}
WORKERS=()
for i in $(seq 1 $HOSTS); do send_files "$i" $(( i % HOSTS + 1 )) & WORKERS+=($!); done

# run_pipe N I J: a pipe named pN between hosts I and J, 1 MiB each way.
run_pipe() {
    local n=$1 i=$2 j=$3 d="$SOAK/pipes/p$1"
    mkdir -p "$d"
    head -c 1048576 /dev/urandom >"$d/in$i"
    head -c 1048576 /dev/urandom >"$d/in$j"
    ( ctl "$i" pipe "host$j" --name "p$n" <"$d/in$i" >"$d/out$i" 2>"$d/err$i"; echo $? >"$d/rc$i" ) &
    local a=$!
    ( ctl "$j" pipe "host$i" --name "p$n" <"$d/in$j" >"$d/out$j" 2>"$d/err$j"; echo $? >"$d/rc$j" ) &
    local b=$!
    local deadline=$(( $(date +%s) + 90 ))
    while kill -0 "$a" 2>/dev/null || kill -0 "$b" 2>/dev/null; do
        [ "$(date +%s)" -lt "$deadline" ] || { kill "$a" "$b" 2>/dev/null; echo timeout >"$d/timeout"; break; }
        sleep 0.5
    done
    wait "$a" "$b" 2>/dev/null
    printf '%s\t%s\t%s\n' "$n" "$i" "$j" >>"$SOAK/pipes.tsv"
}
pipes() {
    local n=0
    while [ ! -e "$SOAK/quiet" ]; do
        if [ -e "$SOAK/pause" ]; then rm -f "$SOAK/busy.pipes"; sleep 0.5; continue; fi
        touch "$SOAK/busy.pipes"
        local i=$(( RANDOM % HOSTS + 1 )) j
        j=$(( (i + RANDOM % (HOSTS - 1)) % HOSTS + 1 ))
        run_pipe "$n" "$i" "$j"
        n=$((n + 1))
        sleep 2
    done
    rm -f "$SOAK/busy.pipes"
}
pipes &
WORKERS+=($!)

# The quiet values before the faults: everything flows for WARMUP
# seconds, a minute by default (every buffer, table and the bounded event
# history a daemon keeps gets used and filled), then pauses and drains, and each daemon
# gets the tick that hands memory back (at most every 10 s). The same is
# done after the faults before the second measure.
sleep "$WARMUP"
touch "$SOAK/pause"
signal_traffic quiet
idle_workers() { ! ls "$SOAK"/busy.* >/dev/null 2>&1; }
lab_wait_for 300 idle_workers || say "the file and pipe workers did not pause within 300 s"
lab_wait_for 60 queues_empty || say "queues did not drain before the faults"
sleep 15
measure before >"$SOAK/before.txt"
for i in $(seq 1 $HOSTS); do rm -f "$SOAK/t$i/quiet"; done
rm -f "$SOAK/pause"
say "warm-up done; private kB and descriptors: $(awk '{printf "host%s %s/%s ", $1, $2, $3}' "$SOAK/before.txt")"

# ---------- faults ----------

: >"$SOAK/faults.tsv"
fault() { printf '%s\t%s\t%s\t%s\n' "$(date +%s)" "$1" "$2" "${3:-}" >>"$SOAK/faults.tsv"; say "fault: $1 host$2 ${3:-}"; }
# A daemon that exited without our SIGKILL is a crash: noted, restarted.
check_alive() {
    local i pid
    for i in $(seq 1 $HOSTS); do
        pid=$(cat "$LAB_DIR/h$i/peerd.pid")
        kill -0 "$pid" 2>/dev/null && continue
        printf '%s\t%s\n' "$i" "$(tail -n 5 "$LAB_DIR/h$i/peerd.log" | tr '\n' ' ')" >>"$SOAK/crashes.tsv"
        say "CRASH: peerd on host$i exited"
        start_soak_peerd "$i"
    done
}

FAULT_KINDS=(link kill avahi disk clock)
FAULTS=${SOAK_FAULTS:-${FAULT_KINDS[*]}}
# MINUTES may be a fraction (make test's smoke runs 2.5).
end=$(( $(date +%s) + $(awk -v m="$MINUTES" 'BEGIN { printf "%d", m * 60 }') ))
: >"$SOAK/crashes.tsv"
while [ "$(date +%s)" -lt "$end" ]; do
    sleep $(( RANDOM % 8 + 3 ))
    check_alive
    i=$(( RANDOM % HOSTS + 1 ))
    kind=$(( RANDOM % 5 ))
    # SOAK_FAULTS keeps some kinds only; a draw of another is a quiet turn.
    case " $FAULTS " in *" ${FAULT_KINDS[$kind]} "*) ;; *) continue ;; esac
    case $kind in
        0)  seconds=$(( RANDOM % 6 + 1 ))
            fault link "$i" "${seconds}s"
            lab_partition "$i" down; sleep "$seconds"; lab_partition "$i" up ;;
        1)  fault kill "$i"
            pid=$(cat "$LAB_DIR/h$i/peerd.pid")
            kill -9 "$pid"; lab_wait_for 10 sh -c "! kill -0 $pid 2>/dev/null"
            sleep $(( RANDOM % 3 ))
            start_soak_peerd "$i" ;;
        2)  fault avahi "$i"
            lab_avahi_stop "$i"; sleep $(( RANDOM % 3 )); lab_avahi_start "$i" ;;
        3)  seconds=$(( RANDOM % 10 + 3 ))
            fault disk 4 "${seconds}s"
            fallocate -l "$(( $(stat -f -c '%a * %S' "$DOWNLOADS") ))" "$DOWNLOADS/.filler" 2>/dev/null \
                || dd if=/dev/zero of="$DOWNLOADS/.filler" bs=1M status=none 2>/dev/null
            sleep "$seconds"; rm -f "$DOWNLOADS/.filler" ;;
        4)  offset=$(( (RANDOM % 7201) - 3600 ))
            fault clock "$i" "${offset}s"
            echo "$( [ "$offset" -ge 0 ] && echo +)$offset" >"$LAB_DIR/h$i/clock" ;;
    esac
done
check_alive
last_fault=$(date +%s)
say "faults over; waiting for every pair to connect"
reconnect=none
for t in $(seq 0 40); do
    if all_connected; then reconnect=$(( $(date +%s) - last_fault )); break; fi
    sleep 0.5
done
echo "$reconnect" >"$SOAK/reconnect.txt"

# ---------- quiesce ----------

touch "$SOAK/quiet"
signal_traffic quiet
say "traffic stopped; draining queues"
lab_wait_for 120 queues_empty || say "queues did not drain within 120 s"
# The file senders and the pipes finish what they started (a transfer waits
# at most 240 s, a pipe 90 s).
workers_done() { local pid; for pid in "${WORKERS[@]}"; do kill -0 "$pid" 2>/dev/null && return 1; done; return 0; }
lab_wait_for 300 workers_done || say "file and pipe workers still running after 300 s"
sleep 3
signal_traffic stop
for i in $(seq 1 $HOSTS); do
    pid=$(cat "$SOAK/t$i/pid")
    lab_wait_for 30 sh -c "! kill -0 $pid 2>/dev/null" || kill "$pid"
done
# Give each daemon its tick to hand memory back (at most every 10 s).
sleep 15
check_alive
measure after >"$SOAK/after.txt"
for i in $(seq 1 $HOSTS); do cp "$LAB_DIR/h$i/peerd.log" "$SOAK/peerd$i.log" 2>/dev/null; done

python3 "$HERE/check.py" "$SOAK" "$MINUTES" "$SEED" | tee "$SOAK/result.txt"
verdict=${PIPESTATUS[0]}
say "logs and the table: $SOAK"
exit "$verdict"
