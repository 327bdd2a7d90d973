# File transfer tests, issue 12 (sourced by run.sh).

# paired_peers: hosts 1 and 2 run peerd, pair, and connect.
paired_peers() {
    two_peers "$@"
    pair_hosts 1 2
    lab_wait_for 10 state_is 1 host2 connected || fail "the paired peers did not connect"
}

# make_file PATH MIB: a file of MIB MiB of random bytes.
make_file() { head -c "$(( $2 << 20 ))" /dev/urandom >"$1"; }

# lab: long (100 MiB and 2,000 files through two debug daemons, hashed on both: 24 s alone, up to 60 s beside others)
test_send_file_of_100_mib_and_a_directory_of_2000_small_files() {
    paired_peers
    local src="$LAB_DIR/src"; mkdir -p "$src/tree"
    make_file "$src/big.bin" 100
    for d in $(seq 0 19); do
        mkdir -p "$src/tree/d$d"
        for f in $(seq 0 99); do head -c $(( (d * 100 + f) * 7 % 4000 + 1 )) /dev/urandom >"$src/tree/d$d/f$f.txt"; done
    done
    local start; start=$(date +%s.%N)
    lab_exec 1 "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$src/big.bin" >"$LAB_DIR/send1.out" 2>&1 || { cat "$LAB_DIR/send1.out" >&2; fail "send-file of 100 MiB failed"; }
    local mid; mid=$(date +%s.%N)
    lab_exec 1 "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$src/tree" >"$LAB_DIR/send2.out" 2>&1 || { cat "$LAB_DIR/send2.out" >&2; fail "send-file of 2,000 files failed"; }
    local end; end=$(date +%s.%N)
    local dest="$LAB_DIR/h2/state/downloads/host1"
    expect_eq "$(sha256sum <"$dest/big.bin")" "$(sha256sum <"$src/big.bin")" "the 100 MiB file's hash"
    expect_eq "$(cd "$dest/tree" && find . -type f | wc -l)" 2000 "files received"
    expect_eq "$(cd "$dest/tree" && find . -type f -exec sha256sum {} + | sort | sha256sum)" "$(cd "$src/tree" && find . -type f -exec sha256sum {} + | sort | sha256sum)" "the 2,000 files' hashes"
    expect_eq "$(stat -c %Y "$dest/big.bin")" "$(stat -c %Y "$src/big.bin")" "the modification time"
    [ -z "$(find "$dest" -name '.peerd-*')" ] || fail "partial files or records left: $(find "$dest" -name '.peerd-*' | head -3)"
    [ -z "$(ls -A "$LAB_DIR/h2/state/transfers" 2>/dev/null)" ] || fail "records left in the state directory: $(ls -A "$LAB_DIR/h2/state/transfers")"
    note "$(awk -v s="$start" -v m="$mid" -v e="$end" 'BEGIN { printf "100 MiB in %.2f s; 2,000 small files in %.2f s (%d files/s)", m - s, e - m, 2000 / (e - m) }')"
}

# slow_link I RATE: traffic toward host I goes at most RATE (tc, such as 160mbit).
slow_link() { tc -n "$(lab_switch_ns)" qdisc replace dev "p$1-$LAB_ID" root tbf rate "$2" burst 256kb latency 400ms; }

# transfer_field I JQ: the filter applied to host I's first transfer.
transfer_field() { json "$1" transfers | jq -r ".transfers[0] | $2"; }

# received_at_least I BYTES: host I's transfer has verified BYTES.
received_at_least() { [ "$(transfer_field "$1" '.bytes // 0')" -ge "$2" ]; }

