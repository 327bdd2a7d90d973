# Message channels (docs/control-protocol.md, "Message channels"; issue 13):
# length-prefixed messages through a descriptor, both ways, in order, with
# every message acknowledged; bad frames and ended sessions reset it.

bench_probe() { local i=$1; shift; lab_exec "$i" "$BIN/peerbench" probe "$@"; }

test_channel_carries_messages_in_order_both_ways() {
    two_peers
    connect_peers
    for dir in "1 2" "2 1"; do
        set -- $dir
        local from=$1 to=$2
        lab_spawn "$to" "$LAB_DIR/recv$to.out" "$BIN/peerbench" probe channel-recv "$(sock "$to")" "host$from" 20000
        lab_wait_for 5 grep -q ready "$LAB_DIR/recv$to.out" || fail "host$to's channel did not open"
        local sent; sent=$(bench_probe "$from" channel-send "$(sock "$from")" "host$to" 20000 100) || fail "channel-send from host$from failed"
        wait "$LAB_PID" || fail "channel-recv on host$to failed: $(cat "$LAB_DIR/recv$to.out")"
        local got; got=$(tail -1 "$LAB_DIR/recv$to.out")
        note "host$from -> host$to: $sent | $got"
        echo "$sent" | grep -q 'sent=20000 acknowledged=20000 state=closed' || fail "the sender's answer: $sent"
        echo "$got" | grep -q 'received=20000 inOrder=yes state=closed' || fail "the receiver's count: $got"
    done
    expect_eq "$(json 2 inbox | jq .count)" 0 "nothing went to the inbox"
}

# Issue 25, point 4: `peerctl send --lines` toward a connected peer goes
# through channels opened for sending alone: the same messages, in order,
# blank lines included; a message the peer sends meanwhile is not taken by
# the channel but waits in the inbox; without a session it stays plain.
test_send_lines_goes_through_a_sending_channel() {
    two_peers
    connect_peers
    printf 'first\n\nthird line\nfourth\n' >"$LAB_DIR/lines.txt"
    # Not UTF-8, a tab and a control byte: a pipe gets them as they were sent.
    printf 'bad \377\376 bytes\tand \001 control\n' >>"$LAB_DIR/lines.txt"
    seq 1 3000 | sed 's/^/line-/' >>"$LAB_DIR/lines.txt"
    printf '\nlast' >>"$LAB_DIR/lines.txt"
    lab_spawn 2 "$LAB_DIR/recv2.txt" "$BIN/peerctl" --socket "$(sock 2)" recv --from host1 --count 3007
    local receiver=$LAB_PID
    lab_wait_for 5 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 2)' --json status | jq .subscribers)\" -ge 2 ]" || fail "recv did not subscribe"
    # Host 2 sends to host 1 while host 1's lines go: that message must not be swallowed.
    ( sleep 0.2; ctl 2 send host1 "from host2" >/dev/null ) &
    local other=$!
    local out; out=$(ctl 1 send host2 - --lines <"$LAB_DIR/lines.txt") || fail "send --lines: $out"
    expect_eq "$out" "sent 3007 messages (25944 bytes) to 'host2'" "the sender's summary"
    grep -q "channel with 'host2': opened (sending alone)" "$LAB_DIR/h1/peerd.log" || fail "send --lines did not take a channel"
    lab_wait_for 20 sh -c "! kill -0 $receiver 2>/dev/null" || fail "recv got $(wc -l <"$LAB_DIR/recv2.txt") of 3007"
    printf '%s\n' "$(cat "$LAB_DIR/lines.txt")" | cmp -s - "$LAB_DIR/recv2.txt" || fail "the lines differ: $(diff <(cat "$LAB_DIR/lines.txt"; echo) "$LAB_DIR/recv2.txt" | head -5)"
    wait "$other" || fail "host2's send failed"
    lab_wait_for 5 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 1)' --json inbox | jq .count)\" = 1 ]" || fail "host2's message is not in host1's inbox"
    expect_eq "$(ctl 1 take)" "from host2" "the message the peer sent meanwhile"
}

test_channel_bad_frames_and_limits() {
    two_peers
    ctl 1 disconnect host2 >/dev/null 2>&1
    local out
    out=$(bench_probe 1 channel-raw "$(sock 1)" host2 00000001ff 2>&1) && fail "a channel without a session: $out"
    echo "$out" | grep -q notConnected || fail "no session: expected notConnected, got: $out"
    connect_peers
    out=$(bench_probe 1 channel-raw "$(sock 1)" host2 0000000568656c6c6f00000000) || fail "channel-raw failed: $out"
    note "$out"
    echo "$out" | grep -q 'state=reset sent=1 detail=a_message_of_length_0' || fail "a zero length: $out"
    out=$(bench_probe 1 channel-raw "$(sock 1)" host2 7fffffff) || fail "channel-raw failed: $out"
    echo "$out" | grep -q 'state=reset sent=0 detail=.*over_the_largest' || fail "a huge length: $out"
    # One channel per peer: a second is busy while the first is open.
    lab_spawn 2 "$LAB_DIR/hold.out" "$BIN/peerbench" probe channel-recv "$(sock 2)" host1 1
    lab_wait_for 5 grep -q ready "$LAB_DIR/hold.out" || fail "the first channel did not open"
    local holder=$LAB_PID
    out=$(bench_probe 2 channel-raw "$(sock 2)" host1 00 2>&1) && fail "a second channel: $out"
    echo "$out" | grep -q busy || fail "a second channel: expected busy, got: $out"
    # The session ends: the open channel is reset, and its client told.
    ctl 1 disconnect host2 >/dev/null
    wait "$holder"
    grep -q 'state=reset' "$LAB_DIR/hold.out" || fail "the channel was not reset with the session: $(cat "$LAB_DIR/hold.out")"
}
