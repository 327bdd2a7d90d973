# The desktop app, issue 45 point 1 (sourced by run.sh): peerd-gtk on an X
# display of its own (Xvfb) on host 1, as a desktop user (uid 65534 in
# group peerd), driven through the accessibility tree as a person (or a
# screen reader) would (Tests/integration/desktop_drive.py, AT-SPI).
# Screenshots land in .build/lab/screenshots.

# desktop_app I SIZE [ARG...]: an X display, a session bus and peerd-gtk at
# SIZE (WIDTHxHEIGHT) on host I, with ARGs (FILEs to send, as a file manager
# gives them). The user is DESKTOP_UID (65534) in DESKTOP_GROUPS (peerd's). APP_PID is the app's pid; DESKTOP_ENV the
# environment a client of that desktop needs.
desktop_app() {
    local i=$1 size=$2 home="$LAB_DIR/h$1/desktop"
    shift 2
    use_peerd_group
    AS_USER=(setpriv --reuid="${DESKTOP_UID:-65534}" --regid="${DESKTOP_UID:-65534}" --groups="${DESKTOP_GROUPS:-$PEERD_GID}")
    chmod 0755 "$LAB_DIR" "$LAB_DIR/h$i"
    # The user's own GTK setting: no animations, so a screenshot shows where a transition ends.
    mkdir -p "$home/run" "$home/.config/gtk-4.0" && printf '[Settings]\ngtk-enable-animations=false\n' >"$home/.config/gtk-4.0/settings.ini"
    # The user's xdg-open, which says what it was asked to open.
    mkdir -p "$home/bin" && printf '#!/bin/sh\necho "$1" >"%s/opened"\n' "$home" >"$home/bin/xdg-open" && chmod 0755 "$home/bin/xdg-open"
    # dunst's configuration (desktop_notifications), before the bus starts:
    # the bus may start dunst itself (its D-Bus service file) when a program
    # asks for org.freedesktop.Notifications first, and that dunst must pick
    # Accept as the test's would (once, it started with none and Accept was
    # never pressed).
    mkdir -p "$home/.config/dunst"
    printf '#!/bin/sh\ngrep -m1 Accept\n' >"$home/bin/pick-accept" && chmod 0755 "$home/bin/pick-accept"
    printf '[global]\n    dmenu = %s/bin/pick-accept\n    browser = /bin/true\n' "$home" >"$home/.config/dunst/dunstrc"
    chown -R "${DESKTOP_UID:-65534}:${DESKTOP_UID:-65534}" "$home" && chmod 0700 "$home/run"
    if [ ! -s "$home/display" ]; then
        lab_spawn "$i" "$LAB_DIR/h$i/xvfb.log" sh -c "exec Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -noreset 3>'$home/display'"
        lab_wait_for 10 test -s "$home/display" || fail "no X display: $(cat "$LAB_DIR/h$i/xvfb.log")"
        # The bus starts the accessibility registry, which presses keys on
        # this display (XTest) for the keyboard test: it needs DISPLAY.
        lab_spawn "$i" "$LAB_DIR/h$i/session-bus.log" "${AS_USER[@]}" env DISPLAY=":$(cat "$home/display")" \
            XDG_CONFIG_HOME="$home/.config" dbus-daemon --session --nofork --nopidfile --address="unix:path=$home/session.sock"
        lab_wait_for 5 test -S "$home/session.sock" || fail "no session bus"
    fi
    DESKTOP_ENV=(env HOME="$home" PATH="$home/bin:$PATH" XDG_RUNTIME_DIR="$home/run" DISPLAY=":$(cat "$home/display")"
                 DBUS_SESSION_BUS_ADDRESS="unix:path=$home/session.sock" GSK_RENDERER=cairo GTK_A11Y=atspi NO_AT_BRIDGE=0)
    lab_spawn "$i" "$LAB_DIR/h$i/app.log" "${AS_USER[@]}" "${DESKTOP_ENV[@]}" "$BIN/peerd-gtk" --socket "$(sock "$i")" --size "$size" "$@"
    APP_PID=$LAB_PID
}