# resume_case HOW: a 200 MiB file is interrupted halfway (HOW: link, the
# link goes down; kill, the receiving daemon is SIGKILLed; sender, the
# sending daemon is, and its user offers the same file again under the
# same id) and resumes. What is received twice is at most one block: the
# bytes past the last recorded block (a whole block only when the kill
# lands between a block's last bytes and its record).
resume_case() {
    paired_peers
    make_file "$LAB_DIR/big.bin" 200
    slow_link 2 200mbit
    lab_spawn 1 "$LAB_DIR/send.out" "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$LAB_DIR/big.bin"
    local sender=$LAB_PID
    lab_wait_for 30 received_at_least 2 $((100 << 20)) || fail "host2 did not get halfway: $(json 2 transfers)"
    local id; id=$(transfer_field 2 .id)
    case $1 in
    link)
        lab_partition 2 down
        lab_wait_for 40 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 2)' --json transfers | jq -r '.transfers[0].state')\" = interrupted ]" \
            || fail "host2's transfer was not interrupted: $(json 2 transfers)"
        lab_partition 2 up ;;
    kill)
        stop_peerd 2 KILL
        [ -n "$(find "$LAB_DIR/h2/state/downloads" -name '.peerd-*.part')" ] || fail "no partial file after SIGKILL"
        start_peerd 2 ;;
    sender)
        stop_peerd 1 KILL
        wait "$sender" && fail "send-file succeeded without its daemon"
        start_peerd 1
        lab_wait_for 20 state_is 1 host2 connected || fail "the peers did not reconnect"
        lab_spawn 1 "$LAB_DIR/send.out" "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$LAB_DIR/big.bin" --resume "$id"
        sender=$LAB_PID ;;
    esac
    lab_wait_for 120 sh -c "! kill -0 $sender 2>/dev/null" || fail "the transfer did not finish after the resume: $(json 1 transfers)"
    wait "$sender" || fail "send-file failed: $(cat "$LAB_DIR/send.out")"
    expect_eq "$(sha256sum <"$LAB_DIR/h2/state/downloads/host1/big.bin")" "$(sha256sum <"$LAB_DIR/big.bin")" "the file's hash after the resume"
    local resent sent; resent=$(transfer_field 2 .resentBytes); sent=$(transfer_field 1 .wireBytes)
    note "resumed $id after the $1 break: $resent bytes received twice (a block is 131072); $sent bytes sent by the last sender"
    [ "$resent" -le 131072 ] || fail "$resent bytes came twice; the bound is one block (131072)"
    [ "$1" != sender ] || [ "$sent" -lt $((120 << 20)) ] || fail "the restarted sender sent $sent bytes: it started over"
    [ -z "$(find "$LAB_DIR/h2/state/downloads" -name '.peerd-*')" ] || fail "partial files or records left"
}

# lab: long (it waits out a partition long enough to end the session: 34 s alone)
test_a_transfer_resumes_after_the_link_goes_down() { resume_case link; }
# lab: long (a transfer, a kill, and the rest of it: 18 s alone, up to 47 s beside others)
test_a_transfer_resumes_after_the_receiving_daemon_is_killed() { resume_case kill; }
# lab: long (a transfer, a restart, and the rest of it: 20 s alone, up to 50 s beside others)
test_send_file_resume_after_the_sending_daemon_restarts() { resume_case sender; }

# Issue 44, the folder: a file of one block has no block record; it is
# marked in the transfer's record in the state directory (PEERDP1) before
# its rename. The receiving daemon is killed while a folder of small files
# lands; after the resume every file is there once, under its own name
# (none received again as "name (1)"), and no record is left.
# lab: long (a folder over a slow link, a kill, and the rest: about 15 s)
test_a_folder_of_small_files_resumes_after_a_kill_and_lands_each_file_once() {
    paired_peers
    local src="$LAB_DIR/src/small" dest="$LAB_DIR/h2/state/downloads/host1/small"
    mkdir -p "$src"
    for f in $(seq 0 599); do head -c $(( f * 37 % 16000 + (f % 50 == 0 ? 0 : 1) )) /dev/urandom >"$src/f$f.txt"; done
    slow_link 2 16mbit
    lab_spawn 1 "$LAB_DIR/send.out" "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$src"
    local sender=$LAB_PID
    lab_wait_for 60 sh -c "[ \$(find '$dest' -maxdepth 1 -type f -name 'f*' 2>/dev/null | wc -l) -ge 150 ]" || fail "host2 did not get 150 files: $(json 2 transfers)"
    stop_peerd 2 KILL
    [ -z "$(find "$LAB_DIR/h2/state/downloads" -name '.peerd-*.blocks')" ] || fail "a small file has a block record: $(find "$LAB_DIR/h2/state/downloads" -name '.peerd-*.blocks' | head -3)"
    [ -n "$(find "$LAB_DIR/h2/state/transfers" -name '*.placed')" ] || fail "no record of the files in place after the kill"
    tc -n "$(lab_switch_ns)" qdisc del dev "p2-$LAB_ID" root 2>/dev/null || true
    start_peerd 2
    lab_wait_for 90 sh -c "! kill -0 $sender 2>/dev/null" || fail "the folder did not finish after the resume: $(json 1 transfers)"
    wait "$sender" || fail "send-file failed: $(cat "$LAB_DIR/send.out")"
    expect_eq "$(cd "$dest" && find . -type f | wc -l)" 600 "files received, each once"
    expect_eq "$(cd "$dest" && find . -type f -exec sha256sum {} + | sort | sha256sum)" "$(cd "$src" && find . -type f -exec sha256sum {} + | sort | sha256sum)" "the files' hashes"
    [ -z "$(find "$LAB_DIR/h2/state/downloads" -name '.peerd-*')" ] || fail "partial files left: $(find "$LAB_DIR/h2/state/downloads" -name '.peerd-*' | head -3)"
    [ -z "$(ls -A "$LAB_DIR/h2/state/transfers")" ] || fail "records left in the state directory: $(ls -A "$LAB_DIR/h2/state/transfers")"
    note "$(transfer_field 2 .resentBytes) bytes received twice after the kill"
}

