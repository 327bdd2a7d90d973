# Pairing and trust tests (sourced by run.sh).

# pair_hosts A B [SELECTOR]: A pairs with B (named SELECTOR on A, hostB by
# default); B's user types the code A shows. Sets PAIR_CODE.
pair_hosts() {
    local a=$1 b=$2
    [ "$(status_field "$b" .subscribers)" -gt 0 ] || watch_on "$b" "$LAB_DIR/pair-w$b.jsonl"
    : >"$LAB_DIR/pair.out"   # emptied before the child opens it: a poll must
    # never read the code of the pairing before (issue 41)
    ctl "$a" pair "${3:-host$b}" >"$LAB_DIR/pair.out" 2>&1 &
    local pairer=$!
    lab_wait_for 10 grep -Eq 'Pairing code: [0-9]{6}' "$LAB_DIR/pair.out" || { cat "$LAB_DIR/pair.out" >&2; fail "host$a showed no code"; }
    PAIR_CODE=$(grep -o 'Pairing code: [0-9]*' "$LAB_DIR/pair.out" | awk '{print $3}')
    lab_wait_for 15 sh -c "'$BIN/peerctl' --socket '$(sock "$b")' --json pairings | jq -en 'input | .pairings[0].awaitingCode // empty'" >/dev/null \
        || fail "host$b has no pairing request waiting for a code: $(json "$b" pairings)"
    local id; id=$(json "$b" pairings | jq -r '.pairings[0].id')
    # Passkey entry (issue 21, point 2): the responder never shows a code;
    # its user types the one host A shows.
    expect_eq "$(json "$b" pairings | jq -r '.pairings[0].code')" null "a code shown on the responder"
    ctl "$b" pair-accept "$id" --code "$PAIR_CODE" >/dev/null || fail "pair-accept with the right code failed"
    wait "$pairer" || { cat "$LAB_DIR/pair.out" >&2; fail "pair did not report paired"; }
}

# begin_pairing: host1 asks to pair with host2 (output in pair.out, pid in
# PAIRER), host1 shows its code (in CODE1) and host2's request waits for it.
# The code comes from host1's output, never from host2: only the initiator
# shows one (passkey entry).
begin_pairing() {
    : >"$LAB_DIR/pair.out"
    ctl 1 pair host2 >"$LAB_DIR/pair.out" 2>&1 &
    PAIRER=$!
    lab_wait_for 10 sh -c "'$BIN/peerctl' --socket '$(sock 2)' --json pairings | jq -en 'input | .pairings[0].awaitingCode // empty'" >/dev/null \
        || return 1
    lab_wait_for 10 grep -Eq 'Pairing code: [0-9]{6}' "$LAB_DIR/pair.out" || return 1
    CODE1=$(grep -o 'Pairing code: [0-9]*' "$LAB_DIR/pair.out" | awk '{print $3}')
}

test_pairing_with_the_right_code() {
    two_peers
    pair_hosts 1 2
    expect_eq "$(peer_field 1 host2 .paired)" true "host2 paired on host1"
    expect_eq "$(peer_field 2 host1 .paired)" true "host1 paired on host2"
    expect_eq "$(json 1 paired | jq -r '.peers[0].peerId')" "$(status_field 2 .peerId)" "trusted id on host1"
    expect_eq "$(json 2 paired | jq -r '.peers[0].uuid | ascii_downcase')" "$(peer_field 2 host1 .id | tr 'A-Z' 'a-z')" "stored UUID"
    expect_eq "$(stat -c %a "$LAB_DIR/h1/state/trust.json")" 600 "trust store mode"
    expect_eq "$(jq .version "$LAB_DIR/h1/state/trust.json")" 1 "trust store version"
    expect_eq "$(jq -r '.peers[0].publicKey | length' "$LAB_DIR/h2/state/trust.json")" 64 "full public key stored"
    ctl 1 peers | grep -q PAIRED || fail "peers has no PAIRED column"
}

