#!/usr/bin/env bash
# Bulk throughput in the lab (issue 12, point 8), side by side in one run:
# iperf3 (raw TCP), scp, peerd's send-file and pipe, all between the same
# two namespaces, 1 GiB each (BENCH_MIB to change). Needs iperf3 and
# openssh-server (make bench-deps); a release build is measured by default.
#
#   Tests/integration/bulk_bench.sh [RUNS]
#
# Prints one line per tool: the best and median of RUNS runs in MiB/s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${PEERD_BIN:-$ROOT/.build/release}
BIN=$(cd "$BIN" && pwd) || exit 1
RUNS=${1:-3}
MIB=${BENCH_MIB:-1024}
. "$HERE/../lab/lab.sh"
. "$HERE/helpers.sh"
. "$HERE/session_tests.sh"
. "$HERE/pairing_tests.sh"
for tool in iperf3 sshd scp; do command -v $tool >/dev/null || { echo "missing $tool: apt-get install iperf3 openssh-server"; exit 1; }; done

lab_up 2 >/dev/null 2>&1 || { echo "lab_up failed"; exit 1; }
src="$LAB_DIR/src.bin"
head -c $((MIB << 20)) /dev/urandom >"$src"
start_peerd 1 --log-level notice
start_peerd 2 --log-level notice --download-dir "$LAB_DIR/dl"
lab_wait_for 5 sees 1 host2 || fail "host1 did not see host2"
pair_hosts 1 2
lab_wait_for 10 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 1)' --json peers | jq -r '.peers[] | select(.name == \"host2\") | .state')\" = connected ]" || fail "not connected"
addr2=$(lab_address 2)

# sshd on host2, root by key only, its own host key.
ssh-keygen -q -t ed25519 -N '' -f "$LAB_DIR/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$LAB_DIR/userkey"
mkdir -p "$LAB_DIR/ssh"; cp "$LAB_DIR/userkey.pub" "$LAB_DIR/ssh/authorized_keys"
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
mkdir -p /run/sshd
lab_spawn 2 "$LAB_DIR/sshd.log" /usr/sbin/sshd -D -e -f "$LAB_DIR/sshd_config"
lab_spawn 2 "$LAB_DIR/iperf.log" iperf3 -s
sleep 1

now() { date +%s.%N; }
rate() { awk -v s="$1" -v e="$2" -v m="$MIB" 'BEGIN { printf "%.0f", m / (e - s) }'; }
report() { # NAME RATES...
    local name=$1; shift
    printf '%s\n' "$@" | sort -n | awk -v n="$name" '{ r[NR] = $1 } END { printf "%-10s best %5d MiB/s  median %5d MiB/s  (%d runs)\n", n, r[NR], r[int((NR + 1) / 2)], NR }'
}

iperf=(); scp_r=(); send=(); pipe_r=()
for run in $(seq "$RUNS"); do
    bps=$(lab_exec 1 iperf3 -c "$addr2" -t 5 -J | jq '.end.sum_received.bits_per_second')
    iperf+=("$(awk -v b="$bps" 'BEGIN { printf "%.0f", b / 8 / 1048576 }')")

    rm -f "$LAB_DIR/scp.bin"
    s=$(now)
    lab_exec 1 scp -q -P 2222 -o LogLevel=ERROR -i "$LAB_DIR/userkey" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        "$src" "root@$addr2:$LAB_DIR/scp.bin" || { tail -5 "$LAB_DIR/sshd.log"; fail "scp failed"; }
    e=$(now); scp_r+=("$(rate "$s" "$e")")

    rm -rf "$LAB_DIR/dl"
    s=$(now)
    lab_exec 1 "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$src" >"$LAB_DIR/send.out" 2>&1 || fail "send-file failed: $(cat "$LAB_DIR/send.out")"
    e=$(now); send+=("$(rate "$s" "$e")")
    cmp -s "$src" "$LAB_DIR/dl/host1/src.bin" || fail "send-file: the copy differs"

    lab_spawn 2 "$LAB_DIR/pipe2.log" sh -c "'$BIN/peerctl' --socket '$(sock 2)' pipe host1 --name bench </dev/null >/dev/null"
    p2=$LAB_PID
    s=$(now)
    lab_exec 1 sh -c "'$BIN/peerctl' --socket '$(sock 1)' pipe host2 --name bench <'$src' >/dev/null" || fail "pipe failed"
    wait "$p2" || fail "the receiving pipe failed"
    e=$(now); pipe_r+=("$(rate "$s" "$e")")
done
echo "$MIB MiB between two lab namespaces (veth through a bridge), $(nproc) cores, $(uname -r)"
report iperf3 "${iperf[@]}"
report scp "${scp_r[@]}"
report send-file "${send[@]}"
report pipe "${pipe_r[@]}"
