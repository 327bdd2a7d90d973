#!/usr/bin/env bash
# The compatibility test (issue 22, point 4): every earlier release in
# Tests/compat/releases.txt, built from this repository's history
# (build-release.sh, cached under .build/compat), runs on lab host 1 beside
# the current build on lab host 2, each with its own avahi. What a user
# does across an upgrade must work, or fail with words that say why.
#
# Usage: Tests/compat/run.sh [TEST_NAME...]   (default: every compat_ test)
# Env:   PEERD_BIN  the current build (default .build/debug)
#        RELEASES   the releases to test (default: every one in releases.txt)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${PEERD_BIN:-$ROOT/.build/debug}
BIN=$(cd "$BIN" 2>/dev/null && pwd) || { echo "no directory $BIN: build first (make build)"; exit 1; }
NEW_BIN=$BIN
. "$HERE/../lab/lab.sh"
. "$HERE/../integration/helpers.sh"
. "$HERE/../integration/session_tests.sh"
. "$HERE/../integration/pairing_tests.sh"
. "$HERE/compat_tests.sh"

[ "$(id -u)" = 0 ] || { echo "the compatibility test needs root (network namespaces)"; exit 1; }
mapfile -t known < <(grep -v '^#' "$HERE/releases.txt" | awk 'NF == 2')
releases=(${RELEASES:-$(printf '%s\n' "${known[@]}" | awk '{print $1}')})
tests=("$@")
[ ${#tests[@]} -gt 0 ] || mapfile -t tests < <(declare -F | awk '{print $3}' | grep '^compat_')
passed=0; failed=0; failures=()
for release in "${releases[@]}"; do
    commit=$(printf '%s\n' "${known[@]}" | awk -v r="$release" '$1 == r {print $2}')
    [ -n "$commit" ] || { echo "no release $release in releases.txt"; exit 1; }
    "$HERE/build-release.sh" "$release" "$commit" || { echo "could not build release $release"; exit 1; }
    OLD_BIN="$ROOT/.build/compat/$release/bin"
    OLD_RELEASE=$release
    for t in "${tests[@]}"; do
        start=$(date +%s)
        if ( lab_up_or_retry 2 || exit 1; "$t" ); then
            echo "ok   $release $t ($(( $(date +%s) - start ))s)"; passed=$((passed + 1))
        else
            echo "FAIL $release $t ($(( $(date +%s) - start ))s)"; failed=$((failed + 1)); failures+=("$release $t")
        fi
    done
done
[ $failed -eq 0 ] || printf 'failed: %s\n' "${failures[@]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
