# peerctl top (issue 14, part 1) in a real pseudo-terminal (Tests/lab/pty-screen.py).

# top_script FILE STEPS...: writes a pty-screen script.
top_script() { local f=$1; shift; printf '%s\n' "$@" >"$f"; }

# Three sizes, the selection through a filter and a re-sort, a key acting
# on the selected peer (i invites it), the detail on a narrow terminal, the
# too-small line, and a clean exit that leaves the alternate screen once.
test_top_in_a_pseudo_terminal_at_three_sizes() {
    start_peerd 1
    start_peerd 2
    flood_services 2 3
    lab_wait_for 15 sees 1 host2 || fail "host1 does not see host2"
    watch_on 2 "$LAB_DIR/w2.jsonl"   # so host 2 holds the invitation top sends
    lab_wait_for 15 sh -c "[ \$('$BIN/peerctl' --socket '$(sock 1)' --json peers | jq '.peers | length') -ge 4 ]" || fail "host1 does not see the fake services"
    local script="$LAB_DIR/top.steps"
    top_script "$script" \
        "size 120 30" \
        "wait peerd top · 4 peers" \
        "wait peer id" \
        "keys 2f" "keys 686f737432" "keys 0d" \
        "selected host2" \
        "wait filter: host2 (1 shown)" \
        "keys 2f" "keys 1b" \
        "gone (1 shown)" \
        "selected host2" \
        "keys 73" \
        "wait sort: name" \
        "selected host2" \
        "keys 73" \
        "wait sort: state" \
        "selected host2" \
        "keys 69" \
        "wait invited 'host2'" \
        "size 80 24" \
        "wait ────────" \
        "selected host2" \
        "size 60 12" \
        "gone Endpoints" \
        "keys 0d" \
        "wait Endpoints" \
        "keys 1b" \
        "gone Endpoints" \
        "size 30 8" \
        "wait too small: 30×8, need 40×10" \
        "size 100 30" \
        "selected host2" \
        "keys 71" \
        "end"
    local out
    out=$(lab_exec 1 python3 "$ROOT/Tests/lab/pty-screen.py" "$script" -- "$BIN/peerctl" --socket "$(sock 1)" top 2>&1) \
        || fail "top in a pty: $out"
    grep -q "exit 0 alt-entered 1 alt-left 1" <<<"$out" || fail "top did not leave once, cleanly: $out"
    [ "$(json 2 invitations | jq -r '.invitations[0].name')" = host1 ] || fail "the i key sent no invitation: $(json 2 invitations)"

    # Not a terminal: one plain snapshot, no escape codes.
    out=$(ctl 1 top </dev/null | cat)
    grep -q "host2" <<<"$out" || fail "the snapshot lists no host2: $out"
    ! grep -q $'\e' <<<"$out" || fail "the snapshot has escape codes"
    [ "$(ctl 1 --json top </dev/null | jq '.peers | length')" -ge 4 ] || fail "top --json lists the peers"
}

# SIGTERM restores the terminal too.
test_top_restores_the_terminal_on_sigterm() {
    start_peerd 1
    local script="$LAB_DIR/top.steps"
    top_script "$script" "size 100 30" "wait peerd top" "say drawn" "end"
    lab_exec 1 python3 "$ROOT/Tests/lab/pty-screen.py" "$script" -- "$BIN/peerctl" --socket "$(sock 1)" top >"$LAB_DIR/top.out" 2>&1 &
    local harness=$!
    lab_wait_for 10 grep -q drawn "$LAB_DIR/top.out" || fail "top did not draw: $(cat "$LAB_DIR/top.out")"
    # Anchored: the harness's own command line names peerctl too.
    pkill -TERM -f "^$BIN/peerctl --socket $(sock 1) top" || fail "no top to signal"
    wait "$harness" || fail "the harness failed: $(cat "$LAB_DIR/top.out")"
    grep -q "alt-entered 1 alt-left 1" "$LAB_DIR/top.out" || fail "SIGTERM did not restore the terminal: $(cat "$LAB_DIR/top.out")"
}