# drive I VERB ARGS...: desktop_drive.py on host I's desktop.
drive() {
    local i=$1; shift
    lab_exec "$i" "${AS_USER[@]}" "${DESKTOP_ENV[@]}" /usr/bin/python3 "$HERE/desktop_drive.py" "$@"
}

# screenshot I NAME: the display of host I as .build/lab/screenshots/NAME.png.
screenshot() {
    mkdir -p "$ROOT/.build/lab/screenshots"
    lab_exec "$1" import -display ":$(cat "$LAB_DIR/h$1/desktop/display")" -window root "$ROOT/.build/lab/screenshots/$2.png" \
        || fail "no screenshot $2"
}

# The list shows host 2 live as mDNS finds it; selecting it shows its
# detail; the detail's Invite connects it, and the detail then offers
# Disconnect. The message box sends a message, and the file the app was
# opened with (a file manager's "Open With", %F) goes with "Send 1 file".
# At 360×640 the window is one column: selecting a peer goes to its
# detail, and Back returns to the list.
test_the_desktop_app_lists_peers_and_invites_one_with_its_own_controls() {
    start_peerd 1 --name host1
    make_file "$LAB_DIR/from-the-file-manager.bin" 1
    chmod 0644 "$LAB_DIR/from-the-file-manager.bin"
    desktop_app 1 1280x800 "$LAB_DIR/from-the-file-manager.bin"
    drive 1 wait-name "No peers yet. Hosts running peerd on this network appear here as mDNS finds them." 15 >/dev/null \
        || fail "the window does not say that no peer is there yet: $(cat "$LAB_DIR/h1/app.log")"
    start_peerd 2 --auto-accept all
    drive 1 wait-name host2 15 || fail "host2 did not appear in the list: $(cat "$LAB_DIR/h1/app.log")"
    drive 1 select Peers host2 10 || fail "host2 could not be selected"
    drive 1 wait-name Invite 5 || fail "the detail offers no Invite"
    screenshot 1 peerd-gtk-1280x800
    drive 1 press Invite 5 || fail "Invite could not be pressed"
    lab_wait_for 10 state_is 1 host2 connected || fail "host1 is not connected to host2: $(json 1 peers)"
    drive 1 wait-name Disconnect 5 || fail "the detail did not follow the connection"
    drive 1 wait-text "Files and streams: " 10 || fail "the detail does not say the connected peer's path"
    drive 1 type Message "hello from the window" 5 || fail "no message box"
    drive 1 press "Send message" 5 || fail "Send message could not be pressed"
    lab_wait_for 10 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 2)' --json inbox | jq .count)\" -ge 1 ]" || fail "host2 got no message"
    expect_eq "$(ctl 2 take)" "hello from the window" "the message host2 got"
    drive 1 press "Send 1 file" 5 || fail "the window does not offer to send the file it was given"
    lab_wait_for 20 test -f "$LAB_DIR/h2/state/downloads/host1/from-the-file-manager.bin" || fail "the file did not arrive: $(json 2 transfers)"
    expect_eq "$(sha256sum <"$LAB_DIR/h2/state/downloads/host1/from-the-file-manager.bin")" "$(sha256sum <"$LAB_DIR/from-the-file-manager.bin")" "the file sent"
    kill "$APP_PID"
    desktop_app 1 360x640
    drive 1 select Peers host2 15 || fail "host2 could not be selected at 360x640"
    drive 1 wait-name "Back to the peers" 5 || fail "no way back at 360x640"
    screenshot 1 peerd-gtk-360x640
    drive 1 press "Back to the peers" 5 || fail "Back could not be pressed"
    note "screenshots in .build/lab/screenshots; the app's memory: $(awk '/^Private_(Clean|Dirty)/ { p += $2 } END { printf "private %d kB", p }' "/proc/$APP_PID/smaps_rollup")"
}

# connected_or_accepted: host 1 is connected to host2, or host2's
# invitation was accepted in host 1's window.
connected_or_accepted() { state_is 1 host2 connected || drive 1 press "Accept invitation" 0.5 >/dev/null 2>&1; }

# paired_in_list I NAME: host I lists NAME as paired.
paired_in_list() { [ "$(peer_field "$1" "$2" .paired)" = true ]; }

