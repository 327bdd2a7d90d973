# A hostile peer against files (issue 21, point 1), sourced by run.sh. The
# peer is peerprobe (Sources/peerprobe): a sender that checks nothing.

# probe_on I MODE ARGS...: peerprobe on host I against host 2's session
# port, with the variables in PROBE_ENV (VAR=VALUE ...) set.
probe_on() { local i=$1 mode=$2; shift 2; lab_exec "$i" env ${PROBE_ENV:-} "$BIN/peerprobe" "$mode" "$(lab_address 2)" "$(status_field 2 .port)" "$@"; }
# A transfer id of 32 hex digits from a word.
flow_of() { printf '%s' "$1" | sha256sum | cut -c1-32; }

# Point 1.7 and 1.1: lookalike, invisible and reserved names are refused
# (on the wire under the code a 0.1.0 sender knows; exactly in the events),
# and a received file's mode never stays group- or world-writable.
test_reserved_invisible_and_lookalike_names_are_refused_and_modes_masked() {
    start_peerd 2 --auto-accept all
    local out
    out=$(PROBE_ENV=PROBE_MODE=6777 probe_on 1 offer '.peerd-00112233445566778899aabbccddeeff.accepted' 'invoice\xe2\x80\xaefdp.exe' \
        'pay\xe2\x80\x8bpal.pdf' 'a\xe2\x80\xa8b' '\xef\xbb\xbfbom.txt' 'etc\xef\xbc\x8fpasswd' 'ok.txt')
    note "$out"
    case "$out" in *"ok.txt=accepted -> done") ;; *) fail "the transfer did not end with ok.txt alone: $out" ;; esac
    expect_eq "$(echo "$out" | grep -o '=controlCharacter' | wc -l)" 5 "invisible and lookalike names on the wire (code 23)"
    expect_eq "$(echo "$out" | grep -o '=dotComponent' | wc -l)" 1 "the reserved name on the wire (code 22)"
    local id; id=$(json 2 transfers | jq -r '.transfers[0].id')
    expect_eq "$(json 2 transfers "$id" | jq -r '[.transfers[0].files[].verdict] | join(" ")')" \
        "reservedName invisibleCharacter invisibleCharacter invisibleCharacter invisibleCharacter lookalikeSeparator accepted" "the verdicts host2 names"
    expect_eq "$(cd "$LAB_DIR/h2/state/downloads" && find . -type f | sed 's|^\./[^/]*/||' | sort | tr '\n' ' ')" "ok.txt " "the files written"
    expect_eq "$(stat -c %a "$(find "$LAB_DIR/h2/state/downloads" -name ok.txt)")" 755 "the mode of a file sent as 6777"
}

# Points 1.1 and 1.2: an offer the user accepted for notes.txt comes back,
# after the receiver restarts, under the same id as autorun.sh, bigger and
# executable: it is a new offer and the user is asked. The same files
# again still resume without asking.
test_an_old_transfer_id_with_other_files_is_asked_afresh() {
    export PROBE_KEY_FILE="$LAB_DIR/probe.key"
    start_peerd 2 --auto-accept none
    watch_on 2 "$LAB_DIR/w2.jsonl"
    local flow; flow=$(flow_of notes)
    lab_spawn 1 "$LAB_DIR/p1.out" "$BIN/peerprobe" offer-only "$(lab_address 2)" "$(status_field 2 .port)" "$flow" 20 notes.txt:1048576:644
    local probe=$LAB_PID
    lab_wait_for 10 has_invitation 2 || fail "no invitation from the probe"
    ctl 2 accept "$(pending_invitation 2)" >/dev/null || fail "accept the invitation"
    lab_wait_for 10 has_event "$LAB_DIR/w2.jsonl" '.type == "transferOffered"' || fail "no transferOffered for notes.txt"
    ctl 2 accept-transfer "${flow:0:8}" >/dev/null || fail "accept-transfer"
    wait "$probe"
    expect_eq "$(cat "$LAB_DIR/p1.out")" "0=accepted@0" "the first answer"
    [ -e "$LAB_DIR/h2/state/transfers/$flow.accepted" ] || fail "no acceptance record in the state directory"
    [ -z "$(find "$LAB_DIR/h2/state/downloads" -name '*.accepted')" ] || fail "an acceptance note in the download folder"
    stop_peerd 2
    start_peerd 2 --auto-accept none
    watch_on 2 "$LAB_DIR/w2b.jsonl"
    lab_spawn 1 "$LAB_DIR/p2.out" "$BIN/peerprobe" offer-only "$(lab_address 2)" "$(status_field 2 .port)" "$flow" 4 autorun.sh:2097152:755
    probe=$LAB_PID
    lab_wait_for 10 has_invitation 2 || fail "no invitation from the probe after the restart"
    ctl 2 accept "$(pending_invitation 2)" >/dev/null || fail "accept the second invitation"
    wait "$probe"
    expect_eq "$(cat "$LAB_DIR/p2.out")" "no answer" "the answer to other files under the old id"
    has_event "$LAB_DIR/w2b.jsonl" '.type == "transferOffered" and .transfer.files[0].name == "autorun.sh"' \
        || fail "autorun.sh was not put to the user: $(cat "$LAB_DIR/w2b.jsonl")"
    # The same files as accepted before: a resume, without asking.
    lab_spawn 1 "$LAB_DIR/p3.out" "$BIN/peerprobe" offer-only "$(lab_address 2)" "$(status_field 2 .port)" "$flow" 10 notes.txt:1048576:644
    probe=$LAB_PID
    lab_wait_for 10 has_invitation 2 || fail "no third invitation"
    ctl 2 accept "$(pending_invitation 2)" >/dev/null || fail "accept the third invitation"
    wait "$probe"
    expect_eq "$(cat "$LAB_DIR/p3.out")" "0=accepted@0" "the same files again resume"
    expect_eq "$(grep -c 'transferOffered' "$LAB_DIR/w2b.jsonl")" 1 "offers put to the user after the restart"
}

