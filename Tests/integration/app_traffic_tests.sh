# App traffic (issue 23, point 4): each app's messages reach only that
# app's clients on the other host, through every path, and wait in its
# own inbox; one app's full inbox holds back that app alone; a uid reads
# only the apps it may hold (sourced by run.sh; uses pair_hosts,
# watch_on and the apps helpers).

# Whether host I's row for host NAME says its daemon confirmed app APP.
app_confirmed() { [ "$(peer_field "$1" "$2" ".apps.\"$3\".confirmed")" = true ]; }
# Messages waiting in host I's inbox for app APP ("" for the default app).
app_inbox_count() { if [ -n "$2" ]; then json "$1" --app "$2" inbox | jq .count; else json "$1" inbox | jq .count; fi; }
app_inbox_is() { [ "$(app_inbox_count "$1" "$2")" = "$3" ]; }

# Two apps on each of two hosts send 1,000 messages each through every
# path: plain, queued and a message channel. None reaches the other app
# or the default app; they wait in each app's own inbox across a restart,
# and each app's take gets its own, in order.
test_two_apps_keep_their_messages_apart_through_every_path() {
    two_peers
    pair_hosts 1 2
    lab_wait_for 5 state_is 1 host2 connected || fail "not connected after pairing"
    local i app
    for i in 1 2; do
        for app in chat clip; do ctl "$i" apps add "$app" >/dev/null || fail "apps add $app on host$i"; done
    done
    for app in chat clip; do
        lab_wait_for 5 app_confirmed 1 host2 "$app" || fail "host2's daemon did not confirm $app over the session: $(peer_field 1 host2 .apps)"
    done
    for app in chat clip; do
        seq -f "$app plain %g" 1000 | ctl 1 --app "$app" send host2 - --lines >/dev/null || fail "plain sends for $app"
        seq -f "$app queued %g" 1000 | ctl 1 --app "$app" send host2 - --lines --queue >/dev/null || fail "queued sends for $app"
    done
    # The channel path: a chat channel on host2 takes chat's channel
    # messages ahead of the inbox; clip's go to clip's inbox.
    lab_spawn 2 "$LAB_DIR/chat-recv.out" "$BIN/peerbench" probe --app chat channel-recv "$(sock 2)" host1 1000
    lab_wait_for 5 grep -q ready "$LAB_DIR/chat-recv.out" || fail "host2's chat channel did not open: $(cat "$LAB_DIR/chat-recv.out")"
    local receiver=$LAB_PID out
    out=$(lab_exec 1 "$BIN/peerbench" probe --app clip channel-send "$(sock 1)" host2 1000 100) || fail "clip's channel-send: $out"
    echo "$out" | grep -q 'sent=1000 acknowledged=1000' || fail "clip's channel: $out"
    out=$(lab_exec 1 "$BIN/peerbench" probe --app chat channel-send "$(sock 1)" host2 1000 100) || fail "chat's channel-send: $out"
    echo "$out" | grep -q 'sent=1000 acknowledged=1000' || fail "chat's channel: $out"
    wait "$receiver" || fail "host2's chat channel-recv failed: $(cat "$LAB_DIR/chat-recv.out")"
    tail -1 "$LAB_DIR/chat-recv.out" | grep -q 'received=1000 inOrder=yes' || fail "chat's channel got: $(tail -1 "$LAB_DIR/chat-recv.out")"
    lab_wait_for 30 app_inbox_is 2 clip 3000 || fail "clip's inbox on host2: $(app_inbox_count 2 clip) of 3000"
    lab_wait_for 30 app_inbox_is 2 chat 2000 || fail "chat's inbox on host2: $(app_inbox_count 2 chat) of 2000"
    expect_eq "$(app_inbox_count 2 "")" 0 "the default app's inbox on host2"
    lab_wait_for 20 queue_empty 1 || fail "host1's queues did not empty: $(json 1 queue)"
    # Each app's inbox is its own file, and outlasts a restart.
    stop_peerd 2 KILL
    [ -f "$LAB_DIR/h2/state/inbox.chat" ] && [ -f "$LAB_DIR/h2/state/inbox.clip" ] || fail "no per-app inbox files: $(ls "$LAB_DIR/h2/state")"
    start_peerd 2
    expect_eq "$(app_inbox_count 2 chat),$(app_inbox_count 2 clip)" 2000,3000 "the apps' inboxes after SIGKILL and a restart"
    ctl 2 --app chat take >"$LAB_DIR/chat.txt" || fail "take for chat"
    ctl 2 --app clip take >"$LAB_DIR/clip.txt" || fail "take for clip"
    expect_eq "$(grep -c . "$LAB_DIR/chat.txt"),$(grep -vc '^chat ' "$LAB_DIR/chat.txt")" 2000,0 "chat's messages: all chat's"
    # clip's take has its 1,000 channel messages too (binary: 0x5A bytes after their number).
    expect_eq "$(grep -c '^clip ' "$LAB_DIR/clip.txt"),$(grep -ac '^chat ' "$LAB_DIR/clip.txt")" 2000,0 "clip's text messages: all clip's"
    expect_eq "$(grep '^chat plain' "$LAB_DIR/chat.txt" | head -3 | tr '\n' ,)" "chat plain 1,chat plain 2,chat plain 3," "chat's plain ones in order"
    expect_eq "$(grep '^chat queued' "$LAB_DIR/chat.txt" | tail -1)" "chat queued 1000" "chat's last queued one"
    expect_eq "$(app_inbox_count 2 clip)" 0 "clip's inbox after its take (its channel messages are binary)"
    expect_eq "$(ctl 2 take 2>&1 | grep -c '^c')" 0 "the default app's take"
}

# One app's full inbox holds back that app alone (appBusy): its queued
# messages wait on the sender, which says so, while another app and the
# default app flow on the same session; a take makes room, and the rest
# arrives in order, none twice. An app no client holds there is refused
# at once, for that app alone.
test_a_full_inbox_for_one_app_leaves_the_others_flowing() {
    # 262144 bytes: each app's quarter holds four 15000-byte messages.
    two_peers --max-message 16384 --inbox-size 262144
    pair_hosts 1 2
    lab_wait_for 5 state_is 1 host2 connected || fail "not connected after pairing"
    ctl 2 apps add chat >/dev/null && ctl 2 apps add clip >/dev/null || fail "apps add on host2"
    lab_wait_for 5 app_confirmed 1 host2 clip || fail "host2 did not confirm its apps"
    watch_on 1 "$LAB_DIR/w1.jsonl" 1
    local n
    for n in 1 2 3 4 5 6; do
        python3 -c "import sys; sys.stdout.write('m$n ' + 'x' * 15000)" | ctl 1 --app chat send --queue host2 - >/dev/null || fail "send --queue m$n"
    done
    lab_wait_for 10 app_inbox_is 2 chat 4 || fail "chat's inbox did not fill: $(app_inbox_count 2 chat)"
    lab_wait_for 10 has_event "$LAB_DIR/w1.jsonl" '.type == "undelivered" and .delivery.app == "chat"' || fail "host1 heard no undelivered for chat"
    jq -r 'select(.type == "undelivered") | .delivery.text' "$LAB_DIR/w1.jsonl" | grep -q "app 'chat'.*inbox is full" \
        || fail "undelivered without the reason: $(jq -c 'select(.type == "undelivered")' "$LAB_DIR/w1.jsonl")"
    lab_wait_for 10 sh -c "[ \"\$('$BIN/peerctl' --socket '$(sock 1)' --json queue | jq -c '[.queues[] | {app, messages}]')\" = '[{\"app\":\"chat\",\"messages\":2}]' ]" \
        || fail "what host1 kept for chat: $(json 1 queue | jq -c '[.queues[] | {app, messages}]')"
    json 1 queue | jq -r '.queues[0].busy' | grep -q "inbox is full" || fail "peerctl queue does not say chat is busy: $(json 1 queue)"
    # The session stays; clip and the default app still flow.
    expect_eq "$(peer_state 1 host2)" connected "the session while chat is full"
    for n in 1 2 3; do ctl 1 --app clip send --queue host2 "c$n" >/dev/null || fail "clip's send c$n"; done
    ctl 1 send host2 "plain default" >/dev/null || fail "the default app's send"
    lab_wait_for 10 app_inbox_is 2 clip 3 || fail "clip did not flow beside a full chat: $(app_inbox_count 2 clip)"
    lab_wait_for 10 app_inbox_is 2 "" 1 || fail "the default app did not flow beside a full chat"
    local out
    out=$(ctl 1 --app chat send host2 "plain while full" 2>&1); expect_eq $? 1 "a plain chat send while chat is held"
    echo "$out" | grep -q "refuses app 'chat' for now" || fail "the plain send did not say why: $out"
    # An app no client holds on host2: refused at once, the session stays.
    ctl 1 --app game send host2 "anyone?" >/dev/null || fail "the game send was not queued on the session"
    lab_wait_for 10 has_event "$LAB_DIR/w1.jsonl" '.type == "undelivered" and .delivery.app == "game"' || fail "no undelivered for game"
    jq -r 'select(.delivery.app == "game") | .delivery.text' "$LAB_DIR/w1.jsonl" | grep -q "no client of app 'game'" \
        || fail "game's refusal does not say why: $(jq -c 'select(.delivery.app == "game")' "$LAB_DIR/w1.jsonl")"
    expect_eq "$(peer_state 1 host2)" connected "the session after game's refusal"
    # A take makes room: host2 says ready, host1 sends the rest.
    ctl 2 --app chat take | cut -c1-3 >"$LAB_DIR/taken.txt"
    lab_wait_for 15 queue_empty 1 || fail "host1 kept chat's queue after room was made: $(json 1 queue)"
    lab_wait_for 5 app_inbox_is 2 chat 2 || fail "the rest did not arrive"
    ctl 2 --app chat take | cut -c1-3 >>"$LAB_DIR/taken.txt"
    expect_eq "$(tr '\n' , <"$LAB_DIR/taken.txt")" "m1 ,m2 ,m3 ,m4 ,m5 ,m6 ," "every chat message once, in order"
    expect_eq "$(ctl 2 --app clip take | tr '\n' ,)" "c1,c2,c3," "clip's messages"
}

# A second uid can neither register nor read an app another uid holds:
# its take, inbox and recv for the app are refused, naming the holder,
# and a connection that did not register the app cannot read it either.
test_a_second_uid_cannot_read_an_app_another_uid_holds() {
    use_peerd_group
    local gid=$PEERD_GID
    chmod 0755 "$LAB_DIR" "$LAB_DIR/h1" "$LAB_DIR/h2"
    two_peers
    connect_peers
    ctl 2 apps add chat >/dev/null || fail "root could not declare chat"
    lab_wait_for 5 app_confirmed 1 host2 chat || fail "host2 did not confirm chat"
    ctl 1 --app chat send host2 "for root's chat" >/dev/null || fail "the chat send"
    lab_wait_for 10 app_inbox_is 2 chat 1 || fail "the message did not reach chat's inbox"
    local member=(setpriv --reuid=65534 --regid=65534 --groups="$gid") what
    for what in take inbox "recv --count 1"; do
        timeout 10 "${member[@]}" "$BIN/peerctl" --socket "$(sock 2)" --app chat $what >/dev/null 2>"$LAB_DIR/denied.err"
        expect_eq $? 1 "uid 65534's $what for chat"
        grep -q "held by uid 0" "$LAB_DIR/denied.err" || fail "$what: the refusal does not name the holder: $(cat "$LAB_DIR/denied.err")"
    done
    local answer
    answer=$(raw_request 2 '{"v":1,"id":1,"method":"take","params":{"app":"chat"}}')
    echo "$answer" | jq -e '.error.code == "permissionDenied" and (.error.message | contains("register it first"))' >/dev/null \
        || fail "a take for an app the connection did not register: $answer"
    expect_eq "$(app_inbox_count 2 chat)" 1 "chat's inbox after the refusals"
    expect_eq "$(ctl 2 --app chat take)" "for root's chat" "root's take"
}
