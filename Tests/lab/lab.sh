#!/usr/bin/env bash
# peerd test lab: N simulated LAN hosts on one machine.
#
# Each host is a network namespace joined by a veth pair to a bridge that lives
# in a namespace of its own (the "switch"), so nothing touches the machine's
# real interfaces. Each host runs its own dbus-daemon (a private system bus)
# and its own avahi-daemon (under `unshare -m`, with a private tmpfs on
# /run/avahi-daemon so pid files and sockets never clash).
#
# Source this file, then:
#   lab_up N            create hosts 1..N (sets LAB_DIR, LAB_ID)
#   lab_up_or_retry N   the same, once more if it fails, saying why
#   lab_exec I CMD...   run CMD on host I with that host's system bus
#   lab_avahi_stop I / lab_avahi_start I
#   lab_down            remove everything (installed as an EXIT trap by lab_up)
#
# Two runs never collide: every name carries a run id, and every file lives in
# a fresh mktemp directory. Hosts only get link-local 169.254.x.y/16 addresses.

LAB_HOSTS=0

# The tests ask peerctl's JSON with jq in every poll (lab_wait_for), and
# jq 1.6 takes 22-26 ms of CPU to start here, parsing its builtins each
# time: in make test's labs stage, which the CPU bounds, jq was a fifth
# of all CPU (perf). gojq answers the same filters in 3 ms; where it is
# installed (make deps), `jq` means gojq for the lab's scripts and every
# shell they start. Its output differs from jq's only in object keys,
# which it sorts (peerctl already writes them sorted): a test that builds
# an object with jq and compares its text names the keys in that order.
if command -v gojq >/dev/null 2>&1 && [ -z "${LAB_JQ_SHIM:-}" ]; then
    LAB_JQ_SHIM="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.build/jq-shim"
    mkdir -p "$LAB_JQ_SHIM" && ln -sfn "$(command -v gojq)" "$LAB_JQ_SHIM/jq" && PATH="$LAB_JQ_SHIM:$PATH"
    export LAB_JQ_SHIM PATH
fi

lab_log() { printf 'lab: %s\n' "$*" >&2; }

lab_ns() { printf 'pl%s-h%s' "$LAB_ID" "$1"; }
lab_switch_ns() { printf 'pl%s-sw' "$LAB_ID"; }

lab_up() {
    local count=${1:-2} i
    [ "$(id -u)" = 0 ] || { lab_log "the lab needs root (network namespaces)"; return 1; }
    for tool in ip unshare dbus-daemon avahi-daemon; do
        command -v "$tool" >/dev/null || { lab_log "missing $tool: run 'make deps'"; return 1; }
    done
    LAB_DIR=$(mktemp -d /tmp/peerd-lab.XXXXXX)
    # A short id keeps interface names under IFNAMSIZ (15 chars). Labs
    # come up concurrently (Tests/lab/pool.sh), so the id is claimed, not
    # checked: creating the switch's namespace fails when another lab holds
    # that name, and then another id is drawn. The id comes from
    # /dev/urandom, not $RANDOM: subshells share their parent's sequence,
    # and the soak seeds it for its faults.
    local tries=0
    while :; do
        LAB_ID=$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')
        ip netns add "pl$LAB_ID-sw" 2>/dev/null && break
        tries=$((tries + 1))
        [ $tries -lt 50 ] || { lab_log "could not claim a lab id (ip netns add pl$LAB_ID-sw)"; return 1; }
    done
    export LAB_DIR LAB_ID
    trap lab_down EXIT
    trap 'exit 130' INT TERM
    # The third octet of the link-local range comes from the run id, for readability
    # in captures; the segments are isolated L2 domains anyway.
    LAB_NET=$(( (0x$LAB_ID % 250) + 1 ))
    local sw; sw=$(lab_switch_ns)
    ip -n "$sw" link add br0 type bridge mcast_snooping 0
    ip -n "$sw" link set br0 up
    for i in $(seq 1 "$count"); do lab_add_host "$i" || return 1; done
    LAB_HOSTS=$count
    export LAB_HOSTS
    lab_log "up: $count hosts, run id $LAB_ID, dir $LAB_DIR"
}

