#!/usr/bin/env bash
# Two-host integration tests: real peerd binaries on lab hosts, each host with
# its own dbus-daemon and avahi-daemon (Tests/lab/lab.sh).
#
# Usage: Tests/integration/run.sh [TEST_NAME...]   (default: every test)
# Env:   PEERD_BIN  directory holding peerd and peerctl (default .build/debug)
#
# Every test runs in a subshell with a fresh lab, torn down by an EXIT trap
# even when the test fails. Tests wait for conditions with deadlines; none
# sleeps and hopes. The last line is "N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${PEERD_BIN:-$ROOT/.build/debug}
# Absolute, so commands run elsewhere (nsenter, other namespaces) find it.
BIN=$(cd "$BIN" 2>/dev/null && pwd) || { echo "no directory $BIN: build first (make build)"; exit 1; }
. "$HERE/../lab/lab.sh"
. "$HERE/helpers.sh"
for suite in "$HERE"/*_tests.sh; do . "$suite"; done

# ---------- runner ----------


[ "$(id -u)" = 0 ] || { echo "integration tests need root (network namespaces)"; exit 1; }
[ -x "$BIN/peerd" ] || { echo "no peerd in $BIN: build first (make build)"; exit 1; }
tests=("$@")
[ ${#tests[@]} -gt 0 ] || mapfile -t tests < <(declare -F | awk '{print $3}' | grep '^test_')
passed=0; failed=0; failures=()
for t in "${tests[@]}"; do
    start=$(date +%s)
    hosts=2; [[ $t == *three_hosts* ]] && hosts=3; [[ $t == *four_hosts* ]] && hosts=4
    if ( lab_up_or_retry "$hosts" || exit 1; "$t" ); then
        echo "ok   $t ($(( $(date +%s) - start ))s)"; passed=$((passed + 1))
    else
        echo "FAIL $t ($(( $(date +%s) - start ))s)"; failed=$((failed + 1)); failures+=("$t")
    fi
done
[ $failed -eq 0 ] || printf 'failed: %s\n' "${failures[@]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