# Point 1.3: the disk's room counts what accepted offers will still write,
# and inodes; a transfer that fails removes the folders it made.
test_offers_count_promised_bytes_and_inodes_and_failures_leave_no_folders() {
    local small; small=$(mktemp -d /tmp/peerd-disk.XXXXXX)
    mount -t tmpfs -o size=300m,nr_inodes=3000 tmpfs "$small" || fail "cannot mount a tmpfs"
    trap "lab_down; umount '$small' 2>/dev/null; rmdir '$small' 2>/dev/null" EXIT
    start_peerd 2 --auto-accept all --download-dir "$small"
    local out
    out=$(probe_on 1 offer-only "$(flow_of one)" 5 one.bin:209715200:644)
    expect_eq "$out" "0=accepted@0" "the first 200 MiB offer against 300 MiB"
    out=$(probe_on 1 offer-only "$(flow_of two)" 5 two.bin:209715200:644)
    case "$out" in "cancelled noSpace: the offer needs "*" bytes"*) ;; *) fail "a second 200 MiB offer was not refused: $out" ;; esac
    out=$(probe_on 1 offer-only "$(flow_of many)" 5 many:4000:8)
    case "$out" in "cancelled noSpace: the offer needs "*" inodes"*) ;; *) fail "4,000 empty files on 3,000 inodes were not refused: $out" ;; esac
    out=$(PROBE_ENV=PROBE_BAD_HASH=1 probe_on 1 offer 'a/b/c/d/x.txt' 'e/f/y.txt')
    case "$out" in *"cancelled verifyFailed"*) ;; *) fail "a bad hash did not fail the transfer: $out" ;; esac
    lab_wait_for 5 sh -c "[ -z \"\$(find '$small' -mindepth 1 -type d)\" ]" || fail "folders left: $(find "$small" -type d)"
}

# Point 1.4: the partial files of transfers that stopped long ago are swept
# at start; fresh ones, and the user's own files, stay.
test_partial_files_of_stopped_transfers_are_swept() {
    local d="$LAB_DIR/h2/state/downloads/gone" old new
    mkdir -p "$d/sub" "$LAB_DIR/h2/state/transfers"
    old=$(flow_of old); new=$(flow_of new)
    head -c 1048576 /dev/zero >"$d/.peerd-$old-0.part"
    : >"$d/.peerd-$old-0.blocks"; : >"$d/sub/.peerd-$old-1.part"; : >"$d/.peerd-$old.accepted"
    : >"$LAB_DIR/h2/state/transfers/$old.accepted"; : >"$LAB_DIR/h2/state/transfers/$old.placed"; : >"$d/old-but-mine.txt"
    touch -d '3 days ago' "$d/.peerd-$old-0.part" "$d/.peerd-$old-0.blocks" "$d/sub/.peerd-$old-1.part" "$d/.peerd-$old.accepted" \
        "$LAB_DIR/h2/state/transfers/$old.accepted" "$LAB_DIR/h2/state/transfers/$old.placed" "$d/old-but-mine.txt"
    : >"$d/.peerd-$new-0.part"
    start_peerd 2 --partial-lifetime 86400
    lab_wait_for 10 grep -q "swept 6 files (1048576 bytes)" "$LAB_DIR/h2/peerd.log" || fail "no sweep logged: $(grep swept "$LAB_DIR/h2/peerd.log")"
    expect_eq "$(cd "$d" && find . -type f | sort | tr '\n' ' ')" "./.peerd-$new-0.part ./old-but-mine.txt " "what is left"
    [ ! -e "$LAB_DIR/h2/state/transfers/$old.accepted" ] || fail "an old acceptance record stayed"
    [ ! -e "$LAB_DIR/h2/state/transfers/$old.placed" ] || fail "an old record of files in place stayed"
}

