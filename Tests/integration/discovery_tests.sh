# Discovery, identity and control-socket tests (sourced by run.sh).

# Two hosts see each other within 5 s, each with exactly one UUID; the row
# merges IPv4 and IPv6, carries the advertised id, port and --info pairs.
test_two_hosts_discover_each_other() {
    start_peerd 1 --interface eth0
    start_peerd 2 --info color=blue
    lab_wait_for 5 sees 1 host2 || fail "host1 did not see host2 within 5 s"
    lab_wait_for 5 sees 2 host1 || fail "host2 did not see host1 within 5 s"
    # Let both address families arrive, then check the merge.
    lab_wait_for 5 sh -c "'$BIN/peerctl' --socket '$(sock 1)' --json peers | jq -en 'input | .peers[0].endpoints | map(.family) | unique == [\"ipv4\",\"ipv6\"]'" \
        || fail "host2's IPv4 and IPv6 endpoints were not merged into one row"
    expect_eq "$(peer_count 1)" 1 "rows on host1"
    expect_eq "$(peer_count 2)" 1 "rows on host2"
    expect_eq "$(json 1 peers | jq '[.peers[].id] | unique | length')" 1 "UUIDs for host2 on host1"
    expect_eq "$(peer_field 1 host2 .peerId)" "$(status_field 2 .peerId)" "advertised id"
    expect_eq "$(peer_field 1 host2 '.info.color')" blue "--info pair"
    expect_eq "$(peer_field 1 host2 '.info.txtvers')" 1 "txtvers"
    expect_eq "$(peer_field 1 host2 '.endpoints[0].port')" "$(status_field 2 .port)" "advertised session port"
    expect_eq "$(peer_field 1 host2 '[.endpoints[] | select(.family == "ipv4") | .address][0]')" "$(lab_address 2)" "host2's IPv4 address"
    expect_eq "$(status_field 1 .publication)" established "host1 publication"
    expect_eq "$(status_field 1 .interfaces[0])" eth0 "host1 interfaces"
    # peer by UUID prefix and by name select the same row.
    local id; id=$(peer_field 1 host2 .id)
    expect_eq "$(json 1 peer "${id:0:8}" | jq -r .id)" "$id" "peer by UUID prefix"
    expect_eq "$(json 1 peer host2 | jq -r .id)" "$id" "peer by name"
    ctl 1 peer nosuchpeer >/dev/null 2>&1; expect_eq $? 1 "exit code for an unknown peer"
    # The identity key is stored 0600 and reused.
    expect_eq "$(stat -c %a "$LAB_DIR/h1/state/identity.key")" 600 "identity key mode"
    expect_eq "$(stat -c %a "$(sock 1)")" 660 "control socket mode"
}

# The UUID survives a restart of the remote peerd; SIGTERM unpublishes (the
# other side sees the goodbye) and removes the socket.
test_uuid_survives_remote_peerd_restart() {
    start_peerd 1
    start_peerd 2
    lab_wait_for 5 sees 1 host2 || fail "host1 did not see host2"
    local id peer_id; id=$(peer_field 1 host2 .id); peer_id=$(status_field 2 .peerId)
    stop_peerd 2 TERM
    expect_eq "$PEERD_EXIT" 0 "peerd exit status on SIGTERM"
    [ ! -e "$(sock 2)" ] || fail "SIGTERM left the control socket behind"
    lab_wait_for 5 sees_lost 1 host2 || fail "host1 did not mark host2 lost after its goodbye"
    start_peerd 2
    expect_eq "$(status_field 2 .peerId)" "$peer_id" "peer id after restart (identity key reused)"
    lab_wait_for 5 sees 1 host2 || fail "host1 did not see host2 come back"
    expect_eq "$(peer_field 1 host2 .id)" "$id" "UUID after the remote restart"
    expect_eq "$(peer_count 1)" 1 "rows on host1"
    stop_peerd 2 INT
    expect_eq "$PEERD_EXIT" 0 "peerd exit status on SIGINT"
    [ ! -e "$(sock 2)" ] || fail "SIGINT left the control socket behind"
    lab_wait_for 5 sees_lost 1 host2 || fail "host1 did not see host2's goodbye after SIGINT"
    expect_eq "$(peer_field 1 host2 .id)" "$id" "UUID while lost"
}

