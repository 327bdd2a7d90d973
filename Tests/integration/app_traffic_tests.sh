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
    two_peers --app-auto-accept chat=paired --app-auto-accept clip=paired
    pair_hosts 1 2
    lab_wait_for 5 state_is 1 host2 connected || fail "not connected after pairing"
    local i app
    for i in 1 2; do
        for app in chat clip; do ctl "$i" apps add "$app" >/dev/null || fail "apps add $app on host$i"; done
    done
    for app in chat clip; do
        lab_wait_for 5 app_confirmed 1 host2 "$app" || fail "host2's daemon did not confirm $app over the session: $(peer_field 1 host2 .apps)"
        ctl 1 --app "$app" invite host2 --wait >/dev/null || fail "$app's invitation (host2 auto-accepts it for paired peers)"
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
    [ -f "$LAB_DIR/h2/state/inbox2.chat" ] && [ -f "$LAB_DIR/h2/state/inbox2.clip" ] || fail "no per-app inbox files: $(ls "$LAB_DIR/h2/state")"
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
    two_peers --max-message 16384 --inbox-size 262144 --app-auto-accept chat=paired --app-auto-accept clip=paired
    pair_hosts 1 2
    lab_wait_for 5 state_is 1 host2 connected || fail "not connected after pairing"
    # Declared on both: their states with peers outlast each short-lived peerctl.
    local i
    for i in 1 2; do ctl "$i" apps add chat >/dev/null && ctl "$i" apps add clip >/dev/null || fail "apps add on host$i"; done
    lab_wait_for 5 app_confirmed 1 host2 clip || fail "host2 did not confirm its apps"
    watch_on 1 "$LAB_DIR/w1.jsonl" 1
    # The first queued message invites the app for itself (host2 accepts).
    ctl 1 --app clip invite host2 --wait >/dev/null || fail "clip's invitation"
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
    # An app that is not connected with the peer sends nothing.
    out=$(ctl 1 --app game send host2 "anyone?" 2>&1); expect_eq $? 1 "a send for an app not connected"
    echo "$out" | grep -q "app 'game' is not connected with 'host2'; invite it first" || fail "the send did not say why: $out"
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
    two_peers --app-auto-accept chat=all
    connect_peers
    ctl 2 apps add chat >/dev/null || fail "root could not declare chat"
    ctl 1 apps add chat >/dev/null || fail "host1 could not declare chat"
    lab_wait_for 5 app_confirmed 1 host2 chat || fail "host2 did not confirm chat"
    ctl 1 --app chat invite host2 --wait >/dev/null || fail "chat's invitation"
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