# Names a receiver must refuse, sent by a peer that does not check them.
test_names_with_traversal_absolute_paths_or_control_characters_are_refused() {
    start_peerd 2 --auto-accept all
    local out; out=$(lab_exec 1 "$BIN/peerprobe" offer "$(lab_address 2)" "$(status_field 2 .port)" \
        '../evil' '/tmp/evil-abs' 'a\x01b' 'ok.txt' 'sub/../evil2' 'sub/ok2.txt' 'a//b' 'x\x7fy')
    note "$out"
    expect_eq "$out" '../evil=dotComponent /tmp/evil-abs=absolute a\x01b=controlCharacter ok.txt=accepted sub/../evil2=dotComponent sub/ok2.txt=accepted a//b=emptyComponent x\x7fy=controlCharacter -> done' "the verdicts"
    # The probe's row has a made-up name: its folder is the only one.
    expect_eq "$(cd "$LAB_DIR/h2/state/downloads" && find . -type f | sed 's|^\./[^/]*/||' | sort | tr '\n' ' ')" "ok.txt sub/ok2.txt " "the files written"
    [ -z "$(find / -xdev -name 'evil*' -newer "$LAB_DIR/h2/peerd.log" 2>/dev/null | head -1)" ] || fail "a refused name was written somewhere"
    [ ! -e /tmp/evil-abs ] || fail "an absolute name was written"
}

# offer_id I: the id of the offer waiting on host I.
offer_id() { json "$1" transfers | jq -r '[.transfers[] | select(.state == "offered" and .direction == "receive")][0].id // empty'; }
has_offer() { [ -n "$(offer_id "$1")" ]; }
no_partials() { [ -z "$(find "$LAB_DIR/h2/state/downloads" -name '.peerd-*' 2>/dev/null)" ]; }