# The issue's pairing: host 2's user runs `peerctl pair host1`; in the
# window on host 1, host2's detail asks for the code, which is typed there
# and confirmed: the hosts are paired, and the detail offers Unpair. Then
# host 2 offers a file: the detail shows it with Accept files, and pressing
# it lands the file byte for byte; then Open folder opens where it landed.
# (In between, the hosts connect again; where host 2 dials, host 1, which
# asks before any session, accepts its invitation in the window.)
test_the_desktop_app_pairs_by_the_code_host2_shows_and_accepts_its_offer() {
    start_peerd 1 --name host1 --auto-accept none
    desktop_app 1 1280x800
    start_peerd 2 --auto-accept all
    drive 1 wait-name host2 15 || fail "host2 did not appear in the list"
    drive 1 select Peers host2 10 || fail "host2 could not be selected"
    : >"$LAB_DIR/pair.out"
    ctl 2 pair host1 >"$LAB_DIR/pair.out" 2>&1 &
    local pairer=$!
    lab_wait_for 10 grep -Eq 'Pairing code: [0-9]{6}' "$LAB_DIR/pair.out" || fail "host2 showed no code: $(cat "$LAB_DIR/pair.out")"
    local code; code=$(grep -o 'Pairing code: [0-9]*' "$LAB_DIR/pair.out" | awk '{print $3}')
    drive 1 type "Pairing code" "$code" 10 || fail "the window did not ask for the code"
    drive 1 press "Confirm code" 5 || fail "Confirm code could not be pressed"
    wait "$pairer" || fail "host2's pairing failed: $(cat "$LAB_DIR/pair.out")"
    lab_wait_for 10 paired_in_list 1 host2 || fail "host1 does not list host2 as paired"
    drive 1 wait-name Unpair 10 || fail "the detail does not offer Unpair"
    # Paired, the hosts connect again: host 1 dials (host 2 accepts them
    # all), or host 2 does and host 1 (--auto-accept none) asks in the window.
    lab_wait_for 20 connected_or_accepted || fail "the paired hosts did not connect, nor did the window show host2's invitation"
    lab_wait_for 15 state_is 2 host1 connected || fail "the paired hosts did not connect"
    make_file "$LAB_DIR/offer.bin" 2
    lab_spawn 2 "$LAB_DIR/send.out" "$BIN/peerctl" --socket "$(sock 2)" send-file host1 "$LAB_DIR/offer.bin"
    local sender=$LAB_PID
    drive 1 press "Accept files" 15 || fail "the window showed no offer to accept"
    lab_wait_for 30 sh -c "! kill -0 $sender 2>/dev/null" || fail "the transfer did not finish: $(json 1 transfers)"
    wait "$sender" || fail "send-file failed: $(cat "$LAB_DIR/send.out")"
    expect_eq "$(sha256sum <"$LAB_DIR/h1/state/downloads/host2/offer.bin")" "$(sha256sum <"$LAB_DIR/offer.bin")" "the accepted file"
    # The service's downloads are not the user's: Save moves the file into
    # the user's download folder, and Open folder then opens that.
    drive 1 press "Save to Downloads" 10 || fail "the finished transfer offers no Save to Downloads"
    lab_wait_for 10 test -s "$LAB_DIR/h1/desktop/Downloads/host2/offer.bin" || fail "Save moved nothing: $(cat "$LAB_DIR/h1/app.log")"
    expect_eq "$(sha256sum <"$LAB_DIR/h1/desktop/Downloads/host2/offer.bin")" "$(sha256sum <"$LAB_DIR/offer.bin")" "the saved file"
    drive 1 press "Open folder" 10 || fail "the saved transfer offers no Open folder"
    lab_wait_for 5 test -s "$LAB_DIR/h1/desktop/opened" || fail "Open folder ran no xdg-open"
    expect_eq "$(cat "$LAB_DIR/h1/desktop/opened")" "$LAB_DIR/h1/desktop/Downloads/host2" "the folder opened"
    screenshot 1 peerd-gtk-paired-1280x800
    # The agent's Show opens the app on an offer: `peerd-gtk --show ID`
    # selects its peer, and at 360x640 goes straight to the detail.
    kill "$APP_PID"
    cp "$LAB_DIR/offer.bin" "$LAB_DIR/second.bin"
    lab_spawn 2 "$LAB_DIR/send2.out" "$BIN/peerctl" --socket "$(sock 2)" send-file host1 "$LAB_DIR/second.bin"
    sender=$LAB_PID
    lab_wait_for 10 sh -c "'$BIN/peerctl' --socket '$(sock 1)' --json transfers | jq -e '[.transfers[] | select(.state == \"offered\")] | length == 1' >/dev/null" \
        || fail "host1 got no second offer"
    local id; id=$(json 1 transfers | jq -r '[.transfers[] | select(.state == "offered")][0].id')
    desktop_app 1 360x640 --show "$id"
    drive 1 press "Accept files" 15 || fail "--show did not open the offer's peer"
    wait "$sender" || fail "the second send-file failed: $(cat "$LAB_DIR/send2.out")"
    expect_eq "$(sha256sum <"$LAB_DIR/h1/state/downloads/host2/second.bin")" "$(sha256sum <"$LAB_DIR/offer.bin")" "the file accepted after --show"
}