# Points 1.5 and 1.6: an offer of 5,000 long names makes a small event, and
# its list pages; lists that never end are bounded by what they cost (one
# list alone by its 16 MiB of names, a peer's together by its share).
test_huge_offers_make_small_events_and_unfinished_lists_are_bounded() {
    start_peerd 2 --auto-accept none
    watch_on 2 "$LAB_DIR/w2.jsonl"
    local flow; flow=$(flow_of huge)
    lab_spawn 1 "$LAB_DIR/p.out" "$BIN/peerprobe" offer-only "$(lab_address 2)" "$(status_field 2 .port)" "$flow" 20 many:5000:200
    lab_wait_for 10 has_invitation 2 || fail "no invitation"
    ctl 2 accept "$(pending_invitation 2)" >/dev/null || fail "accept"
    lab_wait_for 10 has_event "$LAB_DIR/w2.jsonl" '.type == "transferOffered"' || fail "no transferOffered"
    local line; line=$(grep transferOffered "$LAB_DIR/w2.jsonl" | head -1)
    [ "${#line}" -lt 16384 ] || fail "the event is ${#line} bytes"
    expect_eq "$(echo "$line" | jq '.transfer.filesOmitted + (.transfer.files | length)')" 5000 "listed and omitted"
    expect_eq "$(json 2 transfers "${flow:0:8}" | jq '.transfers[0].files | length')" 5000 "files fetched page by page"
    expect_eq "$(ctl 2 transfers "${flow:0:8}" | grep -c 'xxxxxxxx')" 5000 "files listed by peerctl"
    # Two lists of 60,000 names of 200 bytes, never finished: together they
    # pass what one peer's lists may cost (issue 42, point 1), and the
    # second is refused as busy while the first is held.
    lab_spawn 1 "$LAB_DIR/endless.out" env PROBE_UNFINISHED=1 PROBE_OFFERS=2 "$BIN/peerprobe" offer-only "$(lab_address 2)" "$(status_field 2 .port)" \
        "$(flow_of endless)" 10 many:60000:200
    local probe=$LAB_PID
    lab_wait_for 10 has_invitation 2 || fail "no second invitation"
    ctl 2 accept "$(pending_invitation 2)" >/dev/null || fail "accept the second invitation"
    wait "$probe"
    local out; out=$(cat "$LAB_DIR/endless.out")
    case "$out" in "cancelled busy: the offer lists this host holds from you pass"*) ;; *) fail "endless offer lists were not refused: $out" ;; esac
}

# Issue 42, point 5: sizes are unsigned 64-bit numbers and so is their sum.
# A file whose size has its top bit set is refused alone (verdict 4), and
# the rest of the offer is answered; 0.3.0 cancelled the whole offer as one
# whose files "do not add up". A sum past 2^64 - 1 cannot be declared.
test_an_offer_with_a_top_bit_size_is_answered_file_by_file() {
    start_peerd 2 --auto-accept all
    local out size
    for size in 9223372036854775808 18446744073709551605; do
        out=$(lab_exec 1 "$BIN/peerprobe" offer-only "$(lab_address 2)" "$(status_field 2 .port)" "$(flow_of "top$size")" 10 \
            small.txt:10:644 "huge.bin:$size:644")
        expect_eq "$out" "0=accepted@0 1=badSize" "the answer to sizes 10 and $size"
    done
    out=$(lab_exec 1 env PROBE_TOTAL=0 "$BIN/peerprobe" offer-only "$(lab_address 2)" "$(status_field 2 .port)" "$(flow_of overflow)" 10 \
        a.bin:9223372036854775808:644 b.bin:9223372036854775808:644)
    expect_eq "$out" "cancelled protocolError: an offer whose sizes overflow" "the answer to sizes whose sum passes 2^64 - 1"
    grep -q "panic\|Fatal error" "$LAB_DIR/h2/peerd.log" && fail "peerd crashed"
    ctl 2 status >/dev/null || fail "peerd on host 2 stopped answering"
}

