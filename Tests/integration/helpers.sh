# Helpers shared by the integration tests (sourced by run.sh).

fail() { echo "    FAIL: $*" >&2; dump_logs; save_logs; exit 1; }
note() { echo "    $*" >&2; }

dump_logs() {
    local f
    for f in "$LAB_DIR"/h*/peerd.log "$LAB_DIR"/h*/avahi.log; do
        [ -f "$f" ] || continue
        echo "    --- ${f#$LAB_DIR/} (last 25 lines)" >&2
        tail -n 25 "$f" | sed 's/^/    | /' >&2
    done
}

# save_logs: a failed test's whole host logs go to POOL_SAVE (set by
# pool.sh), so a flake seen once can be read after its lab is gone.
save_logs() {
    [ -n "${POOL_SAVE:-}" ] && [ -d "${LAB_DIR:-}" ] || return 0
    local d
    for d in "$LAB_DIR"/h*/; do
        [ -d "$d" ] || continue
        mkdir -p "$POOL_SAVE/$(basename "$d")"
        cp "$d"/*.log "$d"/*.txt "$d"/*.jsonl "$POOL_SAVE/$(basename "$d")/" 2>/dev/null
    done
    cp "$LAB_DIR"/*.txt "$LAB_DIR"/*.jsonl "$LAB_DIR"/*.out "$POOL_SAVE/" 2>/dev/null
    echo "    (whole logs kept in $POOL_SAVE)" >&2
}

sock() { echo "$LAB_DIR/h$1/peerd.sock"; }

# start_peerd HOST [ARGS...]: starts peerd on a lab host with its own state
# directory and socket; waits until the control socket answers.
start_peerd() {
    local i=$1; shift
    lab_spawn "$i" "$LAB_DIR/h$i/peerd.log" "$BIN/peerd" --name "host$i" --state-dir "$LAB_DIR/h$i/state" \
        --socket "$(sock "$i")" --log-level debug "$@"
    echo "$LAB_PID" >"$LAB_DIR/h$i/peerd.pid"
    lab_wait_for 10 ctl "$i" status || fail "peerd on host $i did not start"
}

# stop_peerd HOST [SIGNAL]: signals peerd and waits for it to exit.
stop_peerd() {
    local i=$1 sig=${2:-TERM} pid
    pid=$(cat "$LAB_DIR/h$i/peerd.pid")
    kill -s "$sig" "$pid"
    wait "$pid" 2>/dev/null
    PEERD_EXIT=$?
}

ctl() { local i=$1; shift; "$BIN/peerctl" --socket "$(sock "$i")" "$@"; }
json() { local i=$1; shift; ctl "$i" --json "$@"; }

# Field of the row named NAME in host I's peer list.
peer_field() { json "$1" peers | jq -r --arg n "$2" ".peers[] | select(.name == \$n) | $3"; }
sees() { [ "$(peer_field "$1" "$2" .lost)" = false ]; }
sees_lost() { [ "$(peer_field "$1" "$2" .lost)" = true ]; }
status_field() { json "$1" status | jq -r "$2"; }
peer_count() { json "$1" peers | jq '.peers | length'; }

# flood_services I COUNT: host I publishes COUNT fake _peerd._tcp services
# (no id) through its avahi-daemon, and keeps them until the lab ends.
flood_services() {
    lab_spawn "$1" "$LAB_DIR/h$1/publish.log" /usr/bin/python3 "$ROOT/Tests/lab/publish-many.py" "$2" _peerd._tcp
    lab_wait_for 20 grep -q "published $2" "$LAB_DIR/h$1/publish.log" || { cat "$LAB_DIR/h$1/publish.log" >&2; fail "could not publish $2 services"; }
}

# tcp_probe FROM TO PORT [FRAME_LENGTH]: from host FROM, connects to host
# TO's PORT and prints closed, open or data (Tests/lab/tcp-probe.py).
tcp_probe() {
    lab_exec "$1" /usr/bin/python3 "$ROOT/Tests/lab/tcp-probe.py" "$(lab_address "$2")" "$3" ${4:+"$4"}
}

# rejected_reaches I N: host I has turned N new peers away at its caps.
rejected_reaches() { [ "$(status_field "$1" .peersRejected)" = "$2" ]; }

# has_event FILE FILTER: some complete line of the JSON-lines FILE (a
# watcher's output) matches the jq FILTER. Slurped and tested with any(), so
# an empty file or a last line that does not match is a no, not a yes (which
# is what `jq -e 'select(...)' FILE` would say).
has_event() { grep -a '^{.*}$' "$1" 2>/dev/null | jq -s -e "any(.[]; $2)" >/dev/null; }

expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }

# lab_systemd_units DIR: the units a lab systemd container needs besides
# peerd's own (Tests/lab/systemd-container.sh): stub targets, the machine's
# D-Bus units, and avahi-daemon for host 1 with the lab's configuration,
# logging to DIR/avahi.log.
lab_systemd_units() {
    local dir=$1 t
    mkdir -p "$dir/units/peerd.service.d"
    for t in sysinit basic sockets shutdown network multi-user lab; do printf '[Unit]\nDescription=%s (stub)\n' "$t" >"$dir/units/$t.target"; done
    cp /lib/systemd/system/dbus.socket /lib/systemd/system/dbus.service "$dir/units/"
    cat >"$dir/units/avahi-daemon.service" <<UNIT
[Unit]
Description=avahi-daemon for the lab
Requires=dbus.socket
After=dbus.socket
[Service]
Type=dbus
BusName=org.freedesktop.Avahi
ExecStart=/usr/sbin/avahi-daemon --no-drop-root --no-chroot --no-rlimits -f $LAB_DIR/h1/avahi.conf
StandardOutput=append:$dir/avahi.log
StandardError=append:$dir/avahi.log
UNIT
}

# use_peerd_group: makes group peerd when it is missing (and removes it
# when the test ends), checks for setpriv, and sets PEERD_GID.
use_peerd_group() {
    command -v setpriv >/dev/null || fail "setpriv is missing (package util-linux)"
    local created=no
    if ! getent group peerd >/dev/null; then groupadd --system peerd && created=yes; fi
    PEERD_GID=$(getent group peerd | cut -d: -f3)
    [ "$created" = no ] || trap 'groupdel peerd 2>/dev/null; lab_down' EXIT
}
