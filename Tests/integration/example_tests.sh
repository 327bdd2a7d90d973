# The example apps built on the client libraries (issue 24): Examples/chat
# (Swift, PeerKit) on two hosts at once. It is built as its own package,
# with a plain path dependency on this one (make examples).

CHAT=${CHAT_BIN:-$ROOT/Examples/chat/.build/debug/chat}

# Starts chat on host $1 with standard input from a FIFO held open on
# descriptor $2 (so lines can be typed into it), output in chat$1.out.
start_chat() {
    local i=$1 fd=$2; shift 2
    mkfifo "$LAB_DIR/chat$i.in"
    lab_spawn "$i" "$LAB_DIR/chat$i.out" sh -c "exec '$CHAT' --socket '$(sock "$i")' $* <'$LAB_DIR/chat$i.in'"
    eval "exec $fd>'$LAB_DIR/chat$i.in'"
    lab_wait_for 10 grep -q "connected to peerd" "$LAB_DIR/chat$i.out" || fail "chat on host$i did not start: $(cat "$LAB_DIR/chat$i.out")"
}

# Two chats find each other, one invites and the other accepts (--accept),
# both show the join, lines go both ways as chat's messages (the default
# app's inbox gets none), and a chat that quits is shown leaving.
test_the_chat_example_talks_between_two_hosts() {
    [ -x "$CHAT" ] || fail "no chat example at $CHAT: build it first (make examples)"
    ldd "$CHAT" | grep -qE "avahi|sodium" && fail "the chat example links libavahi or libsodium: $(ldd "$CHAT")"
    two_peers
    start_chat 1 7
    start_chat 2 8 --accept
    lab_wait_for 10 has_app 1 chat || fail "chat is not registered on host1"
    lab_wait_for 10 sh -c "echo /peers >&7; sleep 0.3; grep -q '  host2  ' '$LAB_DIR/chat1.out'" \
        || fail "host1's chat does not list host2: $(cat "$LAB_DIR/chat1.out")"
    echo "/invite host2" >&7
    lab_wait_for 10 grep -q "^\* host2 joined" "$LAB_DIR/chat1.out" || fail "host1's chat did not show host2 joining: $(cat "$LAB_DIR/chat1.out")"
    lab_wait_for 10 grep -q "^\* host1 joined" "$LAB_DIR/chat2.out" || fail "host2's chat did not show host1 joining: $(cat "$LAB_DIR/chat2.out")"
    echo "hello from one" >&7
    lab_wait_for 10 grep -q "^<host1> hello from one" "$LAB_DIR/chat2.out" || fail "host2's chat did not show the line: $(cat "$LAB_DIR/chat2.out")"
    echo "and back from two" >&8
    lab_wait_for 10 grep -q "^<host2> and back from two" "$LAB_DIR/chat1.out" || fail "host1's chat did not show the reply: $(cat "$LAB_DIR/chat1.out")"
    expect_eq "$(json 2 inbox | jq .count)" 0 "the default app's inbox on host2"
    echo "/quit" >&8
    lab_wait_for 10 grep -q "^\* host2 left" "$LAB_DIR/chat1.out" || fail "host1's chat did not show host2 leaving: $(cat "$LAB_DIR/chat1.out")"
}