# No daemon, then a user outside group peerd: the window says which, and
# what to do (start peerd; join the group), not a bare errno.
test_the_desktop_app_tells_a_user_outside_group_peerd_what_to_do() {
    # No daemon at all: the window says so, and how to start it.
    DESKTOP_GROUPS=65534 desktop_app 1 1280x800
    drive 1 wait-text "peerd is not running" 15 || fail "the window does not say peerd is not running: $(cat "$LAB_DIR/h1/app.log")"
    kill "$APP_PID"
    start_peerd 1 --name host1
    # nobody, in no group of peerd's (dbus-daemon wants a user it can look up).
    DESKTOP_GROUPS=65534 desktop_app 1 1280x800
    drive 1 wait-text "Join group peerd" 15 || fail "the window does not say how to join group peerd: $(cat "$LAB_DIR/h1/app.log")"
}

# Keyboard only (issue 45: every action reachable without a pointer): Tab
# and the arrows reach host2's row and its detail; Space turns on Quick
# Save for the paired peer (into the user's download folder, kept in
# peerd's state); "Send files…" opens the file chooser, where the path is
# typed (Ctrl+L) and Enter sends it. Keys go through XTest, as a keyboard's.
test_the_desktop_app_is_driven_by_keyboard_alone_quick_save_and_the_file_chooser() {
    start_peerd 1 --name host1 --auto-accept none
    start_peerd 2 --auto-accept all
    lab_wait_for 5 sees 1 host2 || fail "host1 did not see host2"
    pair_hosts 1 2
    make_file "$LAB_DIR/chosen.bin" 1
    chmod 0644 "$LAB_DIR/chosen.bin"
    desktop_app 1 1280x800
    drive 1 wait-name host2 15 || fail "host2 did not appear in the list"
    drive 1 tab-to host2 6 || drive 1 down-to host2 6 || fail "the keyboard does not reach host2's row: $(drive 1 focused)"
    drive 1 keys Return
    drive 1 wait-name "Turn on Quick Save" 10 || fail "the keyboard did not open host2's detail: $(drive 1 tree | head -40)"
    drive 1 tab-to "Turn on Quick Save" 40 || fail "Tab does not reach Turn on Quick Save"
    drive 1 keys space
    lab_wait_for 10 sh -c "'$BIN/peerctl' --socket '$(sock 1)' --json paired | jq -e '.peers[] | select(.name == \"host2\") | .quickSave' >/dev/null" \
        || fail "Space on Turn on Quick Save set no rule: $(cat "$LAB_DIR/h1/app.log")"
    expect_eq "$(json 1 paired | jq -r '.peers[] | select(.name == "host2") | .quickSave | "\(.uid) \(.folder)"')" \
        "65534 $LAB_DIR/h1/desktop/Downloads/host2" "the rule the window set"
    drive 1 wait-name "Turn off Quick Save" 10 || fail "the detail does not follow the rule"
    drive 1 tab-to "Send files…" 40 || fail "Tab does not reach Send files…"
    drive 1 keys space
    sleep 1
    drive 1 keys ctrl+l "text:$LAB_DIR/chosen.bin" Return
    lab_wait_for 20 test -f "$LAB_DIR/h2/state/downloads/host1/chosen.bin" || fail "the chosen file did not arrive: $(json 1 transfers; drive 1 tree | tail -30)"
    expect_eq "$(sha256sum <"$LAB_DIR/h2/state/downloads/host1/chosen.bin")" "$(sha256sum <"$LAB_DIR/chosen.bin")" "the file sent through the chooser"
    screenshot 1 peerd-gtk-quick-save-1280x800
}