test_decline_partial_accept_and_cancel_from_either_side() {
    two_peers --auto-accept none
    connect_peers
    local src="$LAB_DIR/src"; mkdir -p "$src"
    for n in a b c; do echo "file $n" >"$src/$n.txt"; done
    # Decline: the sender is told, and exits non-zero.
    lab_spawn 1 "$LAB_DIR/s1.out" "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$src/a.txt"
    local sender=$LAB_PID
    lab_wait_for 10 has_offer 2 || fail "host2 got no offer"
    has_event "$LAB_DIR/connect-w2.jsonl" '.type == "transferOffered" and (.transfer.files | length) == 1 and .transfer.files[0].name == "a.txt"' \
        || fail "no transferOffered event with the file's name"
    ctl 2 decline-transfer "$(offer_id 2)" >/dev/null || fail "decline-transfer failed"
    wait "$sender" && fail "send-file succeeded after a decline"
    grep -q "declined" "$LAB_DIR/s1.out" || fail "send-file did not say declined: $(cat "$LAB_DIR/s1.out")"
    # Partial accept: files 0 and 2 of three.
    lab_spawn 1 "$LAB_DIR/s2.out" "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$src/a.txt" "$src/b.txt" "$src/c.txt"
    sender=$LAB_PID
    lab_wait_for 10 has_offer 2 || fail "host2 got no second offer"
    ctl 2 accept-transfer "$(offer_id 2)" --files 0,2 >/dev/null || fail "accept-transfer --files failed"
    wait "$sender" || fail "send-file of a partly accepted offer failed: $(cat "$LAB_DIR/s2.out")"
    expect_eq "$(ls "$LAB_DIR/h2/state/downloads/host1" | tr '\n' ' ')" "a.txt c.txt " "the files accepted"
    expect_eq "$(json 1 transfers | jq -r '.transfers[0] | "\(.state) \(.acceptedFiles) \([.files // [] | .[] | .verdict] | join(","))"')" "completed 2 " "the sender's view"
    expect_eq "$(json 1 transfers "$(transfer_field 1 .id)" | jq -r '[.transfers[0].files[].verdict] | join(",")')" "accepted,declined,accepted" "the verdicts"
    # Cancel from each side, mid-transfer: nothing left at the final name.
    make_file "$src/big.bin" 64
    slow_link 2 40mbit
    local who
    for who in 1 2; do
        lab_spawn 1 "$LAB_DIR/s3-$who.out" "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$src/big.bin"
        sender=$LAB_PID
        lab_wait_for 10 has_offer 2 || fail "host2 got no offer of big.bin"
        ctl 2 accept-transfer "$(offer_id 2)" >/dev/null || fail "accept failed"
        lab_wait_for 20 received_at_least 2 $((4 << 20)) || fail "nothing arrived"
        ctl "$who" cancel-transfer "$(transfer_field "$who" .id)" >/dev/null || fail "cancel-transfer on host$who failed"
        wait "$sender" && fail "send-file succeeded after a cancel on host$who"
        lab_wait_for 5 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 2)' --json transfers | jq -r '.transfers[0].state')\" = cancelled ]" \
            || fail "host2 does not show the transfer cancelled: $(json 2 transfers)"
        [ ! -e "$LAB_DIR/h2/state/downloads/host1/big.bin" ] || fail "a cancelled file is at its final name"
        lab_wait_for 5 no_partials || fail "partial files left after a cancel on host$who: $(find "$LAB_DIR/h2/state/downloads" -name '.peerd-*')"
    done
}

test_an_offer_with_no_client_waits_then_times_out() {
    two_peers --auto-accept none --offer-timeout 4
    connect_peers
    # No client on host2 decides: the watcher that accepted the session goes.
    pkill -f "peerctl --socket $(sock 2) --json watch"
    lab_wait_for 5 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 2)' --json status | jq .subscribers)\" = 0 ]" || fail "the watcher did not go"
    echo hello >"$LAB_DIR/a.txt"
    local start; start=$(date +%s)
    ctl 1 send-file host2 "$LAB_DIR/a.txt" >"$LAB_DIR/s.out" 2>&1 && fail "send-file succeeded with nobody to accept"
    local took=$(( $(date +%s) - start ))
    grep -q "timedOut" "$LAB_DIR/s.out" || fail "send-file did not say timedOut: $(cat "$LAB_DIR/s.out")"
    [ "$took" -ge 3 ] || fail "the offer ended after $took s; it should wait for the 4 s timeout"
    expect_eq "$(transfer_field 2 '"\(.state) \(.reason)"')" "failed timedOut" "host2's record of the offer"
    [ ! -e "$LAB_DIR/h2/state/downloads/host1/a.txt" ] || fail "a file of an unanswered offer was written"
}

