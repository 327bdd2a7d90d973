# The example apps built on the client libraries (issue 24): Examples/chat
# (Swift, PeerKit) on two hosts at once. It is built as its own package,
# with a plain path dependency on this one (make examples).

CHAT=${CHAT_BIN:-$ROOT/Examples/chat/.build/debug/chat}
# Debian's own python3 (the client promises Debian 12's Python 3.11, standard library only).
PY=${PYTHON:-/usr/bin/python3}

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

# The Python client's tests (clients/python/tests, pytest) against the two
# lab daemons: typed errors, an app's invitation and message, a file with
# progress, a channel, and the asyncio client.
test_the_python_client_against_two_daemons() {
    "$PY" -m pytest --version >/dev/null 2>&1 || fail "pytest is not installed (make deps installs python3-pytest)"
    two_peers
    connect_peers
    local out
    out=$(cd "$ROOT/clients/python" && PYTHONPATH="$ROOT/clients/python" PEERD_SOCKET="$(sock 1)" PEERD_SOCKET2="$(sock 2)" LAB_DIR="$LAB_DIR" \
        timeout 120 "$PY" -m pytest -q -p no:cacheprovider tests 2>&1) || fail "pytest failed: $out"
    note "$(echo "$out" | tail -1)"
    echo "$out" | grep -q "skipped" && fail "some lab tests were skipped: $out"
    return 0
}

# share.py (Python) and chat (Swift) on the same two hosts at once: share's
# text and file arrive, chat's lines arrive, and neither app sees the
# other's traffic.
test_share_and_chat_run_side_by_side() {
    [ -x "$CHAT" ] || fail "no chat example at $CHAT: build it first (make examples)"
    two_peers
    local share="$ROOT/Examples/python/share.py"
    lab_spawn 2 "$LAB_DIR/share2.out" "$PY" "$share" --socket "$(sock 2)" receive --count 2
    local receiver=$LAB_PID
    lab_wait_for 10 grep -q "share: receiving" "$LAB_DIR/share2.out" || fail "share receive did not start: $(cat "$LAB_DIR/share2.out")"
    start_chat 1 7
    start_chat 2 8 --accept
    lab_wait_for 10 sh -c "echo /peers >&7; sleep 0.3; grep -q '  host2  ' '$LAB_DIR/chat1.out'" || fail "chat on host1 does not list host2"
    echo "/invite host2" >&7
    lab_wait_for 10 grep -q "^\* host2 joined" "$LAB_DIR/chat1.out" || fail "chat did not connect: $(cat "$LAB_DIR/chat1.out")"
    "$PY" "$share" --socket "$(sock 1)" send host2 --text "from the clipboard" >"$LAB_DIR/share1.out" 2>&1 || fail "share send --text: $(cat "$LAB_DIR/share1.out")"
    echo "chat line" >&7
    head -c 200000 /dev/urandom >"$LAB_DIR/shared.bin"
    "$PY" "$share" --socket "$(sock 1)" send host2 "$LAB_DIR/shared.bin" >>"$LAB_DIR/share1.out" 2>&1 || fail "share send FILE: $(cat "$LAB_DIR/share1.out")"
    grep -q "^progress .* completed" "$LAB_DIR/share1.out" || fail "share showed no progress: $(cat "$LAB_DIR/share1.out")"
    lab_wait_for 20 sh -c "! kill -0 $receiver 2>/dev/null" || fail "share receive did not get both: $(cat "$LAB_DIR/share2.out")"
    grep -q "^text from host1: from the clipboard" "$LAB_DIR/share2.out" || fail "share's text: $(cat "$LAB_DIR/share2.out")"
    grep -q "^file from host1" "$LAB_DIR/share2.out" || fail "share's file: $(cat "$LAB_DIR/share2.out")"
    cmp -s "$LAB_DIR/shared.bin" "$LAB_DIR/h2/state/downloads/.apps/share/host1/shared.bin" || fail "share's file differs or is not in share's folder: $(ls -R "$LAB_DIR/h2/state/downloads")"
    lab_wait_for 10 grep -q "^<host1> chat line" "$LAB_DIR/chat2.out" || fail "chat's line: $(cat "$LAB_DIR/chat2.out")"
    grep -q "clipboard" "$LAB_DIR/chat2.out" && fail "chat saw share's text"
    grep -q "chat line" "$LAB_DIR/share2.out" && fail "share saw chat's line"
    return 0
}

