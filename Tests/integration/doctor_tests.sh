# peerctl doctor (issue 14, part 2): each induced fault is named by the right line.

# doctor_on I [PEER]: runs doctor inside host I's namespace (it checks that
# host's interfaces, firewall and bus); output in DOCTOR_OUT, status in DOCTOR_STATUS.
doctor_on() {
    local i=$1; shift
    DOCTOR_OUT=$(lab_exec "$i" "$BIN/peerctl" --socket "$(sock "$i")" doctor "$@" 2>&1)
    DOCTOR_STATUS=$?
}

expect_line() { grep -qF -- "$1" <<<"$DOCTOR_OUT" || fail "doctor should say '$1':"$'\n'"$DOCTOR_OUT"; }

test_doctor_passes_on_a_healthy_lab_and_checks_a_peer() {
    start_peerd 1
    start_peerd 2
    lab_wait_for 15 sees 1 host2 || fail "host1 does not see host2"
    lab_wait_for 10 sh -c "'$BIN/peerctl' --socket '$(sock 1)' --json status | jq -e '.publication == \"established\"'" || fail "host1 did not publish"
    doctor_on 1 host2
    [ "$DOCTOR_STATUS" = 0 ] || fail "a healthy lab should pass (exit $DOCTOR_STATUS):"$'\n'"$DOCTOR_OUT"
    expect_line "[✓] peerd"
    expect_line "[✓] avahi-daemon is running and answers on D-Bus"
    expect_line "[✓] eth0 is up, multicast"
    expect_line "[✓] nftables: no input filtering"
    expect_line "[✓] 'host1' is browsable with the right TXT"
    expect_line "[✓] 'host2' is seen now on eth0"
    expect_line "is on our link"
    expect_line ":7717 answers"
    expect_line "[✓] 'host2' speaks our protocol version"
    expect_line "[✓] mDNS answers on eth0: 1 service of other hosts"
    expect_line "all "
    [ "$(lab_exec 1 "$BIN/peerctl" --socket "$(sock 1)" --json doctor | jq -r '.checks[0].status')" = ok ] || fail "--json gives the checks"
}

test_doctor_names_a_stopped_avahi_daemon() {
    start_peerd 1
    lab_avahi_stop 1
    doctor_on 1
    [ "$DOCTOR_STATUS" = 1 ] || fail "exit 1 when a check fails"
    expect_line "[✗] avahi-daemon is not running or not reachable over D-Bus"
    expect_line "fix: start it: systemctl start avahi-daemon"
    expect_line "peerctl add HOST[:PORT]"
}

test_doctor_names_a_firewall_dropping_mdns() {
    start_peerd 1
    lab_exec 1 nft add table inet filter
    lab_exec 1 nft add chain inet filter input '{ type filter hook input priority 0; policy accept; }'
    lab_exec 1 nft add rule inet filter input udp dport 5353 drop
    doctor_on 1
    [ "$DOCTOR_STATUS" = 1 ] || fail "exit 1 when a check fails"
    expect_line "[✗] nftables drops mDNS (UDP 5353)"
    expect_line "udp dport 5353 drop"
    expect_line "[✓] nftables lets peerd's sessions (TCP"
}

test_doctor_names_an_interface_without_multicast() {
    start_peerd 1
    ip -n "$(lab_ns 1)" link set eth0 multicast off
    doctor_on 1
    [ "$DOCTOR_STATUS" = 1 ] || fail "exit 1 when a check fails"
    expect_line "[✗] eth0 lacks the MULTICAST flag: mDNS cannot use it"
    expect_line "fix: ip link set eth0 multicast on"
}

test_doctor_names_a_closed_port() {
    start_peerd 1
    local fake=0123456789abcdef0123456789abcdef
    lab_spawn 2 "$LAB_DIR/h2/fake.log" avahi-publish -s ghost _peerd._tcp 9 "txtvers=1" "id=$fake"
    lab_wait_for 15 sees 1 ghost || fail "host1 does not see the fake peer"
    doctor_on 1 ghost
    [ "$DOCTOR_STATUS" = 1 ] || fail "exit 1 when a check fails"
    expect_line ":9 refuses connections: nothing listens there"
}

test_doctor_names_a_peer_on_another_subnet() {
    lab_subnets
    start_peerd 1
    start_peerd 2
    watch_on 2 "$LAB_DIR/w2.jsonl"
    ctl 1 add "$(lab_subnet_address 2)" >/dev/null || fail "add failed"
    local id; id=$(json 1 peers | jq -r '.peers[0].id')
    doctor_on 1 "$id"
    expect_line "is on another subnet: reached via 10."
    expect_line "mDNS does not cross routers"
    expect_line ":7717 answers"
    expect_line "[!] no other host answers mDNS on eth0"
}