test_a_full_disk_fails_the_transfer_cleanly() {
    # A small disk of its own, outside the lab's folder; unmounted after
    # the lab is down (its daemons hold it open until then).
    local small; small=$(mktemp -d /tmp/peerd-disk.XXXXXX)
    mount -t tmpfs -o size=100m tmpfs "$small" || fail "cannot mount a tmpfs"
    trap "lab_down; umount '$small' 2>/dev/null; rmdir '$small' 2>/dev/null" EXIT
    paired_peers --download-dir "$small"
    make_file "$LAB_DIR/big.bin" 30
    slow_link 2 40mbit
    lab_spawn 1 "$LAB_DIR/send.out" "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$LAB_DIR/big.bin"
    local sender=$LAB_PID
    lab_wait_for 20 received_at_least 2 $((2 << 20)) || fail "nothing arrived: $(json 2 transfers)"
    # Something else fills the disk while the file arrives.
    head -c $((90 << 20)) /dev/zero >"$small/filler" 2>/dev/null
    wait "$sender" && fail "send-file succeeded on a full disk"
    grep -q "noSpace" "$LAB_DIR/send.out" || fail "the sender was not told noSpace: $(cat "$LAB_DIR/send.out")"
    expect_eq "$(transfer_field 2 '"\(.state) \(.reason)"')" "failed noSpace" "host2's record"
    [ ! -e "$small/host1/big.bin" ] || fail "a partial file is at the final name"
    [ -z "$(find "$small" -name '.peerd-*.part')" ] || fail "the partial file was left"
    # Offered again with the disk still full: refused before a byte moves.
    ctl 1 send-file host2 "$LAB_DIR/big.bin" >"$LAB_DIR/send2.out" 2>&1 && fail "a second offer was accepted on a full disk"
    grep -q "noSpace" "$LAB_DIR/send2.out" || fail "the second offer was not refused as noSpace: $(cat "$LAB_DIR/send2.out")"
    expect_eq "$(ctl 2 status >/dev/null && echo up)" up "peerd on host2 after a full disk"
}

# 100-byte messages keep moving while a 1 GiB transfer fills the session:
# bulk frames wait behind at most 1 MiB, never the other way round.
# lab: alone (it times messages beside a 1 GiB transfer, which also takes both cores)
test_small_messages_stay_under_100_ms_during_a_1_gib_transfer() {
    paired_peers
    make_file "$LAB_DIR/huge.bin" 1024
    /usr/bin/python3 - "$(sock 2)" "$LAB_DIR/stop" >"$LAB_DIR/latency.out" 2>&1 <<'PY' &
import base64, json, os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rb")
s.sendall(b'{"v":1,"id":1,"method":"subscribe","params":{"take":true}}\n')
worst, count = 0.0, 0
while True:
    line = f.readline()
    if not line: break
    event = json.loads(line).get("event")
    if not event or event["type"] != "message": continue
    data = base64.b64decode(event["message"]["data"])
    if data.startswith(b"end"): break
    sent = float(data.split(b" ")[0])
    worst = max(worst, time.time() - sent); count += 1
print(count, round(worst * 1000, 1))
PY
    local measurer=$!
    lab_wait_for 5 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 2)' --json status | jq .subscribers)\" -ge 1 ]" || fail "the measurer did not subscribe"
    lab_spawn 1 "$LAB_DIR/send.out" "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$LAB_DIR/huge.bin"
    local sender=$LAB_PID
    lab_wait_for 20 received_at_least 2 1 || fail "the transfer did not start"
    /usr/bin/python3 - "$(sock 1)" "$(peer_field 1 host2 .id)" "$sender" >"$LAB_DIR/pinger.out" 2>&1 <<'PY'
import base64, json, os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rb")
n = 0
def send(data):
    global n
    n += 1
    s.sendall((json.dumps({"v": 1, "id": n, "method": "send", "params": {"peer": sys.argv[2], "data": base64.b64encode(data).decode()}}) + "\n").encode())
    reply = json.loads(f.readline())
    if "error" in reply: sys.exit("send: %s" % reply["error"])
def alive(pid):
    try: os.kill(pid, 0); return True
    except OSError: return False
while alive(int(sys.argv[3])) and n < 2000:
    send(("%.6f " % time.time()).encode().ljust(100, b"x"))
    time.sleep(0.02)
send(b"end")
print(n)
PY
    wait "$sender" || fail "the 1 GiB transfer failed: $(cat "$LAB_DIR/send.out")"
    wait "$measurer"
    local count worst; read -r count worst <"$LAB_DIR/latency.out" || true
    note "$count messages of 100 bytes during the 1 GiB transfer: slowest ${worst} ms"
    [ "${count:-0}" -ge 10 ] || fail "only ${count:-0} messages measured: $(cat "$LAB_DIR/latency.out" "$LAB_DIR/pinger.out")"
    awk -v w="$worst" 'BEGIN { exit !(w < 100) }' || fail "a 100-byte message took ${worst} ms; the bound is 100 ms"
    expect_eq "$(sha256sum <"$LAB_DIR/h2/state/downloads/host1/huge.bin")" "$(sha256sum <"$LAB_DIR/huge.bin")" "the 1 GiB file's hash"
}