# The UUID survives an avahi-daemon restart on either host; peerd keeps
# running, reconnects, publishes and browses again.
test_uuid_survives_avahi_restart() {
    start_peerd 1
    start_peerd 2
    lab_wait_for 5 sees 1 host2 || fail "host1 did not see host2"
    lab_wait_for 5 sees 2 host1 || fail "host2 did not see host1"
    local id1 id2 host; id1=$(peer_field 2 host1 .id); id2=$(peer_field 1 host2 .id)
    for host in 2 1; do
        note "restarting avahi-daemon on host $host"
        lab_avahi_stop "$host"
        lab_wait_for 10 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock "$host")' --json status | jq -r .avahi)\" != running ]" \
            || fail "peerd on host $host did not notice avahi-daemon leaving"
        lab_avahi_start "$host"
        lab_wait_for 15 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock "$host")' --json status | jq -r .avahi)\" = running ]" \
            || fail "peerd on host $host did not reconnect to avahi-daemon"
        lab_wait_for 15 sees 1 host2 || fail "host1 does not see host2 after the restart on host $host"
        lab_wait_for 15 sees 2 host1 || fail "host2 does not see host1 after the restart on host $host"
        expect_eq "$(peer_field 1 host2 .id)" "$id2" "host2's UUID on host1 after avahi restart on host $host"
        expect_eq "$(peer_field 2 host1 .id)" "$id1" "host1's UUID on host2 after avahi restart on host $host"
        expect_eq "$(peer_count 1)" 1 "rows on host1"
        expect_eq "$(peer_count 2)" 1 "rows on host2"
        kill -0 "$(cat "$LAB_DIR/h$host/peerd.pid")" || fail "peerd on host $host died"
    done
}

# With avahi-daemon absent at start, peerd starts anyway, says so in status,
# and connects once avahi-daemon appears.
test_starts_without_avahi() {
    lab_avahi_stop 1
    start_peerd 1
    start_peerd 2
    expect_eq "$(status_field 1 .avahi)" waitingForDaemon "status while avahi-daemon is absent"
    ctl 1 status | grep -q 'avahi-daemon is not running' || fail "human status does not say avahi-daemon is absent"
    lab_avahi_start 1
    lab_wait_for 10 sees 1 host2 || fail "host1 did not find host2 once avahi-daemon started"
    lab_wait_for 10 sees 2 host1 || fail "host1 did not publish once avahi-daemon started"
    expect_eq "$(status_field 1 .avahi)" running "status after avahi-daemon started"
}

# A foreign service of the same type without an id is listed, keyed by name.
test_foreign_service_is_listed() {
    start_peerd 1
    lab_spawn 2 "$LAB_DIR/h2/publish.log" avahi-publish -s "Foreign Printer" _peerd._tcp 6310 "note=hello"
    lab_wait_for 10 sees 1 "Foreign Printer" || fail "host1 did not list the foreign service"
    expect_eq "$(peer_field 1 "Foreign Printer" .peerId)" null "peerId of a foreign advertiser"
    expect_eq "$(peer_field 1 "Foreign Printer" .info.note)" hello "foreign TXT"
    expect_eq "$(peer_field 1 "Foreign Printer" '.endpoints[0].port')" 6310 "foreign port"
    expect_eq "$(json 1 peer "foreign printer" | jq -r .name)" "Foreign Printer" "peer by case-insensitive name"
}