# Invitations per app (MPC's invitations per session): the same peer's
# chat is accepted and its clip declined at the same time, each by its own
# app's client, with context bytes; neither client sees the other's
# invitation; an app no client holds there is declined at once; the
# default app's session is untouched; an app that leaves ends its state
# with the peer, which the peer's clients of it hear.
test_invitations_per_app_accepted_declined_and_with_no_client() {
    two_peers
    connect_peers
    lab_spawn 2 "$LAB_DIR/chat2.jsonl" "$BIN/peerctl" --socket "$(sock 2)" --json --app chat watch
    local chat_holder=$LAB_PID
    lab_spawn 2 "$LAB_DIR/clip2.jsonl" "$BIN/peerctl" --socket "$(sock 2)" --json --app clip watch
    lab_wait_for 5 has_app 2 chat || fail "chat is not registered on host2"
    lab_wait_for 5 has_app 2 clip || fail "clip is not registered on host2"
    lab_spawn 1 "$LAB_DIR/chat1.jsonl" "$BIN/peerctl" --socket "$(sock 1)" --json --app chat watch
    ctl 1 --app chat invite host2 --context "let's talk" --wait >"$LAB_DIR/chat-invite.out" 2>&1 &
    local chat_inviter=$!
    ctl 1 --app clip invite host2 --wait >"$LAB_DIR/clip-invite.out" 2>&1 &
    local clip_inviter=$!
    lab_wait_for 5 has_event "$LAB_DIR/chat2.jsonl" '.type == "invitation" and .invitation.app == "chat"' || fail "chat's client got no invitation"
    lab_wait_for 5 has_event "$LAB_DIR/clip2.jsonl" '.type == "invitation" and .invitation.app == "clip"' || fail "clip's client got no invitation"
    has_event "$LAB_DIR/chat2.jsonl" '.type == "invitation" and .invitation.app == "clip"' && fail "chat's client saw clip's invitation"
    expect_eq "$(jq -r 'select(.type == "invitation") | .invitation.contextData | @base64d' "$LAB_DIR/chat2.jsonl")" "let's talk" "chat's context, as bytes"
    expect_eq "$(json 2 --app chat invitations | jq -r '[.invitations[].app] | join(",")')" chat "invitations as chat lists"
    expect_eq "$(json 2 invitations | jq '.invitations | length')" 0 "the default app's invitations"
    local chat_id clip_id
    chat_id=$(jq -r 'select(.type == "invitation") | .invitation.id' "$LAB_DIR/chat2.jsonl")
    clip_id=$(jq -r 'select(.type == "invitation") | .invitation.id' "$LAB_DIR/clip2.jsonl")
    local out
    out=$(ctl 2 --app clip accept "$chat_id" 2>&1); expect_eq $? 1 "clip answering chat's invitation"
    echo "$out" | grep -q "is for app 'chat'" || fail "the refusal does not say whose it is: $out"
    ctl 2 --app chat accept "$chat_id" >/dev/null || fail "chat's accept"
    ctl 2 --app clip decline "$clip_id" >/dev/null || fail "clip's decline"
    wait "$chat_inviter" || fail "chat's invitation did not connect: $(cat "$LAB_DIR/chat-invite.out")"
    wait "$clip_inviter" && fail "clip's invitation connected though declined"
    grep -q "declined" "$LAB_DIR/clip-invite.out" || fail "clip's inviter was not told it was declined: $(cat "$LAB_DIR/clip-invite.out")"
    expect_eq "$(json 1 --app chat peers | jq -r '.peers[] | select(.name == "host2") | .state')" connected "chat's state with host2"
    expect_eq "$(json 1 --app clip peers | jq -r '.peers[] | select(.name == "host2") | .state')" notConnected "clip's state with host2"
    expect_eq "$(peer_state 1 host2)" connected "the default app's session"
    # Accepted for chat opens nothing for clip.
    out=$(ctl 1 --app clip send host2 "may I?" 2>&1); expect_eq $? 1 "clip's send after its decline"
    ctl 1 --app chat send host2 "hello chat" >/dev/null || fail "chat's send"
    lab_wait_for 5 app_inbox_is 2 chat 1 || fail "chat's message did not reach chat's inbox on host2"
    # No client of game on host2: declined at once.
    local start=$SECONDS
    out=$(ctl 1 --app game invite host2 --wait 2>&1); expect_eq $? 1 "game's invitation"
    echo "$out" | grep -q "noClient" || fail "game's invitation did not end as noClient: $out"
    [ $((SECONDS - start)) -le 3 ] || fail "game's invitation took $((SECONDS - start)) s to be declined"
    # Files need the app connected, as messages do.
    echo data >"$LAB_DIR/f.txt"
    out=$(ctl 1 --app clip send-file host2 "$LAB_DIR/f.txt" 2>&1); expect_eq $? 1 "send-file as clip after its decline"
    echo "$out" | grep -q "app 'clip' is not connected" || fail "send-file as clip did not say why: $out"
    # chat's client goes: chat leaves host1, whose chat clients hear it.
    kill "$chat_holder"
    lab_wait_for 5 has_event "$LAB_DIR/chat1.jsonl" '.type == "appStateChanged" and .app.app == "chat" and .app.state == "notConnected" and .app.reason == "left"' \
        || fail "host1's chat client did not hear chat leave: $(grep appStateChanged "$LAB_DIR/chat1.jsonl")"
    expect_eq "$(peer_state 1 host2)" connected "the default app's session after chat left"
}