# lab_up_or_retry HOSTS: lab_up, and once more if it fails. A lab that
# could not come up (a daemon that did not start in time on a loaded
# machine; it happened once in CI, with no word of why) is the machine's
# fault, not the test's. Each failure prints lab_up's last words.
lab_up_or_retry() {
    local log; log=$(mktemp)
    if ! lab_up "$1" >/dev/null 2>"$log"; then
        echo "    lab_up failed, trying once more: $(tail -4 "$log" | tr '\n' ' ')"
        lab_down >/dev/null 2>&1
        if ! lab_up "$1" >/dev/null 2>"$log"; then
            echo "lab_up failed: $(tail -8 "$log" | tr '\n' ' ')"
            rm -f "$log"
            return 1
        fi
    fi
    rm -f "$log"
}

lab_address() { printf '169.254.%s.%s' "$LAB_NET" "$(( $1 + 10 ))"; }

lab_add_host() {
    local i=$1 ns sw dir
    ns=$(lab_ns "$i"); sw=$(lab_switch_ns); dir="$LAB_DIR/h$i"
    mkdir -p "$dir/run-avahi"
    ip netns add "$ns"
    ip link add "eth$i-$LAB_ID" netns "$ns" type veth peer name "p$i-$LAB_ID" netns "$sw"
    ip -n "$ns" link set "eth$i-$LAB_ID" name eth0
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.eth0.accept_dad=0
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$(lab_address "$i")/16" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$sw" link set "p$i-$LAB_ID" master br0
    ip -n "$sw" link set "p$i-$LAB_ID" up

    cat >"$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
CONF
    cat >"$dir/avahi.conf" <<CONF
[server]
host-name=lab$LAB_ID-h$i
domain-name=local
use-ipv4=yes
use-ipv6=yes
allow-interfaces=eth0
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
objects-per-client-max=4096
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
[reflector]
enable-reflector=no
CONF
    ip netns exec "$ns" dbus-daemon --config-file="$dir/bus.conf" --nofork --nopidfile \
        >"$dir/dbus.log" 2>&1 &
    echo $! >"$dir/dbus.pid"
    lab_wait_for 5 test -S "$dir/bus.sock" || { lab_log "host $i: dbus-daemon did not start"; cat "$dir/dbus.log" >&2; return 1; }
    lab_avahi_start "$i"
}

# Runs a command on host I, with the host's private system bus.
lab_exec() {
    local i=$1; shift
    ip netns exec "$(lab_ns "$i")" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$LAB_DIR/h$i/bus.sock" "$@"
}

# lab_spawn I LOG CMD...: starts CMD in the background on host I, output
# appended to LOG; LAB_PID is its pid. (Backgrounding a shell function would
# give the pid of a subshell, and signals would miss the real process.)
lab_spawn() {
    local i=$1 log=$2; shift 2
    ip netns exec "$(lab_ns "$i")" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$LAB_DIR/h$i/bus.sock" "$@" >>"$log" 2>&1 &
    LAB_PID=$!
}

lab_avahi_start() {
    local i=$1 dir="$LAB_DIR/h$1"
    # unshare -m gives avahi a private mount namespace, where a tmpfs hides the
    # machine's /run/avahi-daemon (pid file, socket) from every other host.
    lab_spawn "$i" "$dir/avahi.log" unshare -m sh -c "mount -t tmpfs tmpfs /run/avahi-daemon 2>/dev/null || { mkdir -p /run/avahi-daemon && mount -t tmpfs tmpfs /run/avahi-daemon; }; exec avahi-daemon --no-drop-root --no-chroot --no-rlimits -f '$dir/avahi.conf'"
    echo "$LAB_PID" >"$dir/avahi.pid"
    lab_wait_for 10 grep -q 'Server startup complete' "$dir/avahi.log" \
        || { lab_log "host $i: avahi-daemon did not start"; cat "$dir/avahi.log" >&2; return 1; }
}

lab_avahi_stop() {
    local i=$1 dir="$LAB_DIR/h$1" pid
    pid=$(cat "$dir/avahi.pid" 2>/dev/null) || return 0
    kill "$pid" 2>/dev/null
    lab_wait_for 10 sh -c "! kill -0 $pid 2>/dev/null"
    # The log is appended to across restarts; mark the boundary so the next
    # start waits for its own "startup complete".
    mv "$dir/avahi.log" "$dir/avahi.log.$(date +%s%N)"
    rm -f "$dir/avahi.pid"
}