# Of 300 services published on one host, the other tracks them up to the cap
# (256) and then stops at the cap. (The unverified-peer cap, 64 by default,
# is raised here; service_tests.sh tests it.)
test_peer_cap_holds_against_300_services() {
    start_peerd 1 --max-unverified-peers 300
    flood_services 2 300
    lab_wait_for 60 rejected_reaches 1 44 \
        || fail "host1 did not see all 300 services (rejected: $(status_field 1 .peersRejected), rows: $(peer_count 1))"
    expect_eq "$(peer_count 1)" 256 "rows at the cap"
    expect_eq "$(status_field 1 .peers)" 256 "status peers at the cap"
    kill -0 "$(cat "$LAB_DIR/h1/peerd.pid")" || fail "peerd died under the flood"
}

# peerctl watch sees peerFound and peerLost, with increasing sequence numbers;
# --since replays held events.
test_watch_sees_found_and_lost() {
    start_peerd 1
    "$BIN/peerctl" --socket "$(sock 1)" --json watch >"$LAB_DIR/watch.jsonl" 2>"$LAB_DIR/watch.err" &
    local watcher=$!
    lab_wait_for 5 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 1)' --json status | jq -r .eventSeq)\" = 0 ]" || fail "unexpected events before host2 started"
    start_peerd 2
    lab_wait_for 5 grep -q '"type":"peerFound"' "$LAB_DIR/watch.jsonl" || fail "watch did not show peerFound"
    stop_peerd 2 TERM
    lab_wait_for 5 grep -q '"type":"peerLost"' "$LAB_DIR/watch.jsonl" || fail "watch did not show peerLost"
    kill "$watcher"
    expect_eq "$(jq -s '[.[].seq] == ([.[].seq] | sort) and ([.[].seq] | unique | length) == length' "$LAB_DIR/watch.jsonl")" true "sequence numbers increase"
    expect_eq "$(jq -r 'select(.type == "peerLost") | .peer.name' "$LAB_DIR/watch.jsonl" | head -1)" host2 "peerLost names host2"
    # Replay: everything after seq 0 that the daemon holds, then live.
    timeout 3 "$BIN/peerctl" --socket "$(sock 1)" --json watch --since 0 >"$LAB_DIR/replay.jsonl"
    expect_eq "$(jq -r .type "$LAB_DIR/replay.jsonl" | head -1)" peerFound "first replayed event"
    expect_eq "$(jq -r .type "$LAB_DIR/replay.jsonl" | tail -1)" peerLost "last replayed event"
    ctl 1 watch --help | grep -q -- '--since' || fail "watch --help does not document --since"
}

# A name collision renames through avahi_alternative_service_name; the name
# in use shows in status.
test_name_collision_renames() {
    start_peerd 1 --name twin
    lab_wait_for 5 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 1)' --json status | jq -r .publication)\" = established ]" || fail "host1 not established"
    start_peerd 2 --name twin
    # mDNS decides which host yields (usually the newcomer); that one is renamed.
    local renamed other
    lab_wait_for 10 sh -c "'$BIN/peerctl' --socket '$(sock 1)' --json status | jq -en 'input | .name == \"twin #2\"' || '$BIN/peerctl' --socket '$(sock 2)' --json status | jq -en 'input | .name == \"twin #2\"'" \
        || fail "neither host was renamed (names: $(status_field 1 .name), $(status_field 2 .name))"
    if [ "$(status_field 2 .name)" = "twin #2" ]; then renamed=2 other=1; else renamed=1 other=2; fi
    lab_wait_for 10 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock $renamed)' --json status | jq -r .publication)\" = established ]" || fail "renamed service not established"
    expect_eq "$(status_field $renamed .requestedName)" twin "requested name"
    expect_eq "$(status_field $other .name)" twin "the other host keeps its name"
    lab_wait_for 5 sees $other "twin #2" || fail "host$other does not see the renamed host$renamed"
    # Issue 10, point 7: the renamed host lists the host it collided with
    # (Avahi flagged that one as our own while our entry group held the name).
    lab_wait_for 10 sees $renamed twin || fail "the renamed host$renamed never lists host$other: $(json $renamed peers | jq -c '[.peers[].name]')"
    expect_eq "$(peer_field $renamed twin .peerId)" "$(status_field $other .peerId)" "the peer the renamed host lists as twin"
    ctl $renamed status | grep -q "renamed after a collision" || fail "human status does not explain the rename"
}