# An app's first invitation to a host with no session asks for the
# session on behalf of that app alone: the app's client there decides it
# (no default-app client is asked, none is needed), accepting it connects
# the app and admits no default-app traffic, the session closes once no
# app uses it, and with no client of the app there it is declined at once.
test_an_apps_first_invitation_is_decided_by_that_app_alone() {
    two_peers
    lab_spawn 2 "$LAB_DIR/chat2.jsonl" "$BIN/peerctl" --socket "$(sock 2)" --json --app chat watch
    lab_wait_for 5 has_app 2 chat || fail "chat is not registered on host2"
    lab_spawn 1 "$LAB_DIR/chat1.jsonl" "$BIN/peerctl" --socket "$(sock 1)" --json --app chat watch
    lab_wait_for 5 has_app 1 chat || fail "chat is not registered on host1"
    expect_eq "$(peer_state 1 host2)" notConnected "before the invitation"
    ctl 1 --app chat invite host2 --context "chat first" --wait >"$LAB_DIR/invite.out" 2>&1 &
    local inviter=$!
    lab_wait_for 10 has_event "$LAB_DIR/chat2.jsonl" '.type == "invitation" and .invitation.app == "chat"' \
        || fail "chat's client on host2 was not asked: $(cat "$LAB_DIR/invite.out")"
    expect_eq "$(json 2 invitations | jq '.invitations | length')" 0 "the default app's invitations on host2"
    ctl 2 --app chat accept "$(jq -r 'select(.type == "invitation") | .invitation.id' "$LAB_DIR/chat2.jsonl")" >/dev/null || fail "chat's accept"
    wait "$inviter" || fail "the app-first invitation did not connect chat: $(cat "$LAB_DIR/invite.out")"
    lab_wait_for 5 state_is 1 host2 connected || fail "no session after chat's accept"
    local out
    out=$(ctl 1 send host2 "default?" 2>&1); expect_eq $? 1 "a default-app send on chat's session"
    echo "$out" | grep -q "accepted for app 'chat' alone" || fail "the default send did not say why: $out"
    ctl 1 --app chat send host2 "hi chat" >/dev/null || fail "chat's send on its own session"
    lab_wait_for 5 app_inbox_is 2 chat 1 || fail "chat's message did not reach chat's inbox"
    expect_eq "$(app_inbox_count 2 "")" 0 "the default app's inbox"
    # chat leaves: nothing uses the session, which closes.
    ctl 1 --app chat disconnect host2 >/dev/null || fail "chat's disconnect"
    lab_wait_for 5 has_event "$LAB_DIR/chat2.jsonl" '.type == "appStateChanged" and .app.state == "notConnected" and .app.reason == "left"' \
        || fail "host2's chat did not hear chat leave"
    lab_wait_for 5 state_is 1 host2 notConnected || fail "the session for apps alone did not close once unused"
    # No client of game on host2: the session it asked for is declined at once.
    local start=$SECONDS
    out=$(ctl 1 --app game invite host2 --wait 2>&1); expect_eq $? 1 "game's app-first invitation"
    echo "$out" | grep -q "no client holds app 'game'" || fail "game's decline did not say why: $out"
    [ $((SECONDS - start)) -le 5 ] || fail "game's invitation took $((SECONDS - start)) s"
}

