# Peers beyond mDNS (issue 14, part 3): `peerctl add HOST[:PORT]`.

# The hosts on two routed subnets: no mDNS between them. Host 1 adds host 2
# by address; once host 2 accepts, they are connected and host 1's row
# carries the key host 2 proves. Paired, the row is remembered: a restarted
# host 1 connects again by itself, with no mDNS.
test_add_connects_across_two_subnets_without_multicast() {
    lab_subnets
    start_peerd 1
    start_peerd 2
    lab_wait_for 10 sh -c "ip netns exec $(lab_ns 1) python3 '$ROOT/Tests/lab/tcp-probe.py' $(lab_subnet_address 2) 7717 | grep -qv closed" \
        || fail "host 1 cannot reach host 2's session port through the router"
    local id2; id2=$(status_field 2 .peerId)
    [ "$(json 1 peers | jq '.peers | length')" = 0 ] || fail "host 1 lists peers before any add"
    watch_on 2 "$LAB_DIR/w2.jsonl"
    ctl 1 add "$(lab_subnet_address 2)" --wait --context "by address" >"$LAB_DIR/add.out" 2>&1 &
    local adder=$!
    lab_wait_for 10 sh -c "'$BIN/peerctl' --socket '$(sock 2)' --json invitations | jq -e '.invitations | length == 1'" \
        || fail "host 2 got no invitation: $(cat "$LAB_DIR/add.out")"
    local inv; inv=$(json 2 invitations | jq -r '.invitations[0].id')
    [ "$(json 2 invitations | jq -r '.invitations[0].context')" = "by address" ] || fail "the context did not cross"
    ctl 2 accept "$inv" >/dev/null || fail "accept failed"
    wait "$adder" || fail "add --wait did not end connected: $(cat "$LAB_DIR/add.out")"
    local row; row=$(json 1 peers | jq -c --arg id "$id2" '.peers[] | select(.peerId == $id)')
    [ -n "$row" ] || fail "host 1 has no row with host 2's proven id"
    [ "$(jq -r .state <<<"$row")" = connected ] || fail "host 1's row is not connected: $row"
    [ "$(jq -r .name <<<"$row")" = host2 ] || fail "the row should take the name host 2 accepted with: $row"
    [ "$(json 1 peers | jq '.peers | length')" = 1 ] || fail "one peer, one row: $(json 1 peers)"
    note "added across subnets: $(jq -r '.name + " " + .session' <<<"$row")"
    # Issue 21, point 3: both rows know their peer: host 1's keeps the
    # address it dialled; host 2's (no mDNS across the router) takes the name
    # host 1 gave in its invite, and the address the session came from.
    expect_eq "$(jq -r .learnedAddress <<<"$row")" "$(lab_subnet_address 2):7717" "the dialled address on host 1's row"
    local far; far=$(json 2 peers | jq -c --arg id "$(status_field 1 .peerId)" '.peers[] | select(.peerId == $id)')
    expect_eq "$(jq -r .name <<<"$far")" host1 "host 2's name for host 1"
    expect_eq "$(jq -r .learnedAddress <<<"$far")" "$(lab_subnet_address 1)" "the address host 1's session came from, on host 2's row"
    # Messages cross like any session's.
    ctl 1 send "$(jq -r .id <<<"$row")" "over the router" >/dev/null || fail "send failed"
    lab_wait_for 10 sh -c "'$BIN/peerctl' --socket '$(sock 2)' take | grep -q 'over the router'" || fail "the message did not arrive"

    # Pair over the same session, then restart host 1: it reconnects at the remembered address.
    pair_hosts 1 2 "$(jq -r .id <<<"$row")"
    stop_peerd 1
    start_peerd 1
    lab_wait_for 20 sh -c "'$BIN/peerctl' --socket '$(sock 1)' --json peers | jq -e --arg id '$id2' '.peers[] | select(.peerId == \$id and .state == \"connected\")'" \
        || fail "the paired peer added by address was not reconnected after a restart: $(json 1 peers)"
}