# A subscriber that stops reading is dropped with a final error event; the
# daemon keeps serving.
test_slow_subscriber_is_dropped() {
    start_peerd 1 --subscriber-queue 4096 --max-unverified-peers 256
    python3 - "$(sock 1)" "$LAB_DIR/go" >"$LAB_DIR/slow.out" 2>&1 <<'PY' &
import json, os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(sys.argv[1])
s.sendall(b'{"v":1,"id":1,"method":"subscribe"}\n')
deadline = time.time() + 90
while not os.path.exists(sys.argv[2]) and time.time() < deadline:
    time.sleep(0.05)
data = b""
s.settimeout(20)
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
last = json.loads(data.rstrip(b"\n").split(b"\n")[-1])
print(json.dumps(last))
PY
    local slow=$!
    # 200 peers' events (the unverified cap raised to let them all in).
    flood_services 2 200
    lab_wait_for 60 grep -q 'not reading its events; dropping it' "$LAB_DIR/h1/peerd.log" || fail "the slow subscriber was not dropped"
    touch "$LAB_DIR/go"
    wait "$slow"
    expect_eq "$(grep -c 'not reading its events' "$LAB_DIR/h1/peerd.log")" 1 "log lines for one dropped subscriber"
    expect_eq "$(jq -r .event.type "$LAB_DIR/slow.out")" error "last line to the slow subscriber"
    expect_eq "$(jq -r .event.error.code "$LAB_DIR/slow.out")" overloaded "error code"
    ctl 1 status >/dev/null || fail "the daemon stopped answering"
}

# Bad flags and bad requests get clear errors, never a crash.
test_bad_input_gets_clear_errors() {
    local out
    out=$(lab_exec 1 "$BIN/peerd" --info toolongkey1=x --socket "$(sock 1)" 2>&1); expect_eq $? 2 "peerd exit for a long TXT key"
    echo "$out" | grep -q "at most 9" || fail "no clear message for a long key: $out"
    out=$(lab_exec 1 "$BIN/peerd" --interface nosuch0 --state-dir "$LAB_DIR/h1/state" --socket "$(sock 1)" 2>&1); expect_eq $? 1 "peerd exit for a missing interface"
    echo "$out" | grep -q "nosuch0" || fail "no clear message for a missing interface: $out"
    start_peerd 1
    out=$(printf '{"v":1,"id":5,"method":"fly"}\nnot json\n{"v":9,"id":6,"method":"status"}\n{"v":1,"id":7,"method":"peer"}\n' \
        | timeout 5 python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read()); s.shutdown(socket.SHUT_WR); sys.stdout.buffer.write(s.makefile("rb").read())' "$(sock 1)")
    expect_eq "$(echo "$out" | jq -r .error.code | tr '\n' ' ')" "unknownMethod badRequest unsupportedVersion invalidParams " "typed errors"
    expect_eq "$(echo "$out" | jq -r .id | tr '\n' ' ')" "5 null 6 7 " "request ids echoed"
    out=$(lab_exec 1 "$BIN/peerd" --state-dir "$LAB_DIR/h1/state" --socket "$(sock 1)" 2>&1); expect_eq $? 1 "second peerd on a live socket"
    echo "$out" | grep -q "another peerd" || fail "no clear message for a busy socket: $out"
    ctl 1 status >/dev/null || fail "the first daemon lost its socket"
}