# The default app joins a session accepted for an app alone (protocol.md
# §10): a default-app invite goes over the open session and is decided by
# the default app's rules there (here a subscribed client, with
# --auto-accept none). Declined, the session stays chat's alone; accepted,
# it carries default-app messages, and it no longer closes when chat leaves.
test_the_default_app_joins_a_session_accepted_for_an_app_alone() {
    two_peers --auto-accept none
    lab_spawn 2 "$LAB_DIR/chat2.jsonl" "$BIN/peerctl" --socket "$(sock 2)" --json --app chat watch
    lab_spawn 2 "$LAB_DIR/default2.jsonl" "$BIN/peerctl" --socket "$(sock 2)" --json watch
    lab_wait_for 5 has_app 2 chat || fail "chat is not registered on host2"
    lab_spawn 1 "$LAB_DIR/chat1.jsonl" "$BIN/peerctl" --socket "$(sock 1)" --json --app chat watch
    lab_wait_for 5 has_app 1 chat || fail "chat is not registered on host1"
    ctl 1 --app chat invite host2 >/dev/null || fail "chat's app-first invitation"
    lab_wait_for 10 has_event "$LAB_DIR/chat2.jsonl" '.type == "invitation" and .invitation.app == "chat"' || fail "chat's client on host2 was not asked"
    ctl 2 --app chat accept "$(jq -r 'select(.type == "invitation") | .invitation.id' "$LAB_DIR/chat2.jsonl")" >/dev/null || fail "chat's accept"
    lab_wait_for 5 has_event "$LAB_DIR/chat1.jsonl" '.type == "appStateChanged" and .app.state == "connected"' || fail "chat did not connect"
    local out
    out=$(ctl 1 send host2 "too early" 2>&1); expect_eq $? 1 "a default-app send before the default app joins"
    echo "$out" | grep -q "peerctl invite host2" || fail "the refusal does not say what to do: $out"

    # Declined: the session stays chat's alone.
    ctl 1 invite host2 --context "default too?" --wait >"$LAB_DIR/join1.out" 2>&1 &
    local inviter=$!
    lab_wait_for 10 has_event "$LAB_DIR/default2.jsonl" '.type == "invitation" and (.invitation.app // "") == ""' \
        || fail "host2's default client was not asked: $(cat "$LAB_DIR/join1.out")"
    local id
    id=$(jq -r 'select(.type == "invitation" and (.invitation.app // "") == "") | .invitation.id' "$LAB_DIR/default2.jsonl" | head -1)
    expect_eq "$(jq -r "select(.type == \"invitation\" and .invitation.id == \"$id\") | .invitation.context" "$LAB_DIR/default2.jsonl")" "default too?" "the invitation's context"
    has_event "$LAB_DIR/chat2.jsonl" '.type == "invitation" and (.invitation.app // "") == ""' && fail "chat's client saw the default app's invitation"
    ctl 2 decline "$id" >/dev/null || fail "the default app's decline"
    wait "$inviter"; expect_eq $? 1 "the declined default-app invite"
    grep -q "declined" "$LAB_DIR/join1.out" || fail "the inviter was not told it was declined: $(cat "$LAB_DIR/join1.out")"
    out=$(ctl 1 send host2 "still early" 2>&1); expect_eq $? 1 "a default-app send after the decline"

    # Accepted: default-app messages go, and chat's still do.
    ctl 1 invite host2 --wait >"$LAB_DIR/join2.out" 2>&1 &
    inviter=$!
    lab_wait_for 10 sh -c "[ \$(jq -r 'select(.type == \"invitation\" and (.invitation.app // \"\") == \"\") | .invitation.id' '$LAB_DIR/default2.jsonl' | wc -l) -ge 2 ]" \
        || fail "host2's default client was not asked again: $(cat "$LAB_DIR/join2.out")"
    id=$(jq -r 'select(.type == "invitation" and (.invitation.app // "") == "") | .invitation.id' "$LAB_DIR/default2.jsonl" | tail -1)
    ctl 2 accept "$id" >/dev/null || fail "the default app's accept"
    wait "$inviter" || fail "the accepted default-app invite: $(cat "$LAB_DIR/join2.out")"
    grep -q "connected to 'host2'" "$LAB_DIR/join2.out" || fail "the inviter was not told: $(cat "$LAB_DIR/join2.out")"
    ctl 1 send host2 "default now" >/dev/null || fail "a default-app send once joined"
    lab_wait_for 5 app_inbox_is 2 "" 1 || fail "the default app's message did not reach host2's inbox"
    ctl 2 send host1 "and back" >/dev/null || fail "a default-app send the other way"
    ctl 1 --app chat send host2 "chat still" >/dev/null || fail "chat's send after the join"
    lab_wait_for 5 app_inbox_is 2 chat 1 || fail "chat's message did not reach chat's inbox"

    # chat leaves: the session carries the default app, and stays.
    ctl 1 --app chat disconnect host2 >/dev/null || fail "chat's disconnect"
    lab_wait_for 5 has_event "$LAB_DIR/chat2.jsonl" '.type == "appStateChanged" and .app.state == "notConnected" and .app.reason == "left"' \
        || fail "host2's chat did not hear chat leave"
    ctl 1 send host2 "after chat" >/dev/null || fail "the session closed with chat, though the default app had joined it"
    lab_wait_for 5 app_inbox_is 2 "" 2 || fail "the default app's second message did not arrive"
    expect_eq "$(peer_state 1 host2)" connected "the session after chat left"
}

