# The desktop agent's notifications you can answer, issue 45 point 2
# (sourced by run.sh). Host 1 gets a desktop user (uid 65534 in group
# peerd) with a session bus and a notification server
# (python-dbusmock's notification_daemon template, which records each call
# and emits a signal when asked, as a server does when a button is pressed).

# agent_desktop I: on host I, as uid 65534 in group peerd (a desktop
# user, not root): a session bus, a notification server with buttons and
# markup, and peerd-agent. SESSION_BUS is the bus's address; NOTIFY_LOG
# records the calls the server received; AS_USER runs a command as that user.
agent_desktop() {
    local i=$1 home="$LAB_DIR/h$1/desktop"
    use_peerd_group
    AS_USER=(setpriv --reuid=65534 --regid=65534 --groups="$PEERD_GID")
    chmod 0755 "$LAB_DIR" "$LAB_DIR/h$i"
    # The app Show runs: it says which id it was given (and writes nothing elsewhere).
    mkdir -p "$home/bin" && printf '#!/bin/sh\necho "$@" >"%s/app-shown"\n' "$home" >"$home/bin/show-app" && chmod 0755 "$home/bin/show-app"
    chown -R 65534:65534 "$home"
    SESSION_BUS="unix:path=$home/session.sock"
    NOTIFY_LOG="$home/notify-calls.log"
    lab_spawn "$i" "$LAB_DIR/h$i/session-bus.log" "${AS_USER[@]}" dbus-daemon --session --nofork --nopidfile --address="$SESSION_BUS"
    lab_wait_for 5 test -S "$home/session.sock" || fail "no session bus: $(cat "$LAB_DIR/h$i/session-bus.log")"
    lab_spawn "$i" "$LAB_DIR/h$i/notify.log" "${AS_USER[@]}" env DBUS_SESSION_BUS_ADDRESS="$SESSION_BUS" \
        /usr/bin/python3 -m dbusmock --session --template notification_daemon -p '{"capabilities": "body body-markup actions"}' -l "$NOTIFY_LOG"
    lab_wait_for 10 session_has_name "$i" org.freedesktop.Notifications || fail "no notification server: $(cat "$LAB_DIR/h$i/notify.log")"
    local before; before=$(status_field "$i" .subscribers)
    lab_spawn "$i" "$LAB_DIR/h$i/agent.log" "${AS_USER[@]}" env DBUS_SESSION_BUS_ADDRESS="$SESSION_BUS" HOME="$home" XDG_CONFIG_HOME="$home/.config" \
        "$BIN/peerd-agent" --socket "$(sock "$i")" --app "$home/bin/show-app"
    AGENT_PID=$LAB_PID
    lab_wait_for 10 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock "$i")' --json status | jq .subscribers)\" -gt $before ]" \
        || fail "the agent did not subscribe: $(cat "$LAB_DIR/h$i/agent.log")"
}

# session_has_name I NAME: NAME is owned on host I's session bus.
session_has_name() {
    lab_exec "$1" "${AS_USER[@]}" /usr/bin/python3 -c 'import dbus, sys; sys.exit(0 if dbus.bus.BusConnection(sys.argv[1]).name_has_owner(sys.argv[2]) else 1)' \
        "$SESSION_BUS" "$2"
}

# press I ID ACTION: the server reports that the user pressed ACTION on notification ID.
press() {
    lab_exec "$1" "${AS_USER[@]}" /usr/bin/python3 -c '
import dbus, sys
bus = dbus.bus.BusConnection(sys.argv[1])
mock = bus.get_object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
mock.EmitSignal("org.freedesktop.Notifications", "ActionInvoked", "us", [dbus.UInt32(int(sys.argv[2])), sys.argv[3]],
                dbus_interface="org.freedesktop.DBus.Mock")' "$SESSION_BUS" "$2" "$3"
}

# notify_calls: the Notify calls the server received, one a line.
notify_calls() { grep ' Notify ' "$NOTIFY_LOG" 2>/dev/null; }