# The lab itself: a second lab run at the same time gets its own names and
# segment (its hosts never see this lab's peers), and a lab whose test
# fails is still torn down.
test_lab_runs_are_isolated_and_cleaned_up() {
    start_peerd 1
    start_peerd 2
    lab_wait_for 5 sees 1 host2 || fail "host1 did not see host2"
    local other="$LAB_DIR/other"
    mkdir -p "$other"
    (
        LAB_ID=; lab_up 1 >/dev/null 2>&1 || exit 1
        echo "$LAB_ID" >"$other/id"; echo "$LAB_DIR" >"$other/dir"
        lab_spawn 1 "$LAB_DIR/h1/peerd.log" "$BIN/peerd" --name other --state-dir "$LAB_DIR/h1/state" --socket "$LAB_DIR/h1/peerd.sock"
        lab_wait_for 10 "$BIN/peerctl" --socket "$LAB_DIR/h1/peerd.sock" status || exit 1
        lab_wait_for 5 sh -c "'$BIN/peerctl' --socket '$LAB_DIR/h1/peerd.sock' --json status | jq -en 'input | .publication == \"established\"'" || exit 1
        # Give mDNS every chance to leak, then check that nothing crossed.
        "$BIN/peerctl" --socket "$LAB_DIR/h1/peerd.sock" --json peers >"$other/peers.json"
        exit 7   # a failing test: the EXIT trap must still clean up
    )
    expect_eq $? 7 "the second lab ran"
    local id dir; id=$(cat "$other/id"); dir=$(cat "$other/dir")
    [ "$id" != "$LAB_ID" ] || fail "two runs got the same id"
    expect_eq "$(jq '.peers | length' "$other/peers.json")" 0 "peers seen across labs"
    ip netns list | grep -q "^pl$id-" && fail "namespaces of the failed run remain"
    [ ! -e "$dir" ] || fail "the failed run's directory remains"
    expect_eq "$(peer_count 1)" 1 "rows on host1 (nothing from the other lab)"
}


# Issue 21, point 6: the TXT strings go on the wire in the documented order,
# txtvers first (RFC 6763 §6.7), then id, then --info in the order given.
# Avahi serializes a string list in the order strings were added (its add
# prepends, and its serializer reverses); a foreign reader once saw
# `role, id, txtvers`. Read off the wire from host 2 by a plain DNS query.
test_txt_record_order_on_the_wire() {
    start_peerd 1 --info role=demo --info color=blue
    local out
    out=$(ip netns exec "$(lab_ns 2)" python3 "$ROOT/Tests/lab/mdns-txt.py" host1 _peerd._tcp 10 "$(lab_address 2)" 2>&1) || fail "no TXT answer: $out"
    note "TXT on the wire: $(tr '\n' ' ' <<<"$out")"
    # The datagram path's UDP port comes last (since 0.3.0; protocol.md §1).
    expect_eq "$(tr '\n' ' ' <<<"$out")" "txtvers=1 id=$(status_field 1 .peerId) role=demo color=blue dgram=$(status_field 1 .datagrams.port) " "the TXT strings in wire order"
}

# Issue 42, point 5: a subscribed connection may still send requests (each
# answer carries its id, among the events), and a second subscribe on it is
# refused rather than replaying the events again.
test_a_subscribed_connection_answers_requests_and_refuses_a_second_subscribe() {
    start_peerd 1
    local out
    out=$(timeout 10 python3 - "$(sock 1)" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rb")
def ask(line):
    s.sendall((json.dumps(line) + "\n").encode())
    while True:
        answer = json.loads(f.readline())
        if answer.get("id") == line["id"]:
            return answer
ask({"v": 1, "id": 1, "method": "subscribe", "params": {"since": 0}})
status = ask({"v": 1, "id": 2, "method": "status"})
again = ask({"v": 1, "id": 3, "method": "subscribe", "params": {"since": 0}})
print("status" if "result" in status else "no status", again.get("error", {}).get("code"), again.get("error", {}).get("message", ""))
PY
)
    expect_eq "$out" "status invalidParams this connection is subscribed already; open another connection for another subscription" "requests on a subscribed connection"
}