# pipe: 256 MiB one way, then the other side answers after it saw the end.
# lab: long (256 MiB each way through two debug daemons: 13 s alone, up to 44 s beside others)
test_pipe_of_256_mib_matches_and_half_close_works_both_ways() {
    paired_peers
    make_file "$LAB_DIR/data.bin" 256
    # host2 sends only once it has read host1's end-of-file (sha256sum
    # writes its hash when it reads the end).
    lab_spawn 2 "$LAB_DIR/pipe2.err" sh -c "
        (while [ ! -s '$LAB_DIR/hash2' ]; do sleep 0.1; done; echo late-reply) |
        '$BIN/peerctl' --socket '$(sock 2)' pipe host1 --name backup | sha256sum >'$LAB_DIR/hash2'"
    local side2=$LAB_PID
    lab_spawn 1 "$LAB_DIR/pipe1.err" sh -c "'$BIN/peerctl' --socket '$(sock 1)' pipe host2 --name backup <'$LAB_DIR/data.bin' >'$LAB_DIR/out1'"
    local side1=$LAB_PID
    lab_wait_for 120 sh -c "! kill -0 $side1 2>/dev/null" || fail "host1's pipe did not end: $(cat "$LAB_DIR/pipe1.err")"
    wait "$side1" || fail "host1's pipe failed: $(cat "$LAB_DIR/pipe1.err")"
    lab_wait_for 10 sh -c "! kill -0 $side2 2>/dev/null" || fail "host2's pipe did not end"
    wait "$side2" || fail "host2's pipe failed: $(cat "$LAB_DIR/pipe2.err")"
    expect_eq "$(cut -d' ' -f1 <"$LAB_DIR/hash2")" "$(sha256sum <"$LAB_DIR/data.bin" | cut -d' ' -f1)" "sha256 of the 256 MiB at the far end"
    expect_eq "$(cat "$LAB_DIR/out1")" "late-reply" "what host2 sent after host1's half-close"
}

# A reader that goes away resets the stream: both ends exit non-zero.
test_a_pipe_reset_exits_non_zero_on_both_sides() {
    paired_peers
    lab_spawn 1 "$LAB_DIR/pipe1.err" sh -c "head -c 1000000000 /dev/zero | '$BIN/peerctl' --socket '$(sock 1)' pipe host2 --name r >/dev/null; echo \"exit \$?\" >'$LAB_DIR/exit1'"
    lab_spawn 2 "$LAB_DIR/pipe2.err" sh -c "sleep 30 | '$BIN/peerctl' --socket '$(sock 2)' pipe host1 --name r | head -c 100000 >/dev/null; echo \"exit \${PIPESTATUS:-?}\" >'$LAB_DIR/exit2'"
    lab_wait_for 30 test -s "$LAB_DIR/exit1" || fail "host1's pipe did not end after the reset: $(cat "$LAB_DIR/pipe1.err")"
    expect_eq "$(cat "$LAB_DIR/exit1")" "exit 1" "host1's peerctl after the reset"
    grep -q "reset" "$LAB_DIR/pipe1.err" || fail "host1 did not say reset: $(cat "$LAB_DIR/pipe1.err")"
    lab_wait_for 10 grep -q "reset" "$LAB_DIR/pipe2.err" || fail "host2 did not say reset: $(cat "$LAB_DIR/pipe2.err")"
}

# A stream and a big transfer share the session: the stream is not held
# behind the transfer, it finishes while the transfer still runs.
# lab: long (a big transfer through two debug daemons beside a stream: 24 s alone, up to 60 s beside others)
test_a_stream_and_a_big_transfer_share_the_session() {
    paired_peers
    make_file "$LAB_DIR/big.bin" 512
    make_file "$LAB_DIR/small.bin" 16
    slow_link 2 400mbit
    lab_spawn 1 "$LAB_DIR/send.out" "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$LAB_DIR/big.bin"
    local sender=$LAB_PID
    lab_wait_for 20 received_at_least 2 $((16 << 20)) || fail "the transfer did not start"
    lab_spawn 2 "$LAB_DIR/pipe2.err" sh -c "'$BIN/peerctl' --socket '$(sock 2)' pipe host1 --name side </dev/null | sha256sum >'$LAB_DIR/side.sha'"
    local side2=$LAB_PID
    ctl 1 pipe host2 --name side <"$LAB_DIR/small.bin" >/dev/null 2>"$LAB_DIR/pipe1.err" || fail "the pipe failed: $(cat "$LAB_DIR/pipe1.err")"
    wait "$side2"
    local done; done=$(transfer_field 2 .bytes)
    note "the 16 MiB stream ended with the 512 MiB transfer at $((done >> 20)) MiB"
    kill -0 "$sender" 2>/dev/null || fail "the transfer ended before the stream: the stream waited behind it"
    expect_eq "$(cut -d' ' -f1 <"$LAB_DIR/side.sha")" "$(sha256sum <"$LAB_DIR/small.bin" | cut -d' ' -f1)" "the stream's bytes"
    wait "$sender" || fail "the transfer failed: $(cat "$LAB_DIR/send.out")"
}

