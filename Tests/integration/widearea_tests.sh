# Wide-area DNS-SD (issue 46): peers on two subnets with no multicast
# between them find each other through the site's DNS server, a real Knot
# DNS holding a dynamic zone (sourced by run.sh).

# wide_area HOST [ARGS...]: starts peerd on HOST with the lab's domain and
# server, and a short TTL (the lease a killed host leaves behind).
wide_area() {
    local i=$1; shift
    start_peerd "$i" --wide-area peers.lab --dns-server "$LAB_DNS" --wide-area-ttl 6 --wide-area-poll 250 "$@"
}

# dns_names: the instance names the zone's _peerd._tcp pointers hold, a line each.
dns_names() { lab_kdig +short _peerd._tcp.peers.lab PTR | sed 's/\._peerd\._tcp\.peers\.lab\.$//'; }

# foreign_flood COUNT: COUNT instances that are no peerd's (PTR, SRV, an
# address, no id) in the zone, in signed updates of 100 instances (one
# update's limit is a DNS message's 64 KiB) sent from the server's host.
foreign_flood() {
    local n
    { echo "server $LAB_DNS 53"; echo "zone peers.lab."
      for n in $(seq 1 "$1"); do
          echo "update add _peerd._tcp.peers.lab. 60 PTR junk$n._peerd._tcp.peers.lab."
          echo "update add junk$n._peerd._tcp.peers.lab. 60 SRV 0 0 9 junk$n.peers.lab."
          echo "update add junk$n.peers.lab. 60 A 192.0.2.$((n % 250 + 1))"
          [ $((n % 100)) = 0 ] && { echo send; echo "zone peers.lab."; }
      done
      } >"$LAB_DIR/flood.txt"
    local secret; secret=$(awk '/secret:/ {print $2}' "$LAB_DIR/dns/tsig.key")
    ip netns exec "$(lab_ns 3)" knsupdate -y "hmac-sha256:peerd-update:$secret" "$LAB_DIR/flood.txt"
}