# lab_wait_for SECONDS CMD...: polls CMD until it succeeds or the time is up.
# The first polls come 50 and 100 ms apart, then every 200 ms: most waits
# end within the first few, and a long wait (a transfer, a timeout) then
# costs a fifth of the CPU. Labs run side by side (issue 41) and a poll is a
# process or two (peerctl, jq), so polling was most of what the lab tests
# spent: 20 a second for every wait. The clock is bash's own, no process.
lab_wait_for() {
    local limit=$1; shift
    local deadline=$(( ${EPOCHREALTIME//[!0-9]/} + limit * 1000000 )) pause=0.05
    until "$@" >/dev/null 2>&1; do
        [ "${EPOCHREALTIME//[!0-9]/}" -lt "$deadline" ] || return 1
        sleep "$pause"
        case $pause in 0.05) pause=0.1 ;; 0.1) pause=0.2 ;; esac
    done
}

lab_down() {
    [ -n "${LAB_ID:-}" ] || return 0
    local ns pid
    for ns in $(ip netns list | awk '{print $1}' | grep "^pl$LAB_ID-"); do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill "$pid" 2>/dev/null; done
    done
    # The switch's namespace goes last: it is the claim on the id (lab_up),
    # and another lab may take the id as soon as it is gone.
    for ns in $(ip netns list | awk '{print $1}' | grep "^pl$LAB_ID-" | sort -t- -k2,2); do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do
            lab_wait_for 3 sh -c "! kill -0 $pid 2>/dev/null" || kill -9 "$pid" 2>/dev/null
        done
        ip netns del "$ns" 2>/dev/null
        rm -rf "/etc/netns/$ns"
    done
    if [ -n "${LAB_KEEP:-}" ]; then lab_log "kept $LAB_DIR"; else rm -rf "$LAB_DIR"; fi
    LAB_ID=
}

# lab_partition I down|up: takes host I's switch port down (a partition) or up.
lab_partition() {
    ip -n "$(lab_switch_ns)" link set "p$1-$LAB_ID" "$2"
}

# lab_subnets: routes the hosts apart. Host I leaves the shared bridge for
# a bridge of its own in the switch namespace, which routes between them:
# host I is 10.LAB_NET.I.2/24, its gateway 10.LAB_NET.I.1. Unicast crosses;
# multicast (mDNS) does not, as between two subnets of a real network.
lab_subnets() {
    local sw i; sw=$(lab_switch_ns)
    ip netns exec "$sw" sysctl -qw net.ipv4.ip_forward=1
    for i in $(seq 1 "$LAB_HOSTS"); do
        ip -n "$sw" link add "br$i" type bridge mcast_snooping 0
        ip -n "$sw" link set "p$i-$LAB_ID" nomaster
        ip -n "$sw" link set "p$i-$LAB_ID" master "br$i"
        ip -n "$sw" addr add "10.$LAB_NET.$i.1/24" dev "br$i"
        ip -n "$sw" link set "br$i" up
        ip -n "$(lab_ns "$i")" addr add "10.$LAB_NET.$i.2/24" dev eth0
        ip -n "$(lab_ns "$i")" route add default via "10.$LAB_NET.$i.1"
    done
}

# The routed address of host I once lab_subnets has run.
lab_subnet_address() { printf '10.%s.%s.2' "$LAB_NET" "$1"; }

# lab_reflector: once lab_subnets has run, an avahi-daemon on the router
# (the switch namespace) reflects mDNS between the subnets, for peerd's
# service type alone (`enable-reflector`, `reflect-filters=_peerd._tcp`):
# the zero-effort way across a router a site controls (issue 46).
lab_reflector() {
    local sw dir="$LAB_DIR/reflector" i interfaces=""
    sw=$(lab_switch_ns)
    mkdir -p "$dir"
    for i in $(seq 1 "$LAB_HOSTS"); do interfaces="$interfaces${interfaces:+,}br$i"; done
    cat >"$dir/avahi.conf" <<CONF
[server]
host-name=lab$LAB_ID-router
use-ipv4=yes
use-ipv6=no
allow-interfaces=$interfaces
enable-dbus=no
[publish]
disable-publishing=yes
[reflector]
enable-reflector=yes
reflect-filters=_peerd._tcp
CONF
    ip netns exec "$sw" unshare -m sh -c "mount -t tmpfs tmpfs /run/avahi-daemon 2>/dev/null || { mkdir -p /run/avahi-daemon && mount -t tmpfs tmpfs /run/avahi-daemon; }; exec avahi-daemon --no-drop-root --no-chroot --no-rlimits -f '$dir/avahi.conf'" \
        >"$dir/avahi.log" 2>&1 &
    echo $! >"$dir/avahi.pid"
    lab_wait_for 10 grep -q 'Server startup complete' "$dir/avahi.log" \
        || { lab_log "the router's avahi-daemon did not start"; cat "$dir/avahi.log" >&2; return 1; }
}

# lab_dns_server I [DOMAIN]: once lab_subnets has run, host I becomes the
# site's DNS server (issue 46): Knot DNS on its routed address, port 53,
# holding DOMAIN (default peers.lab) as a dynamic zone that takes updates
# signed with one TSIG key. The key is in $LAB_DIR/dns/tsig.key (Knot's
# keymgr format, mode 0600), a key with the same name and another secret in
# $LAB_DIR/dns/wrong.key. LAB_DNS is the server's address. A second
# zone, site.lab, names DOMAIN as a browse domain (b._dns-sd._udp), as a
# site's search domain would: lab_resolv points a host's resolver at it.
lab_dns_server() {
    local i=$1 domain=${2:-peers.lab} dir="$LAB_DIR/dns"
    command -v knotd >/dev/null || { lab_log "missing knotd: run 'make deps'"; return 1; }
    mkdir -p "$dir/db"
    LAB_DNS=$(lab_subnet_address "$i")
    export LAB_DNS
    keymgr -t peerd-update hmac-sha256 | grep -v '^#' >"$dir/tsig.key"
    keymgr -t peerd-update hmac-sha256 | grep -v '^#' >"$dir/wrong.key"
    chmod 600 "$dir/tsig.key" "$dir/wrong.key"
    cat >"$dir/knot.conf" <<CONF
server:
    listen: $LAB_DNS@53
    rundir: $dir
database:
    storage: $dir/db
log:
  - target: stderr
    any: info
$(cat "$dir/tsig.key")
acl:
  - id: update
    key: peerd-update
    action: update
zone:
  - domain: $domain.
    storage: $dir
    file: $domain.zone
    acl: update
  - domain: site.lab.
    storage: $dir
    file: site.lab.zone
CONF
    cat >"$dir/site.lab.zone" <<ZONE
\$ORIGIN site.lab.
\$TTL 60
@ SOA ns hostmaster 1 60 60 3600 5
@ NS ns
ns A $LAB_DNS
b._dns-sd._udp PTR $domain.
ZONE
    cat >"$dir/$domain.zone" <<ZONE
\$ORIGIN $domain.
\$TTL 60
@ SOA ns hostmaster 1 60 60 3600 5
@ NS ns
ns A $LAB_DNS
b._dns-sd._udp PTR @
lb._dns-sd._udp PTR @
ZONE
    lab_spawn "$i" "$dir/knot.log" knotd -c "$dir/knot.conf"
    echo "$LAB_PID" >"$dir/knot.pid"
    lab_wait_for 10 grep -q 'server started' "$dir/knot.log" \
        || { lab_log "knotd did not start"; cat "$dir/knot.log" >&2; return 1; }
}

# lab_resolv I SEARCH: host I's resolver (for what ip netns exec starts
# there) is the lab's DNS server, with search domain SEARCH.
lab_resolv() {
    mkdir -p "/etc/netns/$(lab_ns "$1")"
    printf 'nameserver %s\nsearch %s\n' "$LAB_DNS" "$2" >"/etc/netns/$(lab_ns "$1")/resolv.conf"
}

# lab_kdig ARGS...: kdig against the lab's DNS server, from its namespace.
lab_kdig() {
    ip netns exec "$(lab_ns "${LAB_DNS_HOST:-3}")" kdig @"$LAB_DNS" "$@"
}