# Issue 21, point 6: `pipe --json` writes the stream's answer on stderr as
# one bare JSON line (it once had a "peerctl: " prefix), stdout being the
# stream's bytes.
test_pipe_json_answer_is_bare_json() {
    paired_peers
    lab_spawn 2 "$LAB_DIR/pipe2.err" sh -c "echo back | '$BIN/peerctl' --socket '$(sock 2)' --json pipe host1 --name j >'$LAB_DIR/out2'"
    local side2=$LAB_PID
    echo there | ctl 1 --json pipe host2 --name j >"$LAB_DIR/out1" 2>"$LAB_DIR/pipe1.err" || fail "the pipe failed: $(cat "$LAB_DIR/pipe1.err")"
    wait "$side2" || fail "host2's pipe failed: $(cat "$LAB_DIR/pipe2.err")"
    expect_eq "$(cat "$LAB_DIR/out1")/$(cat "$LAB_DIR/out2")" "back/there" "the bytes both ways"
    expect_eq "$(wc -l <"$LAB_DIR/pipe1.err")" 1 "lines on stderr ($(cat "$LAB_DIR/pipe1.err"))"
    expect_eq "$(jq -r .state <"$LAB_DIR/pipe1.err")" closed "the answer's state, parsed as JSON"
    expect_eq "$(jq -r .name <"$LAB_DIR/pipe2.err")" j "host2's answer, parsed as JSON"
}

# Issue 42, point 5: an ended transfer keeps only its summary (16 files);
# paging it with `offset` pages that summary, so following the documented
# paging ends. 0.3.0 answered every offset with files 0-15, and
# `peerctl --json transfers ID` printed them 1,000 times.
test_paging_an_ended_transfer_ends() {
    two_peers --auto-accept none
    connect_peers
    local src="$LAB_DIR/src" n; mkdir -p "$src"
    for n in $(seq -w 1 20); do echo "file $n" >"$src/f$n.txt"; done
    lab_spawn 1 "$LAB_DIR/s.out" "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$src"/f*.txt
    local sender=$LAB_PID
    lab_wait_for 10 has_offer 2 || fail "host2 got no offer"
    ctl 2 accept-transfer "$(offer_id 2)" >/dev/null || fail "accept-transfer"
    wait "$sender" || fail "send-file of 20 files: $(cat "$LAB_DIR/s.out")"
    local id; id=$(json 2 transfers | jq -r '.transfers[0] | select(.state == "completed") | .id')
    [ -n "$id" ] || fail "no completed transfer on host2: $(json 2 transfers | jq -c '.transfers[0] | {state}')"
    page() {
        printf '{"v":1,"id":1,"method":"transfers","params":{"transfer":"%s","offset":%s}}\n' "$id" "$1" \
            | timeout 5 python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read()); s.shutdown(socket.SHUT_WR); sys.stdout.buffer.write(s.makefile("rb").readline())' "$(sock 2)" \
            | jq -c '.result.transfers[0] | {first: (.files[0].index // null), n: (.files | length), omitted: .filesOmitted}'
    }
    expect_eq "$(page 0)" '{"first":0,"n":16,"omitted":4}' "offset 0"
    expect_eq "$(page 4)" '{"first":4,"n":12,"omitted":8}' "offset 4"
    expect_eq "$(page 16)" '{"first":null,"n":0,"omitted":20}' "offset 16, past the summary"
    expect_eq "$(timeout 10 "$BIN/peerctl" --socket "$(sock 2)" --json transfers "$id" | jq '.transfers[0].files | length')" 16 "files peerctl lists"
}