# An invitation shows Accept and Decline; Accept connects, and its
# notification closes. An offer then shows Accept, Decline and Show: Show
# runs the app, Accept lands the file byte for byte, and the offer's
# notification becomes its end in place (replaces_id). An offer declined
# in peerctl closes its notification; a pairing request's "Enter code…"
# opens the app on the pairing, and its end closes it. (The server numbers
# its notifications from 1: the invitation's, the offer's, the second
# offer's, the pairing's.)
test_the_agents_buttons_answer_an_invitation_and_an_offer_and_a_decline_elsewhere_closes_the_prompt() {
    two_peers --auto-accept none
    agent_desktop 1
    ctl 2 invite host1 --wait >"$LAB_DIR/invite.out" 2>&1 &
    local inviter=$!
    lab_wait_for 10 sh -c "grep ' Notify ' '$NOTIFY_LOG' | grep -q 'host2 invites you'" || fail "no notification of the invitation: $(cat "$LAB_DIR/h1/agent.log")"
    case $(notify_calls | head -1) in *'"accept", "Accept", "decline", "Decline"'*) ;; *) fail "the invitation's buttons: $(notify_calls)" ;; esac
    press 1 1 accept
    wait "$inviter" || fail "the invitation was not accepted: $(cat "$LAB_DIR/invite.out")"
    lab_wait_for 10 state_is 1 host2 connected || fail "host1 is not connected"
    lab_wait_for 5 grep -q ' CloseNotification 1$' "$NOTIFY_LOG" || fail "the answered invitation's notification stayed: $(cat "$NOTIFY_LOG")"

    make_file "$LAB_DIR/offer.bin" 3
    lab_spawn 2 "$LAB_DIR/send.out" "$BIN/peerctl" --socket "$(sock 2)" send-file host1 "$LAB_DIR/offer.bin"
    local sender=$LAB_PID
    lab_wait_for 10 sh -c "grep ' Notify ' '$NOTIFY_LOG' | grep -q 'offers files'" || fail "no notification of the offer: $(cat "$LAB_DIR/h1/agent.log")"
    local offer; offer=$(notify_calls | grep 'offers files' | head -1)
    case $offer in *'"host2 offers files"'*'"offer.bin (3.0 MiB)"'*'"accept", "Accept", "decline", "Decline", "show", "Show"'*) ;;
        *) fail "the offer's notification: $offer" ;; esac
    press 1 2 show
    lab_wait_for 5 test -s "$LAB_DIR/h1/desktop/app-shown" || fail "Show did not open the app"
    expect_eq "$(cat "$LAB_DIR/h1/desktop/app-shown")" "$(json 1 transfers | jq -r '[.transfers[] | select(.state == "offered")][0].id')" "the id Show opened the app on"
    press 1 2 accept
    lab_wait_for 30 sh -c "! kill -0 $sender 2>/dev/null" || fail "the transfer did not finish after Accept: $(json 1 transfers)"
    wait "$sender" || fail "send-file failed: $(cat "$LAB_DIR/send.out")"
    expect_eq "$(sha256sum <"$LAB_DIR/h1/state/downloads/host2/offer.bin")" "$(sha256sum <"$LAB_DIR/offer.bin")" "the accepted file"
    lab_wait_for 5 sh -c "grep ' Notify ' '$NOTIFY_LOG' | grep -q 'Received from host2'" || fail "no notification of the end: $(notify_calls)"
    case $(notify_calls | grep 'Received from host2') in *'"peerd" 2 '*'"save", "Save to Downloads"'*) ;;
        *) fail "the end does not replace the offer's notification 2: $(notify_calls)" ;; esac
    expect_eq "$(notify_calls | grep -c 'offers files')" 1 "offers notified"
    # The service's downloads are not the user's to open: Save moves the
    # file into the user's download folder, as the user.
    press 1 2 save
    local saved="$LAB_DIR/h1/desktop/Downloads/host2/offer.bin"
    lab_wait_for 10 test -s "$saved" || fail "Save to Downloads moved nothing: $(cat "$LAB_DIR/h1/agent.log")"
    expect_eq "$(sha256sum <"$saved")" "$(sha256sum <"$LAB_DIR/offer.bin")" "the saved file"
    expect_eq "$(stat -c %u "$saved")" 65534 "the saved file's owner"
    [ ! -e "$LAB_DIR/h1/state/downloads/host2/offer.bin" ] || fail "the file stayed in the service's downloads after it moved"
    lab_wait_for 5 sh -c "grep ' Notify ' '$NOTIFY_LOG' | grep -q 'Saved from host2'" || fail "no notification of the save: $(notify_calls)"
    case $(notify_calls | grep 'Saved from host2') in *'"peerd" 2 '*'"open-folder", "Open folder"'*) ;;
        *) fail "the save does not replace notification 2 with Open folder: $(notify_calls)" ;; esac

    lab_spawn 2 "$LAB_DIR/send2.out" "$BIN/peerctl" --socket "$(sock 2)" send-file host1 "$LAB_DIR/offer.bin"
    lab_wait_for 10 sh -c "[ \$(grep ' Notify ' '$NOTIFY_LOG' | grep -c 'offers files') -ge 2 ]" || fail "no second offer notified"
    local id; id=$(json 1 transfers | jq -r '[.transfers[] | select(.state == "offered")][0].id')
    ctl 1 decline-transfer "$id" >/dev/null || fail "decline-transfer"
    lab_wait_for 5 grep -q ' CloseNotification 3$' "$NOTIFY_LOG" || fail "the declined offer's prompt stayed: $(cat "$NOTIFY_LOG")"

    # A pairing request: "Enter code…" opens the app on the pairing (its
    # id, for the code field); the pairing's end closes the prompt.
    : >"$LAB_DIR/h1/desktop/app-shown"
    ctl 2 pair host1 >"$LAB_DIR/pair.out" 2>&1 &
    local pairer=$!
    lab_wait_for 10 sh -c "grep ' Notify ' '$NOTIFY_LOG' | grep -q 'host2 asks to pair'" || fail "no notification of the pairing request: $(notify_calls)"
    case $(notify_calls | grep 'asks to pair') in *'"enter-code", "Enter code…"'*) ;; *) fail "the pairing request's button: $(notify_calls | grep 'asks to pair')" ;; esac
    press 1 4 enter-code
    lab_wait_for 5 test -s "$LAB_DIR/h1/desktop/app-shown" || fail "Enter code… did not open the app"
    expect_eq "$(cat "$LAB_DIR/h1/desktop/app-shown")" "$(json 1 pairings | jq -r '.pairings[0].id')" "the pairing Enter code… opened the app on"
    ctl 1 pair-reject "$(json 1 pairings | jq -r '.pairings[0].id')" >/dev/null || fail "pair-reject"
    wait "$pairer" 2>/dev/null
    lab_wait_for 5 grep -q ' CloseNotification 4$' "$NOTIFY_LOG" || fail "the rejected pairing's prompt stayed: $(cat "$NOTIFY_LOG")"
    note "the agent's memory after it ($(basename "$BIN") build): $(awk '/^Private_(Clean|Dirty)/ { p += $2 } /^Rss/ { r = $2 } END { printf "private %d kB, resident %d kB", p, r }' "/proc/$AGENT_PID/smaps_rollup")"
}