# PeerKit's flows against the real daemons (peerbench's PeerKit probes): a
# PeerChannel both ways, in order (host2 echoes what host1 sends); a file whose progress ends
# completed; a pipe meeting the peer's pipe of the same name.
test_peerkit_channel_file_and_pipe_against_two_daemons() {
    two_peers --auto-accept all
    ctl 1 invite host2 --wait >/dev/null || fail "host1 could not connect host2"
    local out
    lab_spawn 2 "$LAB_DIR/kit2.out" "$BIN/peerbench" probe peerkit-echo "$(sock 2)" host1 500
    local other=$LAB_PID
    # Open in the daemon, not just asked for: a message that came before would go to the inbox.
    lab_wait_for 10 grep -q "channel with 'host1': opened" "$LAB_DIR/h2/peerd.log" || fail "host2's PeerChannel did not open: $(cat "$LAB_DIR/kit2.out")"
    out=$(lab_exec 1 "$BIN/peerbench" probe peerkit-channel "$(sock 1)" host2 500 2>&1) || fail "host1's PeerChannel: $out"
    wait "$other" || fail "host2's PeerChannel: $(cat "$LAB_DIR/kit2.out")"
    note "$out | $(tail -1 "$LAB_DIR/kit2.out")"
    echo "$out" | grep -q "sent=500 acknowledged=500 received=500 state=closed" || fail "host1's channel: $out"
    grep -q "echoed=500 sent=500 acknowledged=500 state=closed" "$LAB_DIR/kit2.out" || fail "host2's channel: $(cat "$LAB_DIR/kit2.out")"
    head -c 500000 /dev/urandom >"$LAB_DIR/kit.bin"
    out=$(lab_exec 1 "$BIN/peerbench" probe peerkit-file "$(sock 1)" host2 "$LAB_DIR/kit.bin" 2>&1) || fail "PeerKit's sendFile: $out"
    echo "$out" | grep -q "last=completed" || fail "the transfer's progress did not end completed: $out"
    cmp -s "$LAB_DIR/kit.bin" "$LAB_DIR/h2/state/downloads/host1/kit.bin" || fail "the file differs on host2"
    lab_spawn 2 "$LAB_DIR/pipe2.out" "$BIN/peerbench" probe peerkit-pipe "$(sock 2)" host1 kit "from two"
    other=$LAB_PID
    out=$(lab_exec 1 "$BIN/peerbench" probe peerkit-pipe "$(sock 1)" host2 kit "from one" 2>&1) || fail "host1's PeerPipe: $out"
    wait "$other" || fail "host2's PeerPipe: $(cat "$LAB_DIR/pipe2.out")"
    echo "$out" | grep -q "got=from two state=closed" || fail "host1's pipe: $out"
    grep -q "got=from one state=closed" "$LAB_DIR/pipe2.out" || fail "host2's pipe: $(cat "$LAB_DIR/pipe2.out")"
}

subscribers_at_least() { [ "$(json "$1" status | jq .subscribers)" -ge "$2" ]; }

# Event streams of the client libraries (PeerKit, Python, Python's asyncio) come back after the daemon
# restarts: each reports the gap (daemonRestarted), then goes on with the
# new run's events, with no action of the program.
test_client_event_streams_resume_after_the_daemon_restarts() {
    two_peers
    lab_spawn 1 "$LAB_DIR/kit-events.out" "$BIN/peerbench" probe peerkit-events "$(sock 1)" 100
    lab_spawn 1 "$LAB_DIR/py-events.out" env PYTHONPATH="$ROOT/clients/python" "$PY" -u -c "
import sys, peerd
for event in peerd.Subscription('$(sock 1)', None, {}, since=None, take=False):
    print('gap', event['reason'], 'after', event['after']) if event['type'] == 'gap' else print('event', event['type'])
    sys.stdout.flush()
"
    lab_spawn 1 "$LAB_DIR/aio-events.out" env PYTHONPATH="$ROOT/clients/python" "$PY" -u -c "
import asyncio, peerd.aio
async def main():
    client = await peerd.aio.Client.connect('$(sock 1)')
    async for event in client.events():
        print('gap', event['reason'], 'after', event['after']) if event['type'] == 'gap' else print('event', event['type'], flush=True)
asyncio.run(main())
"
    lab_wait_for 10 grep -q ready "$LAB_DIR/kit-events.out" || fail "the PeerKit stream did not start: $(cat "$LAB_DIR/kit-events.out")"
    lab_wait_for 10 subscribers_at_least 1 3 || fail "the three streams did not subscribe: $(json 1 status | jq .subscribers)"
    ctl 2 apps add before >/dev/null || fail "apps add on host2"
    lab_wait_for 10 grep -q "^event peerUpdated" "$LAB_DIR/kit-events.out" || fail "PeerKit heard nothing before the restart: $(cat "$LAB_DIR/kit-events.out")"
    lab_wait_for 10 grep -q "^event peerUpdated" "$LAB_DIR/py-events.out" || fail "Python heard nothing before the restart: $(cat "$LAB_DIR/py-events.out")"
    stop_peerd 1
    start_peerd 1
    lab_wait_for 15 grep -q "^gap daemonRestarted" "$LAB_DIR/kit-events.out" || fail "PeerKit reported no gap: $(cat "$LAB_DIR/kit-events.out")"
    lab_wait_for 15 grep -q "^gap daemonRestarted" "$LAB_DIR/py-events.out" || fail "Python reported no gap: $(cat "$LAB_DIR/py-events.out")"
    lab_wait_for 15 grep -q "^gap daemonRestarted" "$LAB_DIR/aio-events.out" || fail "asyncio reported no gap: $(cat "$LAB_DIR/aio-events.out")"
    ctl 2 apps add after >/dev/null || fail "apps add on host2, after"
    lab_wait_for 10 sh -c "sed -n '/^gap/,\$p' '$LAB_DIR/kit-events.out' | grep -q '^event peer'" || fail "PeerKit heard nothing after the restart: $(cat "$LAB_DIR/kit-events.out")"
    lab_wait_for 10 sh -c "sed -n '/^gap/,\$p' '$LAB_DIR/py-events.out' | grep -q '^event peer'" || fail "Python heard nothing after the restart: $(cat "$LAB_DIR/py-events.out")"
    lab_wait_for 10 sh -c "sed -n '/^gap/,\$p' '$LAB_DIR/aio-events.out' | grep -q '^event peer'" || fail "asyncio heard nothing after the restart: $(cat "$LAB_DIR/aio-events.out")"
}