# private_kib I: host I's peerd's private memory (smaps_rollup), in KiB.
# It counts the pages of the program's own code too while no other process
# maps them (about 6 MB of a debug build, faulted in as paths first run).
private_kib() { awk '/^Private_(Clean|Dirty)/ {s += $2} END {print s}' "/proc/$(cat "$LAB_DIR/h$1/peerd.pid")/smaps_rollup"; }

# Issue 42, point 1: finished offers waiting for a decision count in the
# same budget as the lists still arriving, at what they cost in memory,
# and an undecided offer ends with its session. 0.3.0 held 8 finished
# offers of 15 MiB of names from one peer (325 MB private) for the whole
# offer timeout, still `offered` after the peer hung up.
# lab: alone (it measures the daemon's memory)
test_finished_offers_count_in_the_list_budget_and_end_with_their_session() {
    start_peerd 2 --auto-accept none
    watch_on 2 "$LAB_DIR/w2.jsonl"
    # Where it starts: a daemon that has taken an offer before (one small
    # offer from the same probe key, left undecided; it ends with its
    # session), so the code that parses offers is already in memory.
    export PROBE_KEY_FILE="$LAB_DIR/probe.key"
    lab_spawn 1 "$LAB_DIR/warm.out" "$BIN/peerprobe" offer-only "$(lab_address 2)" "$(status_field 2 .port)" "$(flow_of warm)" 2 many:100:100
    local warm=$LAB_PID
    lab_wait_for 10 has_invitation 2 || fail "no invitation for the first offer"
    ctl 2 accept "$(pending_invitation 2)" >/dev/null || fail "accept the first offer's session"
    wait "$warm"
    lab_wait_for 10 has_event "$LAB_DIR/w2.jsonl" '.type == "transferFailed"' || fail "the first offer did not end with its session"
    # A request is answered after the trims the session's end queued on
    # the main queue before it: after this, the heap was handed back.
    ctl 2 status >/dev/null || fail "status"
    local before; before=$(private_kib 2)
    # 8 offers of 18,927 names of 786 bytes in components of 200 (14.2 MiB of names, 16.1 MB with
    # the 64 bytes a file the list budget adds) each.
    lab_spawn 1 "$LAB_DIR/p.out" env PROBE_OFFERS=${PROBE_OFFERS_N:-8} "$BIN/peerprobe" offer-only "$(lab_address 2)" "$(status_field 2 .port)" "$(flow_of finished)" 20 many:18927:776
    local probe=$LAB_PID
    lab_wait_for 10 has_invitation 2 || fail "no invitation"
    ctl 2 accept "$(pending_invitation 2)" >/dev/null || fail "accept"
    local peak=0 now slowest=0 t0 ms
    lab_wait_for 40 sh -c "[ \$(grep -c transferOffered '$LAB_DIR/w2.jsonl') -ge 2 ]" || fail "no offer was put to the user"
    while kill -0 "$probe" 2>/dev/null; do
        t0=$(date +%s%N); ctl 2 status >/dev/null; ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        [ "$ms" -gt "$slowest" ] && slowest=$ms
        now=$(private_kib 2); [ "$now" -gt "$peak" ] && peak=$now
        sleep 0.2
    done
    local offered; offered=$(json 2 transfers | jq '[.transfers[] | select(.direction == "receive")] | length')
    note "private before $before KiB, peak $peak KiB; slowest status ${slowest} ms; offers taken $offered of 8: $(cat "$LAB_DIR/p.out")"
    [ $((peak - before)) -le $((24 * 1024)) ] || fail "private memory grew by $(( (peak - before) / 1024 )) MiB with 8 finished offers of 15 MiB of names"
    # The peer hung up: its undecided offers end, and their memory goes.
    lab_wait_for 5 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 2)' --json transfers | jq '[.transfers[] | select(.state == \"offered\")] | length')\" = 0 ]" \
        || fail "offers still offered after the peer hung up: $(json 2 transfers | jq -c '[.transfers[] | .state]')"
    expect_eq "$(grep -a '^{' "$LAB_DIR/w2.jsonl" | jq -s '[.[] | select(.type == "transferFailed" and .transfer.state == "cancelled" and (.transfer.detail // "" | test("session ended")))] | length')" 2 \
        "transferFailed events saying the session ended (the first offer's and the big one's)"
    lab_wait_for 15 sh -c "[ \$(awk '/^Private_(Clean|Dirty)/ {s += \$2} END {print s}' /proc/$(cat "$LAB_DIR/h2/peerd.pid")/smaps_rollup) -le $(( before + before / 10 )) ]" \
        || { cp "/proc/$(cat "$LAB_DIR/h2/peerd.pid")/smaps" "$LAB_DIR/smaps.txt"; fail "private memory $(private_kib 2) KiB 15 s after the peer hung up, from $before KiB"; }
}