test_wide_area_dns_sd_finds_and_pairs_across_a_router_three_hosts() {
    lab_subnets
    lab_dns_server 3 || fail "no DNS server"
    local t0 t1
    t0=${EPOCHREALTIME/./}
    wide_area 1 --dns-update-key "$LAB_DIR/dns/tsig.key"
    wide_area 2 --dns-update-key "$LAB_DIR/dns/tsig.key" --auto-accept all
    lab_wait_for 5 sees 1 host2 || fail "host 1 does not list host 2 through DNS within 5 s: $(json 1 status | jq -c .wideArea); $(dns_names)"
    lab_wait_for 5 sees 2 host1 || fail "host 2 does not list host 1 through DNS within 5 s"
    t1=${EPOCHREALTIME/./}
    note "both listed $(( (t1 - t0) / 1000 )) ms after host 1's start"
    expect_eq "$(peer_field 1 host2 '.sources | join(",")')" "dns:peers.lab" "host 2's source on host 1"
    ctl 1 peers | grep host2 | grep -q "dns:peers.lab" || fail "peerctl peers does not say how host 2 was found: $(ctl 1 peers)"
    expect_eq "$(status_field 1 .wideArea.publication)" published "host 1's publication"
    expect_eq "$(status_field 1 .wideArea.server)" "$LAB_DNS:53" "the server in status"
    ctl 1 status | grep -q "wide-area publication *published as 'host1'" || fail "peerctl status does not show the publication: $(ctl 1 status)"
    # --check-config reads the key as the start does: a readable-by-all one fails it.
    : >"$LAB_DIR/empty.conf"
    "$BIN/peerd" --check-config --config "$LAB_DIR/empty.conf" --wide-area peers.lab --dns-update-key "$LAB_DIR/dns/tsig.key" >/dev/null \
        || fail "--check-config refused a good key"
    cp "$LAB_DIR/dns/tsig.key" "$LAB_DIR/open.key" && chmod 644 "$LAB_DIR/open.key"
    "$BIN/peerd" --check-config --config "$LAB_DIR/empty.conf" --wide-area peers.lab --dns-update-key "$LAB_DIR/open.key" 2>"$LAB_DIR/check.out" \
        && fail "--check-config took a key others may read"
    grep -q "chmod 600" "$LAB_DIR/check.out" || fail "--check-config does not say how to fix the key's mode: $(cat "$LAB_DIR/check.out")"
    case $(peer_field 1 host2 '.endpoints[].address') in *"$(lab_subnet_address 2)"*) ;; *) fail "host 2's routed address is not among its endpoints: $(json 1 peer host2)" ;; esac
    [ "$(dns_names | grep -c .)" = 2 ] || fail "the zone should hold two instances: $(dns_names)"

    # They pair across the router as on one link.
    pair_hosts 1 2
    lab_wait_for 10 state_is 1 host2 connected || fail "host 1 is not connected to host 2 after pairing"
    expect_eq "$(peer_field 1 host2 .paired)" true "paired on host 1"

    # A stop takes host 1's records out of the zone.
    stop_peerd 1
    lab_wait_for 5 sh -c "! ip netns exec $(lab_ns 3) kdig @$LAB_DNS +short _peerd._tcp.peers.lab PTR | grep -q '^host1'" \
        || fail "host 1's pointer is still in the zone after its stop: $(dns_names)"
    [ -z "$(lab_kdig +short host1._peerd._tcp.peers.lab SRV)" ] || fail "host 1's SRV is still in the zone"
    lab_wait_for 5 sees_lost 2 host1 || fail "host 2 still lists host 1 as present after host 1 stopped"

    # Without a key, and without --dns-server: the server is found through
    # the host's resolver (site.lab's SOA), and peers.lab is browsed because
    # the search domain site.lab names it (b._dns-sd._udp). It browses,
    # connects, and publishes nothing.
    lab_resolv 1 site.lab
    start_peerd 1 --wide-area site.lab --wide-area-ttl 6 --wide-area-poll 250
    lab_wait_for 5 sees 1 host2 || fail "host 1 without a key does not list host 2: $(json 1 status | jq -c .wideArea)"
    expect_eq "$(status_field 1 .wideArea.publication)" off "the publication without a key"
    expect_eq "$(status_field 1 .wideArea.server)" "$LAB_DNS:53" "the server found through site.lab's SOA"
    expect_eq "$(status_field 1 '.wideArea.browseDomains | join(",")')" "site.lab,peers.lab" "the browse domains"
    expect_eq "$(peer_field 1 host2 '.sources | join(",")')" "dns:peers.lab" "host 2's source, found through the browse domain"
    lab_wait_for 15 state_is 1 host2 connected || fail "host 1 without a key did not connect to its paired peer: $(json 1 peer host2)"
    dns_names | grep -q '^host1$' && fail "host 1 published without a key: $(dns_names)"

    # A killed host leaves the list when its lease ends (TTL 6 s).
    stop_peerd 2 KILL
    t0=${EPOCHREALTIME/./}
    lab_wait_for 12 sees_lost 1 host2 || fail "host 2 was killed and host 1 still lists it after 12 s (TTL 6 s)"
    t1=${EPOCHREALTIME/./}
    note "host 2 killed: gone from host 1's list after $(( (t1 - t0) / 1000 )) ms (TTL 6 s)"

    # A wrong key's update is refused, logged and shown in status.
    wide_area 2 --dns-update-key "$LAB_DIR/dns/wrong.key"
    lab_wait_for 10 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 2)' --json status | jq -r .wideArea.publication)\" = refused ]" \
        || fail "the wrong key's update was not refused: $(json 2 status | jq -c .wideArea)"
    grep -q 'refused' "$LAB_DIR/h2/peerd.log" || fail "the refusal is not in host 2's log"
    note "wrong key: $(status_field 2 .wideArea.lastUpdate)"

    # A flood of foreign records: memory and rows stay bounded (host 1
    # browses two domains, each following half the unverified cap).
    local before after
    before=$(private_kib_of 1)
    foreign_flood 1000 >"$LAB_DIR/flood.out" 2>&1 || fail "knsupdate could not add the flood: $(tail -3 "$LAB_DIR/flood.out")"
    lab_wait_for 15 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 1)' --json status | jq .unverifiedPeers)\" -ge 30 ]" \
        || fail "host 1 did not take in the flood: $(json 1 status | jq -c '{unverifiedPeers, wideArea}')"
    [ "$(status_field 1 .wideArea.followed)" -le 64 ] || fail "host 1 follows more names than its cap: $(json 1 status | jq -c .wideArea)"
    [ "$(status_field 1 .unverifiedPeers)" -le 64 ] || fail "more unverified rows than the cap"
    after=$(private_kib_of 1)
    [ $((after - before)) -lt 4096 ] || fail "1,000 foreign records cost $((after - before)) KiB"
    note "1,000 foreign instances: $(status_field 1 .wideArea.followed) followed, private memory $before -> $after KiB"

    # doctor explains a row that is in DNS but whose address does not answer.
    lab_exec 1 "$BIN/peerctl" --socket "$(sock 1)" doctor junk1 >"$LAB_DIR/doctor.out" 2>&1
    grep -q "is in DNS (peers.lab) but does not answer" "$LAB_DIR/doctor.out" \
        || fail "doctor does not explain a DNS record whose host does not answer: $(grep -i 'junk1\|DNS' "$LAB_DIR/doctor.out")"
    grep -q "site.lab at $LAB_DNS:53: browsing only" "$LAB_DIR/doctor.out" || fail "doctor does not show the wide-area state: $(cat "$LAB_DIR/doctor.out")"
}