# desktop_notifications I: on host I's desktop (desktop_app first), a real
# notification server, dunst, whose context menu (its "dmenu" command)
# picks the entry holding "Accept" as a user would; a recording of the
# Notify calls on the session bus (dbus-monitor, NOTIFY_CALLS); and
# peerd-agent. AGENT_PID is the agent's pid.
desktop_notifications() {
    local i=$1 home="$LAB_DIR/h$1/desktop"
    NOTIFY_CALLS="$LAB_DIR/h$i/notify-calls.log"
    lab_spawn "$i" "$NOTIFY_CALLS" "${AS_USER[@]}" "${DESKTOP_ENV[@]}" dbus-monitor --session "interface='org.freedesktop.Notifications'"
    # One dunst, with desktop_app's configuration: the bus may have
    # started it already; if ours loses the name to one it starts meanwhile,
    # that one has the same configuration.
    desktop_runs "$i" dunstctl is-paused \
        || lab_spawn "$i" "$LAB_DIR/h$i/dunst.log" "${AS_USER[@]}" "${DESKTOP_ENV[@]}" dunst -config "$home/.config/dunst/dunstrc"
    lab_wait_for 10 desktop_runs "$i" dunstctl is-paused \
        || fail "dunst did not start: $(cat "$LAB_DIR/h$i/dunst.log")"
    local before; before=$(status_field "$i" .subscribers)
    lab_spawn "$i" "$LAB_DIR/h$i/agent.log" "${AS_USER[@]}" "${DESKTOP_ENV[@]}" "$BIN/peerd-agent" --socket "$(sock "$i")"
    AGENT_PID=$LAB_PID
    lab_wait_for 10 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock "$i")' --json status | jq .subscribers)\" -gt $before ]" \
        || fail "the agent did not subscribe: $(cat "$LAB_DIR/h$i/agent.log")"
}

# desktop_runs I COMMAND...: COMMAND succeeds as the desktop user on host I's desktop.
desktop_runs() { local i=$1; shift; lab_exec "$i" "${AS_USER[@]}" "${DESKTOP_ENV[@]}" "$@" >/dev/null 2>&1; }