test_pairing_with_a_wrong_code_fails_and_locks_out_after_three() {
    two_peers
    watch_on 2 "$LAB_DIR/w2.jsonl"
    local attempt
    for attempt in 1 2 3; do
        : >"$LAB_DIR/pair.out"
        ctl 1 pair host2 >"$LAB_DIR/pair.out" 2>&1 &
        local pairer=$!
        lab_wait_for 10 grep -Eq 'Pairing code: [0-9]{6}' "$LAB_DIR/pair.out" || fail "attempt $attempt: no code"
        local code wrong id; code=$(grep -o 'Pairing code: [0-9]*' "$LAB_DIR/pair.out" | awk '{print $3}')
        wrong=$(printf '%06d' $(( (10#$code + 1) % 1000000 )))
        lab_wait_for 5 sh -c "'$BIN/peerctl' --socket '$(sock 2)' --json pairings | jq -en 'input | .pairings | length == 1'" || fail "attempt $attempt: no request on host2"
        id=$(json 2 pairings | jq -r '.pairings[0].id')
        ctl 2 pair-accept "$id" --code "$wrong" >/dev/null 2>&1; expect_eq $? 1 "pair-accept exit code with a wrong code"
        wait "$pairer"; expect_eq $? 1 "pair exit code after a wrong code"
        grep -q wrongCode "$LAB_DIR/pair.out" || fail "the initiator was not told wrongCode"
        expect_eq "$(json 1 paired | jq '.peers | length')" 0 "trusted peers on host1"
        expect_eq "$(json 2 paired | jq '.peers | length')" 0 "trusted peers on host2"
    done
    ctl 1 pair host2 >"$LAB_DIR/pair.out" 2>&1; expect_eq $? 1 "pairing while locked out"
    grep -q lockedOut "$LAB_DIR/pair.out" || fail "a fourth request was not refused as lockedOut: $(cat "$LAB_DIR/pair.out")"
}

test_pairing_times_out() {
    start_peerd 1 --pairing-timeout 5
    start_peerd 2 --pairing-timeout 5
    lab_wait_for 5 sees 1 host2 || fail "host1 did not see host2"
    watch_on 2 "$LAB_DIR/w2.jsonl"
    local start; start=$(date +%s)
    ctl 1 pair host2 >"$LAB_DIR/pair.out" 2>&1; expect_eq $? 1 "pair exit code on timeout"
    grep -q timedOut "$LAB_DIR/pair.out" || fail "not timedOut: $(cat "$LAB_DIR/pair.out")"
    [ $(( $(date +%s) - start )) -ge 4 ] || fail "gave up before the timeout"
    lab_wait_for 5 sh -c "grep -q '\"pairingFailure\":\"timedOut\"' '$LAB_DIR/w2.jsonl'" || fail "host2 did not time out"
    expect_eq "$(json 2 pairings | jq '.pairings | length')" 0 "pairings left on host2"
}

# Both daemons restarted: paired peers reconnect without asking and keep their UUIDs.
test_paired_peers_reconnect_after_restarts_and_keep_uuids() {
    two_peers
    pair_hosts 1 2
    local id1 id2; id1=$(peer_field 2 host1 .id); id2=$(peer_field 1 host2 .id)
    ctl 1 disconnect host2 >/dev/null
    stop_peerd 1 TERM
    stop_peerd 2 TERM
    start_peerd 1
    start_peerd 2
    # Nobody is subscribed to decide: the paired policy accepts by itself.
    lab_wait_for 15 state_is 1 host2 connected || fail "host1 did not reconnect to host2 by itself"
    lab_wait_for 5 state_is 2 host1 connected || fail "host2 is not connected to host1"
    expect_eq "$(peer_field 1 host2 .id)" "$id2" "host2's UUID on host1 after restarts"
    expect_eq "$(peer_field 2 host1 .id)" "$id1" "host1's UUID on host2 after restarts"
    expect_eq "$(status_field 1 .sessions)" 1 "one session"
}

test_unpair_removes_trust_on_both_sides() {
    two_peers
    pair_hosts 1 2
    # The pairing's own session has ended; unpair travels on the paired session that follows.
    lab_wait_for 10 state_is 1 host2 connected || fail "the paired peers did not reconnect after pairing"
    ctl 1 unpair host2 >/dev/null || fail "unpair failed"
    expect_eq "$(peer_field 1 host2 .paired)" false "host2 on host1 after unpair"
    lab_wait_for 5 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 2)' --json peers | jq -r '.peers[] | select(.name == \"host1\") | .paired')\" = false ]" \
        || fail "host2 still trusts host1"
    expect_eq "$(json 2 paired | jq '.peers | length')" 0 "host2's trust store"
    lab_wait_for 5 state_is 1 host2 notConnected || fail "the session survived unpair"
}

# A rogue claims a paired peer's name and id with another key: refused both
# when dialled and when it invites.
test_three_hosts_rogue_claiming_a_paired_peer_is_refused() {
    start_peerd 2
    start_peerd 3
    lab_wait_for 5 sees 3 host2 || fail "host3 did not see host2"
    lab_wait_for 5 sees 2 host3 || fail "host2 did not see host3"
    # Pair host3 with host2.
    [ "$(status_field 2 .subscribers)" -gt 0 ] || watch_on 2 "$LAB_DIR/pw2.jsonl"
    : >"$LAB_DIR/pair.out"
    ctl 3 pair host2 >"$LAB_DIR/pair.out" 2>&1 & local pairer=$!
    lab_wait_for 10 grep -Eq 'Pairing code: [0-9]{6}' "$LAB_DIR/pair.out" || fail "no code"
    local code; code=$(grep -o 'Pairing code: [0-9]*' "$LAB_DIR/pair.out" | awk '{print $3}')
    lab_wait_for 5 sh -c "'$BIN/peerctl' --socket '$(sock 2)' --json pairings | jq -en 'input | .pairings | length == 1'" || fail "no request"
    ctl 2 pair-accept "$(json 2 pairings | jq -r '.pairings[0].id')" --code "$code" >/dev/null || fail "pairing failed"
    wait "$pairer" || fail "pair did not finish"
    local real_id uuid; real_id=$(status_field 2 .peerId); uuid=$(peer_field 3 host2 .id)
    cp "$LAB_DIR/h3/state/trust.json" "$LAB_DIR/trust-before.json"
    ctl 3 disconnect host2 >/dev/null
    stop_peerd 2 TERM
    lab_wait_for 5 sees_lost 3 host2 || fail "host3 did not see host2 leave"
    # The rogue: its own key, host2's name, and host2's id in its advertisement.
    start_peerd 1 --name host2-rogue
    watch_on 3 "$LAB_DIR/w3.jsonl"
    lab_spawn 1 "$LAB_DIR/h1/publish.log" avahi-publish -s host2 _peerd._tcp "$(status_field 1 .port)" txtvers=1 "id=$real_id"
    local publisher=$LAB_PID
    lab_wait_for 15 sh -c "grep -q identityMismatch '$LAB_DIR/w3.jsonl'" || fail "host3 did not refuse the rogue's endpoint"
    expect_eq "$(jq -r 'select(.type == "identityMismatch") | .mismatch.actual' "$LAB_DIR/w3.jsonl" | head -1)" "$(status_field 1 .peerId)" "the rogue's id"
    grep -q "identity mismatch at .*proved $(status_field 1 .peerId)" "$LAB_DIR/h3/peerd.log" || fail "host3 did not log the dialled mismatch"
    # The rogue invites host3 under the paired name (the spoofed advertisement
    # is withdrawn first, so the name "host2" is free for it).
    kill "$publisher"
    lab_wait_for 10 sh -c "'$BIN/peerctl' --socket '$(sock 3)' --json peers | jq -en 'input | [.peers[] | select(.name == \"host2\" and .lost == false)] | length == 0'" \
        || fail "the spoofed advertisement did not go away"
    lab_spawn 1 "$LAB_DIR/h1/peerd2.log" "$BIN/peerd" --name host2 --state-dir "$LAB_DIR/h1/state2" --socket "$LAB_DIR/h1/rogue2.sock" --port 0
    lab_wait_for 10 "$BIN/peerctl" --socket "$LAB_DIR/h1/rogue2.sock" status || fail "second rogue did not start"
    lab_wait_for 10 sh -c "'$BIN/peerctl' --socket '$LAB_DIR/h1/rogue2.sock' --json peers | grep -q host3" || fail "rogue does not see host3"
    expect_eq "$("$BIN/peerctl" --socket "$LAB_DIR/h1/rogue2.sock" --json status | jq -r .name)" host2 "the rogue's name"
    "$BIN/peerctl" --socket "$LAB_DIR/h1/rogue2.sock" invite host3 --wait >/dev/null 2>&1 && fail "host3 accepted the rogue"
    lab_wait_for 5 grep -q "claims a paired peer's identity" "$LAB_DIR/h3/peerd.log" || fail "host3 did not refuse the rogue's invitation under the paired name"
    cmp -s "$LAB_DIR/trust-before.json" "$LAB_DIR/h3/state/trust.json" || fail "host3's trust store changed"
    expect_eq "$(peer_field 3 host2 .id)" "$uuid" "host2's UUID on host3"
    expect_eq "$(json 3 peers | jq -r ".peers[] | select(.id == \"$uuid\") | .state")" notConnected "the real host2's state"
}

# A partition of 20 s: the session is lost, messages queued meanwhile
# survive a restart of the sender, and after the heal the peers reconnect
# within 5 s and the messages arrive in order.
# lab: long (it waits out a partition: 26 s alone)
test_partition_heals_and_queued_messages_arrive_in_order() {
    two_peers
    pair_hosts 1 2
    lab_wait_for 5 state_is 1 host2 connected || fail "not connected after pairing"
    lab_spawn 2 "$LAB_DIR/recv2.txt" "$BIN/peerctl" --socket "$(sock 2)" recv --from host1 --count 8
    lab_wait_for 5 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 2)' --json status | jq .subscribers)\" -ge 2 ]" || fail "recv did not subscribe"
    local start; start=$(date +%s)
    lab_partition 2 down
    # Sent while the session still looks alive: they go out, are never
    # acknowledged, and so stay on disk for the next session.
    local n
    for n in 1 2; do ctl 1 send --queue host2 "early $n" >/dev/null || fail "send --queue early $n"; done
    expect_eq "$(peer_state 1 host2)" connected "state right after the partition"
    lab_wait_for 20 state_is 1 host2 notConnected || { lab_partition 2 up; fail "host1 did not notice the partition"; }
    for n in 1 2 3; do ctl 1 send --queue host2 "queued $n" >/dev/null || fail "send --queue $n"; done
    expect_eq "$(json 1 queue | jq '.queues[0].messages')" 5 "messages queued on host1"
    # The sender's daemon restarts while the peer is away: the queue survives.
    stop_peerd 1 TERM
    start_peerd 1
    expect_eq "$(json 1 queue | jq '.queues[0].messages')" 5 "messages queued after a restart"
    for n in 4 5 6; do ctl 1 send --queue host2 "queued $n" >/dev/null || fail "send --queue $n"; done
    lab_wait_for 25 sh -c "[ \$(( \$(date +%s) - $start )) -ge 20 ]"
    lab_partition 2 up
    local healed; healed=$(date +%s)
    # host2 sees its link come back (netlink) and dials at once, abandoning
    # any dial whose SYNs went into the void; host1 accepts.
    lab_wait_for 5 state_is 1 host2 connected || fail "no reconnection within 5 s of the heal"
    note "reconnected $(( $(date +%s) - healed ))s after the heal"; date +%T.%N >"$LAB_DIR/healed-at"
    lab_wait_for 3 grep -q "a link or address came up" "$LAB_DIR/h2/peerd.log" || fail "host2 did not notice its link come back"
    lab_wait_for 10 sh -c "[ \$(wc -l <'$LAB_DIR/recv2.txt') -ge 8 ]" || fail "queued messages missing: $(cat "$LAB_DIR/recv2.txt")"
    expect_eq "$(tr '\n' ',' <"$LAB_DIR/recv2.txt")" "early 1,early 2,queued 1,queued 2,queued 3,queued 4,queued 5,queued 6," "queued messages in order"
    lab_wait_for 5 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 1)' --json queue | jq '.queues | length')\" = 0 ]" || fail "the queue was not emptied by acknowledgements"
}

# peerd SIGKILLed 50 times in the middle of trust-store writes: the store
# always loads, and no completed pairing is lost.
# lab: long (50 daemons killed and started again, each start waited for: 35 s alone, up to 85 s beside others)
test_trust_store_survives_50_sigkills_during_writes() {
    # Pairing invitations count toward the invitation rate: 50 rounds need more than 30 a minute.
    two_peers --invitation-rate 600
    watch_on 2 "$LAB_DIR/w2.jsonl"
    local round delay completed kept=0 confirmed=0
    for round in $(seq 1 50); do
        begin_pairing || fail "round $round: no pairing request on host2"
        local pairer=$PAIRER
        local id code; id=$(json 2 pairings | jq -r '.pairings[0].id'); code=$CODE1
        # Kill host1 at a random moment around host2's confirmation, which makes
        # host1 write its trust store.
        ctl 2 pair-accept "$id" --code "$code" >/dev/null 2>&1 &
        local accepter=$!
        delay=$(( RANDOM % 40 ))
        sleep "0.0$(printf '%02d' "$delay")"
        stop_peerd 1 KILL
        wait "$pairer" 2>/dev/null
        wait "$accepter"; completed=$?
        start_peerd 1 || fail "round $round: peerd did not start over its trust store"
        jq -e '.version == 1' "$LAB_DIR/h1/state/trust.json" >/dev/null 2>&1 || [ ! -e "$LAB_DIR/h1/state/trust.json" ] \
            || fail "round $round: the trust store does not parse"
        [ "$completed" = 0 ] && confirmed=$((confirmed + 1))
        if grep -q 'paired with' "$LAB_DIR/pair.out" 2>/dev/null; then
            expect_eq "$(json 1 paired | jq '.peers | length')" 1 "round $round: a completed pairing"
        fi
        [ "$(json 1 paired | jq '.peers | length')" = 1 ] && kept=$((kept + 1))
        # Reset for the next round: forget the pairing on both sides.
        if [ "$(json 2 paired | jq '.peers | length')" = 1 ]; then ctl 2 unpair host1 >/dev/null 2>&1; fi
        lab_wait_for 5 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 2)' --json paired | jq '.peers | length')\" = 0 ]" || fail "round $round: host2 still paired"
        if [ "$(json 1 paired | jq '.peers | length')" = 1 ]; then ctl 1 unpair host2 >/dev/null 2>&1; fi
        lab_wait_for 10 sees 1 host2 || fail "round $round: host1 lost sight of host2"
    done
    note "host2 confirmed $confirmed of 50 pairings; host1 had stored $kept when killed"
    [ "$confirmed" -ge 10 ] || fail "too few pairings reached confirmation for the test to mean anything"
}

# mDNS does not show the paired peer (its avahi-daemon is gone, as when a
# flood fills Avahi's cache): its last known addresses still reach it.
test_paired_peer_reached_at_last_known_addresses_without_mdns() {
    two_peers
    pair_hosts 1 2
    lab_wait_for 5 state_is 1 host2 connected || fail "not connected"
    lab_wait_for 5 sh -c "jq -e '.peers[0].addresses | length > 0' '$LAB_DIR/h1/state/trust.json'" >/dev/null || fail "no addresses remembered"
    stop_peerd 1 TERM
    # host2 comes back without avahi-daemon and without dialling by itself
    # (on its old port, kept in its state directory), so host1 must dial it.
    stop_peerd 2 TERM
    lab_avahi_stop 2
    start_peerd 2 --auto-connect no
    # Wait until host1's avahi-daemon has dropped host2's records (goodbyes).
    lab_wait_for 10 sh -c "! ip netns exec $(lab_ns 1) env DBUS_SYSTEM_BUS_ADDRESS=unix:path=$LAB_DIR/h1/bus.sock avahi-browse -tp _peerd._tcp 2>/dev/null | grep -q host2" \
        || fail "host1's avahi-daemon still shows host2"
    start_peerd 1
    expect_eq "$(peer_field 1 host2 '.endpoints | length')" 0 "host2's endpoints from mDNS"
    lab_wait_for 10 state_is 1 host2 connected || fail "host1 did not reach host2 at its last known addresses"
    grep -q "at its last known addresses" "$LAB_DIR/h1/peerd.log" || fail "the log does not say how it connected"
}

# pair-accept without --code: on a terminal it asks for the code shown on
# the other host (and shows none of its own); elsewhere it is a usage error.
test_pair_accept_interactively_on_a_terminal() {
    two_peers
    watch_on 2 "$LAB_DIR/w2.jsonl"
    begin_pairing || fail "no request"
    local pairer=$PAIRER
    local id code; id=$(json 2 pairings | jq -r '.pairings[0].id'); code=$CODE1
    ctl 2 pair-accept "$id" </dev/null >/dev/null 2>"$LAB_DIR/noninteractive.err"; expect_eq $? 2 "exit code without --code off a terminal"
    grep -q -- "--code" "$LAB_DIR/noninteractive.err" || fail "the error does not mention --code"
    echo "$code" | script -qec "'$BIN/peerctl' --socket '$(sock 2)' pair-accept $id" /dev/null >"$LAB_DIR/tty.out" 2>&1
    grep -q "Type the 6-digit code shown on 'host1'" "$LAB_DIR/tty.out" || fail "the prompt did not ask for host1's code: $(cat "$LAB_DIR/tty.out")"
    ! grep -q "code here" "$LAB_DIR/tty.out" || fail "the responder showed a code of its own"
    grep -q "paired with 'host1'" "$LAB_DIR/tty.out" || fail "the interactive accept did not pair: $(cat "$LAB_DIR/tty.out")"
    wait "$pairer" || fail "pair did not finish"
    expect_eq "$(peer_field 1 host2 .paired)" true "paired after the interactive yes"
}

test_pair_reject_ends_the_pairing_on_both_sides() {
    two_peers
    watch_on 2 "$LAB_DIR/w2.jsonl"
    begin_pairing || fail "no request"
    local pairer=$PAIRER
    ctl 2 pair-reject "$(json 2 pairings | jq -r '.pairings[0].id')" >/dev/null || fail "pair-reject failed"
    wait "$pairer"; expect_eq $? 1 "pair exit code after a rejection"
    grep -q rejected "$LAB_DIR/pair.out" || fail "the initiator was not told: $(cat "$LAB_DIR/pair.out")"
    expect_eq "$(json 1 paired | jq '.peers | length')" 0 "trust on host1"
    expect_eq "$(json 2 paired | jq '.peers | length')" 0 "trust on host2"
    expect_eq "$(json 2 pairings | jq '.pairings | length')" 0 "pairings left on host2"
}

# --auto-accept none: even a paired peer's invitation waits for a client's
# decision (the default, paired, accepts it by itself).
test_auto_accept_none_asks_even_for_paired_peers() {
    two_peers
    pair_hosts 1 2
    lab_wait_for 5 state_is 1 host2 connected || fail "not connected after pairing"
    stop_peerd 2 TERM
    start_peerd 2 --auto-accept none --auto-connect no
    lab_wait_for 10 state_is 1 host2 notConnected || fail "host1 did not see host2's session end"
    watch_on 2 "$LAB_DIR/w2-none.jsonl"
    ctl 1 invite host2 >/dev/null || fail "invite failed"
    lab_wait_for 10 has_invitation 2 || fail "host2 did not ask about a paired peer's invitation under --auto-accept none"
    expect_eq "$(peer_state 2 host1)" connecting "host2 waits for a decision"
    ctl 2 accept "$(pending_invitation 2)" >/dev/null || fail "accept failed"
    lab_wait_for 5 state_is 1 host2 connected || fail "not connected after the decision"
}

# A corrupt trust store stops peerd with a clear error and stays untouched;
# --reset-trust moves it aside and starts with no peer trusted.
test_corrupt_trust_store_refuses_to_start_until_reset() {
    start_peerd 1
    stop_peerd 1 TERM
    printf '{"version": 1, "peers": [ {"broken' >"$LAB_DIR/h1/state/trust.json"
    local out
    out=$(lab_exec 1 "$BIN/peerd" --name host1 --state-dir "$LAB_DIR/h1/state" --socket "$(sock 1)" 2>&1); expect_eq $? 1 "peerd's exit over a corrupt trust store"
    echo "$out" | grep -q -- "--reset-trust" || fail "the error does not say how to recover: $out"
    expect_eq "$(cat "$LAB_DIR/h1/state/trust.json")" '{"version": 1, "peers": [ {"broken' "the corrupt file is left as it was"
    start_peerd 1 --reset-trust
    grep -q "moved the unreadable trust store" "$LAB_DIR/h1/peerd.log" || fail "no log line for the reset"
    ls "$LAB_DIR/h1/state/" | grep -q '^trust.json.corrupt' || fail "the corrupt file was not kept aside: $(ls "$LAB_DIR/h1/state/")"
    expect_eq "$(json 1 paired | jq '.peers | length')" 0 "trusted peers after the reset"
}

# Issue 22, point 3: a state file of a layout this release cannot read (a
# newer release's, or a damaged header) stops start-up; the refusal names
# the file and what it found, and nothing is changed or moved.
test_state_files_of_another_layout_stop_start_up_and_are_kept() {
    start_peerd 1
    stop_peerd 1 TERM
    local state="$LAB_DIR/h1/state" out file
    mkdir -p "$state/queue"
    # This release's files and the earlier layouts it carries over alike.
    for file in "queue/00112233445566778899aabbccddeeff.queue3" "queue/00112233445566778899aabbccddeeff.queue2" "inbox2" "inbox"; do
        case $file in inbox*) printf 'PEERDI9\nfuture' >"$state/$file" ;; *) printf 'PEERDQ9\nfuture' >"$state/$file" ;; esac
        out=$(lab_exec 1 "$BIN/peerd" --name host1 --state-dir "$state" --socket "$(sock 1)" 2>&1); expect_eq $? 1 "peerd's exit over $file of another layout"
        echo "$out" | grep -q "$state/$file" || fail "the refusal does not name $file: $out"
        echo "$out" | grep -q "another layout" || fail "the refusal does not say what it found: $out"
        echo "$out" | grep -q "Nothing was changed" || fail "the refusal does not say nothing changed: $out"
        expect_eq "$(head -c 7 "$state/$file")" "${out:+$(case $file in inbox*) echo PEERDI9 ;; *) echo PEERDQ9 ;; esac)}" "$file after the refusal"
        rm -f "$state/$file"
    done
    printf '{"version": 2, "peers": []}' >"$state/trust.json"
    out=$(lab_exec 1 "$BIN/peerd" --name host1 --state-dir "$state" --socket "$(sock 1)" 2>&1); expect_eq $? 1 "peerd's exit over a newer trust store"
    echo "$out" | grep -q "format version 2" || fail "the refusal does not say what it found: $out"
    expect_eq "$(cat "$state/trust.json")" '{"version": 2, "peers": []}' "the newer trust store after the refusal"
}