# Files and streams belong to their app (issue 23, point 4): chat's offer
# reaches chat's client alone, which decides it (the default app neither
# sees nor accepts it), and its file lands in chat's own folder; chat's
# stream meets chat's pipe on the other host, byte for byte.
test_files_and_streams_belong_to_their_app() {
    two_peers --auto-accept none --app-auto-accept chat=all
    connect_peers
    local i out
    for i in 1 2; do ctl "$i" apps add chat >/dev/null || fail "apps add chat on host$i"; done
    lab_spawn 2 "$LAB_DIR/chat2.jsonl" "$BIN/peerctl" --socket "$(sock 2)" --json --app chat watch
    lab_wait_for 5 app_confirmed 1 host2 chat || fail "host2's daemon did not confirm chat: $(peer_field 1 host2 .apps)"
    ctl 1 --app chat invite host2 --wait >/dev/null || fail "chat's invitation (host2 accepts it for all)"
    echo "for chat" >"$LAB_DIR/f.txt"
    lab_spawn 1 "$LAB_DIR/send.out" "$BIN/peerctl" --socket "$(sock 1)" --app chat send-file host2 "$LAB_DIR/f.txt"
    local sender=$LAB_PID
    lab_wait_for 10 has_event "$LAB_DIR/chat2.jsonl" '.type == "transferOffered" and .transfer.app == "chat"' \
        || fail "chat's client on host2 got no offer: $(cat "$LAB_DIR/send.out")"
    local id
    id=$(jq -r 'select(.type == "transferOffered") | .transfer.id' "$LAB_DIR/chat2.jsonl" | head -1)
    has_event "$LAB_DIR/connect-w2.jsonl" '.type == "transferOffered"' && fail "the default app's client saw chat's offer"
    expect_eq "$(json 2 transfers | jq '.transfers | length')" 0 "the default app's transfers on host2"
    expect_eq "$(json 2 --app chat transfers | jq -r '.transfers[0].app')" chat "chat's transfers on host2"
    out=$(ctl 2 accept-transfer "$id" 2>&1); expect_eq $? 1 "the default app accepting chat's offer"
    ctl 2 --app chat accept-transfer "$id" >/dev/null || fail "chat accepting its offer"
    wait "$sender" || fail "chat's send-file: $(cat "$LAB_DIR/send.out")"
    expect_eq "$(cat "$LAB_DIR/h2/state/downloads/.apps/chat/host1/f.txt")" "for chat" "chat's file, in chat's folder"
    [ ! -e "$LAB_DIR/h2/state/downloads/host1" ] || fail "chat's file reached the default app's folder: $(ls -R "$LAB_DIR/h2/state/downloads")"
    # chat's stream, both ways at once.
    head -c 300000 /dev/urandom >"$LAB_DIR/data1.bin"
    head -c 200000 /dev/urandom >"$LAB_DIR/data2.bin"
    lab_spawn 2 "$LAB_DIR/pipe2.err" sh -c "'$BIN/peerctl' --socket '$(sock 2)' --app chat pipe host1 --name sync <'$LAB_DIR/data2.bin' >'$LAB_DIR/out2'"
    local side2=$LAB_PID
    lab_spawn 1 "$LAB_DIR/pipe1.err" sh -c "'$BIN/peerctl' --socket '$(sock 1)' --app chat pipe host2 --name sync <'$LAB_DIR/data1.bin' >'$LAB_DIR/out1'"
    local side1=$LAB_PID
    lab_wait_for 60 sh -c "! kill -0 $side1 2>/dev/null" || fail "host1's chat pipe did not end: $(cat "$LAB_DIR/pipe1.err")"
    wait "$side1" || fail "host1's chat pipe failed: $(cat "$LAB_DIR/pipe1.err")"
    lab_wait_for 10 sh -c "! kill -0 $side2 2>/dev/null" || fail "host2's chat pipe did not end: $(cat "$LAB_DIR/pipe2.err")"
    wait "$side2" || fail "host2's chat pipe failed: $(cat "$LAB_DIR/pipe2.err")"
    cmp -s "$LAB_DIR/data1.bin" "$LAB_DIR/out2" || fail "chat's bytes from host1 differ on host2"
    cmp -s "$LAB_DIR/data2.bin" "$LAB_DIR/out1" || fail "chat's bytes from host2 differ on host1"
    # The default app's session carried it all, and is up still.
    expect_eq "$(peer_state 1 host2)" connected "the default app's session"
}
