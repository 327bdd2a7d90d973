#!/usr/bin/env bash
# Two-host integration tests: real peerd binaries on lab hosts, each host with
# its own dbus-daemon and avahi-daemon (Tests/lab/lab.sh).
#
# Usage: Tests/integration/run.sh [TEST_NAME...]   (default: every test)
# Env:   PEERD_BIN    directory holding peerd and peerctl (default .build/debug)
#        LAB_JOBS     tests run at once, each in a lab of its own (default 6,
#                     measured on two cores: docs/architecture.md, Testing)
#        LAB_GROUP    which tests: all (default), together (the ones that run
#                     beside others) or alone (the ones that measure time,
#                     memory or rate, one at a time)
#        LAB_RESULTS  where each test's log and results.tsv go
#                     (default .build/lab/integration; the alone group's in
#                     its folder alone/)
#
# Every test runs in a subshell with a fresh lab, torn down by an EXIT trap
# even when the test fails. Tests wait for conditions with deadlines; none
# sleeps and hopes. A comment line "# lab: alone (why)" above a test keeps it
# out of the concurrent group: it runs after, with no other lab test beside
# it. "# lab: long (why)" starts it first, so the run does not end waiting on
# it. One line a test, in the order the suites declare them; a failed test's
# own log follows its line. The last line is "N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${PEERD_BIN:-$ROOT/.build/debug}
# Absolute, so commands run elsewhere (nsenter, other namespaces) find it.
BIN=$(cd "$BIN" 2>/dev/null && pwd) || { echo "no directory $BIN: build first (make build)"; exit 1; }
. "$HERE/../lab/lab.sh"
. "$HERE/../lab/pool.sh"
. "$HERE/helpers.sh"
for suite in "$HERE"/*_tests.sh; do . "$suite"; done

# ---------- runner ----------

[ "$(id -u)" = 0 ] || { echo "integration tests need root (network namespaces)"; exit 1; }
[ -x "$BIN/peerd" ] || { echo "no peerd in $BIN: build first (make build)"; exit 1; }
JOBS=${LAB_JOBS:-6}
GROUP=${LAB_GROUP:-all}
RESULTS=${LAB_RESULTS:-$ROOT/.build/lab/integration}

pool_job() {
    local t=$1 hosts=2
    [[ $t == *three_hosts* ]] && hosts=3; [[ $t == *four_hosts* ]] && hosts=4
    lab_up_or_retry "$hosts" || exit 1
    "$t"
}

tests=("$@")
[ ${#tests[@]} -gt 0 ] || mapfile -t tests < <(declare -F | awk '{print $3}' | grep '^test_')
mapfile -t alone < <(lab_tagged alone "$HERE"/*_tests.sh)
together=() apart=()
for t in "${tests[@]}"; do
    case " ${alone[*]} " in *" $t "*) apart+=("$t") ;; *) together+=("$t") ;; esac
done
# Tests that share a machine-wide thing: group peerd (use_peerd_group) is
# made once for the whole run, so no test removes it under another.
made_group=no
if ! getent group peerd >/dev/null; then groupadd --system peerd && made_group=yes; fi
trap '[ $made_group = no ] || groupdel peerd 2>/dev/null' EXIT

passed=0; failed=0; failures=()
if [ "$GROUP" != alone ] && [ ${#together[@]} -gt 0 ]; then
    POOL_FIRST=$(lab_tagged long "$HERE"/*_tests.sh | tr '\n' '|')
    pool_run "$JOBS" "$RESULTS" "${together[@]}"
    passed=$((passed + POOL_PASSED)); failed=$((failed + POOL_FAILED)); failures+=("${POOL_FAILURES[@]}")
fi
if [ "$GROUP" != together ] && [ ${#apart[@]} -gt 0 ]; then
    POOL_FIRST= pool_run 1 "$RESULTS/alone" "${apart[@]}"
    passed=$((passed + POOL_PASSED)); failed=$((failed + POOL_FAILED)); failures+=("${POOL_FAILURES[@]}")
fi
[ $failed -eq 0 ] || printf 'failed: %s\n' "${failures[@]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