# Issue 10, point 4: a responder that cannot store the trust (a full disk)
# rejects the pairing; the initiator is told, and neither side trusts the other.
test_a_full_disk_rejects_the_pairing_on_both_sides() {
    mkdir -p "$LAB_DIR/h2/state"
    mount -t tmpfs -o size=256k tmpfs "$LAB_DIR/h2/state" || fail "cannot mount a small tmpfs"
    trap 'umount "$LAB_DIR/h2/state" 2>/dev/null; lab_down' EXIT
    two_peers
    dd if=/dev/zero of="$LAB_DIR/h2/state/fill" bs=4k >/dev/null 2>&1
    watch_on 2 "$LAB_DIR/w2.jsonl"
    begin_pairing || fail "no pairing request on host2"
    local id code out; id=$(json 2 pairings | jq -r '.pairings[0].id'); code=$CODE1
    out=$(ctl 2 pair-accept "$id" --code "$code" 2>&1); expect_eq $? 1 "pair-accept's exit code on a full disk"
    echo "$out" | grep -q storageFailed || fail "pair-accept did not say storageFailed: $out"
    wait "$PAIRER"; expect_eq $? 1 "pair's exit code when the other host could not store the pairing"
    grep -q storageFailed "$LAB_DIR/pair.out" || fail "the initiator was not told storageFailed: $(cat "$LAB_DIR/pair.out")"
    ! grep -q "^paired with" "$LAB_DIR/pair.out" || fail "the initiator printed paired"
    expect_eq "$(json 1 paired | jq '.peers | length')" 0 "trusted peers on host1"
    expect_eq "$(json 2 paired | jq '.peers | length')" 0 "trusted peers on host2"
}
