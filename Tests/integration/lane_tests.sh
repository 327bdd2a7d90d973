# The bulk lane, issue 44 (sourced by run.sh): file and stream bytes on a
# connection of their own beside the session (docs/protocol.md §12).

# bulk_row I NAME: the "bulk" line of host I's `peerctl peer NAME`.
bulk_row() { ctl "$1" peer "$2" | awk '$1 == "bulk" { $1 = ""; sub(/^ +/, ""); print }'; }
bulk_path_is() { [ "$(bulk_row "$1" "$2" | awk '{print $1}')" = "$3" ]; }

# A lane comes up between two hosts of this release, both ways, and a
# file crosses whole on it: the session's connection carries none of its
# bytes (its received-bytes count in /proc stays small).
test_files_cross_on_the_lane_and_peer_says_so() {
    paired_peers
    lab_wait_for 10 bulk_path_is 1 host2 lane || fail "host1's bulk toward host2: $(bulk_row 1 host2)"
    lab_wait_for 10 bulk_path_is 2 host1 lane || fail "host2's bulk toward host1: $(bulk_row 2 host1)"
    local lane; lane=$(status_field 2 .lanePort)
    [ "$lane" -gt 0 ] || fail "host2's status has no lane port: $(json 2 status)"
    head -c $((32 << 20)) /dev/urandom >"$LAB_DIR/lane.bin"
    ctl 2 transfers >/dev/null
    lab_exec 1 timeout 60 "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$LAB_DIR/lane.bin" >"$LAB_DIR/send.out" 2>&1 || fail "send-file: $(cat "$LAB_DIR/send.out")"
    lab_wait_for 10 test -f "$LAB_DIR/h2/state/downloads/host1/lane.bin" || fail "the file did not land"
    expect_eq "$(sha256sum <"$LAB_DIR/h2/state/downloads/host1/lane.bin")" "$(sha256sum <"$LAB_DIR/lane.bin")" "the file's hash"
    # The bytes came in on the lane, not the session: host2's socket on
    # the lane took them (ss's bytes_received).
    # Whichever side offered, the lane runs to one of the two lane ports.
    local other; other=$(status_field 1 .lanePort)
    local on_lane; on_lane=$(lab_exec 2 ss -tinH "( sport = :$lane or dport = :$other )" | grep -o 'bytes_received:[0-9]*' | cut -d: -f2 | sort -n | tail -1)
    [ "${on_lane:-0}" -ge $((32 << 20)) ] || fail "the lane took ${on_lane:-0} bytes of 32 MiB: $(lab_exec 2 ss -tinH)"
    ctl 1 doctor host2 >"$LAB_DIR/doctor.out" 2>&1
    grep -q "files and streams with 'host2' go on a lane of their own" "$LAB_DIR/doctor.out" || fail "doctor: $(cat "$LAB_DIR/doctor.out")"
    # Feature sha256-blocks: on a CPU with SHA-256 instructions both hosts
    # announce it, so the file's blocks and file hash above were SHA-256
    # (protocol.md §8); elsewhere neither does, and they were BLAKE2b-256.
    local announced; announced=$(json 1 peer host2 | jq -r '.features | index("sha256-blocks") != null')
    if grep -qw -e sha_ni -e sha2 /proc/cpuinfo; then expect_eq "$announced" true "host2 announces sha256-blocks"
    else expect_eq "$announced" false "host2 announces sha256-blocks"; fi
}

# A firewall on host2 that lets only the session port through (nftables,
# before the session): the lane cannot be opened, bulk falls back to the
# session within 5 s on both sides, a file still crosses whole, and
# `peer` and `doctor` say why and which port to let through.
test_a_blocked_lane_falls_back_to_the_session_and_says_why() {
    two_peers
    local port lane1 lane2; port=$(status_field 2 .port); lane1=$(status_field 1 .lanePort); lane2=$(status_field 2 .lanePort)
    # Each host drops its own lane port: whichever side offers, the
    # other's dial goes unanswered (the session's initiator dials).
    local i lane
    for i in 1 2; do
        lane=$lane1; [ "$i" = 2 ] && lane=$lane2
        lab_exec "$i" nft add table inet filter
        lab_exec "$i" nft add chain inet filter input '{ type filter hook input priority 0; policy accept; }'
        lab_exec "$i" nft add rule inet filter input tcp dport "$lane" drop
    done
    pair_hosts 1 2
    lab_wait_for 10 state_is 1 host2 connected || fail "the paired peers did not connect"
    lab_wait_for 10 bulk_path_is 1 host2 session || fail "host1's bulk did not fall back: $(bulk_row 1 host2)"
    lab_wait_for 10 bulk_path_is 2 host1 session || fail "host2's bulk did not fall back: $(bulk_row 2 host1)"
    bulk_row 1 host2 | grep -q "did not come up within 5 s" || fail "host1's reason: $(bulk_row 1 host2)"
    head -c $((8 << 20)) /dev/urandom >"$LAB_DIR/fallback.bin"
    lab_exec 1 timeout 60 "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$LAB_DIR/fallback.bin" >"$LAB_DIR/send.out" 2>&1 || fail "send-file: $(cat "$LAB_DIR/send.out")"
    lab_wait_for 10 test -f "$LAB_DIR/h2/state/downloads/host1/fallback.bin" || fail "the file did not land"
    expect_eq "$(sha256sum <"$LAB_DIR/h2/state/downloads/host1/fallback.bin")" "$(sha256sum <"$LAB_DIR/fallback.bin")" "the file's hash"
    ctl 1 doctor host2 >"$LAB_DIR/doctor.out" 2>&1
    grep -q "go on the session's own connection: .*did not come up within 5 s" "$LAB_DIR/doctor.out" || fail "doctor: $(cat "$LAB_DIR/doctor.out")"
    # The fix names the port that was dropped: the peer's when host1
    # dialled, host1's own when it offered.
    grep -Eq "let TCP port ($lane2 on 'host2'|$lane1 on this host)" "$LAB_DIR/doctor.out" || fail "doctor's fix: $(grep -A3 bulk "$LAB_DIR/doctor.out")"
    expect_eq "$(peer_state 1 host2)" connected "the session after it all"
    [ "$port" != "$lane2" ] || fail "the lane port is the session port"
}

# Lanes off on one host (--lane-port off): it offers port 0, and both
# sides keep bulk on the session at once, saying so.
test_lanes_off_on_one_host_keep_bulk_on_the_session() {
    start_peerd 1
    start_peerd 2 --lane-port off
    lab_wait_for 5 sees 1 host2 || fail "host1 did not see host2"
    lab_wait_for 5 sees 2 host1 || fail "host2 did not see host1"
    connect_peers
    lab_wait_for 5 bulk_path_is 1 host2 session || fail "host1: $(bulk_row 1 host2)"
    bulk_row 1 host2 | grep -q "the peer offered no lane" || fail "host1's reason: $(bulk_row 1 host2)"
    bulk_row 2 host1 | grep -q "lanes are off here" || fail "host2's reason: $(bulk_row 2 host1)"
    status_field 2 .laneError | grep -q "lane-port = off" || fail "host2's status: $(json 2 status)"
}