# The issue's desktop with a real notification server: the app and the
# agent run beside dunst as the desktop user. Host 2 offers a file: the
# agent's notification goes to dunst over the bus (seen by dbus-monitor,
# shown by dunst), the window shows the same offer, and dunst's own
# context menu picks Accept (dunstctl action, as a user's right click and
# choice would): the file lands byte for byte, and the window's prompt
# goes with it, answered once. A second offer accepted in the window
# turns the agent's prompt into its end in place, and nothing is
# answered twice.
test_a_real_notification_server_shows_the_offer_and_its_accept_lands_the_file() {
    start_peerd 1 --name host1 --auto-accept none
    start_peerd 2 --auto-accept all
    lab_wait_for 5 sees 1 host2 || fail "host1 did not see host2"
    ctl 1 invite host2 --wait >/dev/null || fail "host1 could not connect to host2"
    desktop_app 1 1280x800
    desktop_notifications 1
    drive 1 select Peers host2 15 || fail "host2 could not be selected"
    make_file "$LAB_DIR/offer.bin" 2
    lab_spawn 2 "$LAB_DIR/send.out" "$BIN/peerctl" --socket "$(sock 2)" send-file host1 "$LAB_DIR/offer.bin"
    local sender=$LAB_PID
    lab_wait_for 10 grep -q 'host2 offers files' "$NOTIFY_CALLS" || fail "no Notify call for the offer: $(cat "$NOTIFY_CALLS"; cat "$LAB_DIR/h1/agent.log")"
    lab_wait_for 10 sh -c "[ \"\$(${AS_USER[*]} ${DESKTOP_ENV[*]} dunstctl count displayed)\" -ge 1 ]" \
        || fail "dunst shows nothing: $(cat "$LAB_DIR/h1/dunst.log")"
    drive 1 wait-name "Accept files" 10 || fail "the window does not show the offer"
    screenshot 1 peerd-gtk-with-dunst-1280x800
    desktop_runs 1 dunstctl action 0 || fail "dunstctl action failed"
    lab_wait_for 30 sh -c "! kill -0 $sender 2>/dev/null" || fail "dunst's Accept did not land the file: $(json 1 transfers; cat "$LAB_DIR/h1/dunst.log")"
    wait "$sender" || fail "send-file failed: $(cat "$LAB_DIR/send.out")"
    expect_eq "$(sha256sum <"$LAB_DIR/h1/state/downloads/host2/offer.bin")" "$(sha256sum <"$LAB_DIR/offer.bin")" "the file accepted in dunst"
    expect_eq "$(json 1 transfers | jq -r '.transfers[0].acceptedBy')" client "who accepted it"
    drive 1 wait-name "Save to Downloads" 10 || fail "the window's prompt did not follow the accept made in dunst"

    cp "$LAB_DIR/offer.bin" "$LAB_DIR/second.bin"
    lab_spawn 2 "$LAB_DIR/send2.out" "$BIN/peerctl" --socket "$(sock 2)" send-file host1 "$LAB_DIR/second.bin"
    sender=$LAB_PID
    lab_wait_for 10 sh -c "[ \$(grep -c 'host2 offers files' '$NOTIFY_CALLS') -ge 2 ]" || fail "no notification of the second offer"
    drive 1 press "Accept files" 10 || fail "the window does not show the second offer"
    lab_wait_for 30 sh -c "! kill -0 $sender 2>/dev/null" || fail "the second offer accepted in the window did not land"
    wait "$sender" || fail "the second send-file failed: $(cat "$LAB_DIR/send2.out")"
    lab_wait_for 5 grep -q 'Received from host2' "$NOTIFY_CALLS" || fail "the agent's prompt did not follow the accept made in the window"
    ! grep -q 'notFound\|acceptTransfer' "$LAB_DIR/h1/agent.log" || fail "an offer was answered twice: $(cat "$LAB_DIR/h1/agent.log")"
    expect_eq "$(json 1 transfers | jq '[.transfers[] | select(.state == "completed")] | length')" 2 "transfers completed, once each"
}

# Files dropped on the window (issue 45: "drag and drop") go to the
# selected peer: a file manager's drag (Tests/integration/drag_source.py,
# GTK 4, text/uri-list) is pressed, moved over peerd-gtk and let go,
# through XTest as a pointer would.
test_files_dropped_on_the_desktop_app_go_to_the_selected_peer() {
    start_peerd 1 --name host1
    start_peerd 2 --auto-accept all
    lab_wait_for 5 sees 1 host2 || fail "host1 did not see host2"
    ctl 1 invite host2 --wait >/dev/null || fail "host1 could not connect to host2"
    make_file "$LAB_DIR/dropped.bin" 1
    chmod 0644 "$LAB_DIR/dropped.bin"
    desktop_app 1 1280x800
    drive 1 select Peers host2 15 || fail "host2 could not be selected"
    drive 1 wait-name Disconnect 5 || fail "no detail of host2"
    lab_spawn 1 "$LAB_DIR/h1/drag-source.log" "${AS_USER[@]}" "${DESKTOP_ENV[@]}" /usr/bin/python3 "$HERE/drag_source.py" "$LAB_DIR/dropped.bin"
    lab_wait_for 10 grep -q ready "$LAB_DIR/h1/drag-source.log" || fail "the drag source did not start: $(cat "$LAB_DIR/h1/drag-source.log")"
    drive 1 drag 120 60 760 500
    lab_wait_for 20 test -f "$LAB_DIR/h2/state/downloads/host1/dropped.bin" || fail "the dropped file did not arrive: $(json 1 transfers; cat "$LAB_DIR/h1/app.log")"
    expect_eq "$(sha256sum <"$LAB_DIR/h2/state/downloads/host1/dropped.bin")" "$(sha256sum <"$LAB_DIR/dropped.bin")" "the dropped file"
}