# Quick Save (issue 45, "trusted peers, no prompt"): the desktop user sets
# it for a paired peer with peerctl; with --auto-accept none the peer's
# files are accepted without a prompt, and the agent moves them into the
# user's folder and says so. The rule is the user's: another member of
# the group cannot clear it. Off again, an offer waits; accepted, the user
# takes its file with 'peerctl fetch'.
test_quick_save_lands_a_paired_peers_files_in_the_users_folder_without_a_prompt() {
    two_peers --auto-accept none
    connect_peers
    pair_hosts 1 2
    lab_wait_for 10 state_is 1 host2 connected || fail "the paired peers are not connected"
    agent_desktop 1
    local home="$LAB_DIR/h1/desktop"
    lab_exec 1 "${AS_USER[@]}" "$BIN/peerctl" --socket "$(sock 1)" quick-save host2 "$home/In" >"$LAB_DIR/qs.out" 2>&1 \
        || fail "quick-save: $(cat "$LAB_DIR/qs.out")"
    expect_eq "$(json 1 paired | jq -r '.peers[] | select(.name == "host2") | .quickSave | "\(.uid) \(.folder)"')" "65534 $home/In" "the rule in paired"
    if lab_exec 1 setpriv --reuid=65533 --regid=65533 --groups="$PEERD_GID" "$BIN/peerctl" --socket "$(sock 1)" quick-save host2 --off \
        >"$LAB_DIR/qs-other.out" 2>&1; then fail "another user cleared the rule"; fi
    grep -q 'permissionDenied' "$LAB_DIR/qs-other.out" || fail "another user's refusal: $(cat "$LAB_DIR/qs-other.out")"

    mkdir -p "$LAB_DIR/trip/day1"
    make_file "$LAB_DIR/trip/a.bin" 2
    make_file "$LAB_DIR/trip/day1/b.bin" 1
    ctl 2 send-file host1 "$LAB_DIR/trip" >"$LAB_DIR/qs-send.out" 2>&1 || fail "send-file: $(cat "$LAB_DIR/qs-send.out")"
    lab_wait_for 15 test -s "$home/In/trip/day1/b.bin" || fail "Quick Save moved nothing: $(cat "$LAB_DIR/h1/agent.log"; json 1 transfers)"
    lab_wait_for 5 test -s "$home/In/trip/a.bin" || fail "Quick Save moved one file of two"
    expect_eq "$(sha256sum <"$home/In/trip/a.bin")" "$(sha256sum <"$LAB_DIR/trip/a.bin")" "a.bin"
    expect_eq "$(sha256sum <"$home/In/trip/day1/b.bin")" "$(sha256sum <"$LAB_DIR/trip/day1/b.bin")" "day1/b.bin"
    expect_eq "$(json 1 transfers | jq -r '.transfers[0].acceptedBy')" quickSave "who accepted it"
    expect_eq "$(find "$LAB_DIR/h1/state/downloads/host2" -type f | wc -l)" 0 "files left in the service's downloads"
    [ -z "$(notify_calls | grep 'offers files')" ] || fail "a Quick Save offer prompted: $(notify_calls)"
    lab_wait_for 5 sh -c "grep ' Notify ' '$NOTIFY_LOG' | grep -q 'Saved from host2 (Quick Save)'" || fail "no Quick Save notification: $(notify_calls)"
    case $(notify_calls | grep 'Quick Save') in *"2 files, 3.0 MiB in $home/In"*'"open-folder", "Open folder"'*) ;;
        *) fail "the Quick Save notification: $(notify_calls | grep 'Quick Save')" ;; esac

    # Off: an offer waits for a decision again; accepted, 'peerctl fetch' takes it.
    lab_exec 1 "${AS_USER[@]}" "$BIN/peerctl" --socket "$(sock 1)" quick-save host2 --off >/dev/null || fail "quick-save --off"
    expect_eq "$(json 1 paired | jq -r '.peers[] | select(.name == "host2") | .quickSave')" null "the rule after --off"
    make_file "$LAB_DIR/later.bin" 1
    lab_spawn 2 "$LAB_DIR/qs-send2.out" "$BIN/peerctl" --socket "$(sock 2)" send-file host1 "$LAB_DIR/later.bin"
    local sender=$LAB_PID
    lab_wait_for 10 sh -c "'$BIN/peerctl' --socket '$(sock 1)' --json transfers | jq -e '.transfers[] | select(.state == \"offered\")' >/dev/null" \
        || fail "the offer did not wait for a decision: $(json 1 transfers)"
    ctl 1 accept-transfer "$(json 1 transfers | jq -r '[.transfers[] | select(.state == "offered")][0].id')" >/dev/null || fail "accept-transfer"
    lab_wait_for 20 sh -c "! kill -0 $sender 2>/dev/null" || fail "the accepted transfer did not finish"
    lab_exec 1 "${AS_USER[@]}" "$BIN/peerctl" --socket "$(sock 1)" downloads host2 >"$LAB_DIR/dl.out" 2>&1 || fail "downloads: $(cat "$LAB_DIR/dl.out")"
    grep -q 'later.bin' "$LAB_DIR/dl.out" || fail "downloads does not list the file: $(cat "$LAB_DIR/dl.out")"
    lab_exec 1 "${AS_USER[@]}" "$BIN/peerctl" --socket "$(sock 1)" --json fetch host2 --into "$home/Got" >"$LAB_DIR/fetch.out" 2>&1 \
        || fail "fetch: $(cat "$LAB_DIR/fetch.out")"
    expect_eq "$(jq -r '.files' "$LAB_DIR/fetch.out")" 1 "files fetched"
    expect_eq "$(sha256sum <"$home/Got/later.bin")" "$(sha256sum <"$LAB_DIR/later.bin")" "the fetched file"
    [ ! -e "$LAB_DIR/h1/state/downloads/host2/later.bin" ] || fail "the fetched file stayed in the service's downloads"
    if lab_exec 1 "${AS_USER[@]}" "$BIN/peerctl" --socket "$(sock 1)" fetch ../../etc --into "$home/Got" >"$LAB_DIR/fetch-bad.out" 2>&1; then
        fail "fetch reached above the download directory"
    fi
    grep -q 'invalidParams' "$LAB_DIR/fetch-bad.out" || fail "fetch ../..: $(cat "$LAB_DIR/fetch-bad.out")"
}