# Wrong addresses say what is wrong: a closed port is refused at once (not
# after the handshake deadline: a refused connect that epoll reports only
# as a hang-up once went unnoticed for 5 s), a name that does not resolve is
# the resolver's error, and this host is not a peer.
test_add_reports_what_is_wrong_with_an_address() {
    start_peerd 1
    start_peerd 2
    local out
    out=$(ctl 1 add "$(lab_address 2):9" 2>&1) && fail "a closed port was added: $out"
    grep -qi "refused" <<<"$out" || fail "a closed port should say refused: $out"
    out=$(ctl 1 add "no-such-host.invalid" 2>&1) && fail "an unresolvable name was added: $out"
    grep -q "cannot resolve" <<<"$out" || fail "an unresolvable name should say so: $out"
    out=$(ctl 1 add "$(lab_address 1)" 2>&1) && fail "this host was added: $out"
    grep -q "this host" <<<"$out" || fail "adding ourselves should say so: $out"
    out=$(ctl 1 add "10.0.0.1:0" 2>&1); [ $? = 2 ] || fail "port 0 should be a usage error: $out"
}

# Issue 21, point 5: `add` is not a scanner. Local addresses are refused
# without --allow-local-add, a service that is not peerd is named so without
# quoting its bytes, and each user's adds are rate-limited.
test_add_is_not_a_port_scanner() {
    start_peerd 1
    start_peerd 2
    local out
    out=$(ctl 1 add 127.0.0.1:22 2>&1) && fail "loopback was dialled: $out"
    grep -q -- "--allow-local-add" <<<"$out" || fail "the loopback refusal does not name the flag: $out"
    out=$(ctl 1 add "[::1]:22" 2>&1) && fail "IPv6 loopback was dialled: $out"
    # This host's IPv4 address mapped into IPv6 is still this host (issue 42).
    out=$(ctl 1 add "[::ffff:$(lab_address 1)]:22" 2>&1) && fail "this host's mapped IPv4 address was dialled: $out"
    grep -q "an address of this host" <<<"$out" || fail "the mapped address was not refused as this host's: $out"
    # An SSH-like banner on host 2: its first bytes once came back as "frame length 21331".
    lab_spawn 2 "$LAB_DIR/banner.log" python3 -c '
import socket
s = socket.socket(socket.AF_INET6); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("::", 2222)); s.listen(16)
while True:
    c, _ = s.accept(); c.sendall(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n"); c.close()'
    lab_wait_for 5 sh -c "ip netns exec $(lab_ns 1) python3 '$ROOT/Tests/lab/tcp-probe.py' $(lab_address 2) 2222 | grep -qv closed" || fail "no banner service"
    out=$(ctl 1 add "$(lab_address 2):2222" 2>&1) && fail "an SSH port was added: $out"
    grep -q "not a peerd session port" <<<"$out" || fail "a foreign service was not named as such: $out"
    ! grep -q "21331\|SSH" <<<"$out" || fail "the other service's bytes were quoted: $out"
    # Twenty adds at once from one user: the first few dial, the rest wait their turn.
    local n limited=0
    for n in $(seq 1 20); do
        out=$(ctl 1 add "$(lab_address 2):$((3000 + n))" 2>&1)
        grep -q "too many 'add' requests" <<<"$out" && limited=$((limited + 1))
    done
    note "$limited of 20 quick adds were refused by the rate"
    [ "$limited" -ge 10 ] || fail "only $limited of 20 quick adds were limited"
    expect_eq "$(ctl 2 status >/dev/null && echo up)" up "host 2 after the adds"
}

# Issue 46's zero-effort way across a router: an avahi-daemon on the
# router reflecting `_peerd._tcp` between the two subnets. Each host then
# lists the other as mDNS found it, and a session crosses the router to
# the routed address (the link-local one does not cross).
test_a_reflector_on_the_router_carries_peers_across_two_subnets() {
    lab_subnets
    lab_reflector || fail "no reflector on the router"
    start_peerd 1
    start_peerd 2 --auto-accept all
    lab_wait_for 15 sees 1 host2 || fail "host 1 does not see host 2 through the reflector: $(json 1 peers; tail -5 "$LAB_DIR/reflector/avahi.log")"
    lab_wait_for 15 sees 2 host1 || fail "host 2 does not see host 1 through the reflector"
    ctl 1 invite host2 --wait >"$LAB_DIR/invite.out" 2>&1 || fail "the invitation across the router failed: $(cat "$LAB_DIR/invite.out"; json 1 peer host2)"
    lab_wait_for 10 state_is 1 host2 connected || fail "host 1 is not connected to host 2"
    case $(peer_field 1 host2 .session) in "$(lab_subnet_address 2)"*) ;; *) fail "the session did not go to host 2's routed address: $(json 1 peer host2)" ;; esac
    note "through the reflector: $(peer_field 1 host2 .session)"
}
