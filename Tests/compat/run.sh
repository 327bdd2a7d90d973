#!/usr/bin/env bash
# The compatibility test (issue 22, point 4): every earlier release in
# Tests/compat/releases.txt, built from this repository's history
# (build-release.sh, cached under .build/compat), runs on lab host 1 beside
# the current build on lab host 2, each with its own avahi. What a user
# does across an upgrade must work, or fail with words that say why.
#
# Usage: Tests/compat/run.sh [TEST_NAME...]   (default: every compat_ test)
# Env:   PEERD_BIN        the current build (default .build/debug)
#        RELEASES         the releases to test (default: every one in releases.txt)
#        COMPAT_JOBS      tests run at once, each in a lab of its own (default 4)
#        COMPAT_RESULTS   each test's log and results.tsv (default .build/lab/compat)
#        COMPAT_BUILD_ONLY=releases  build the releases and the newest one's
#                         package (or find them cached) and stop: make test
#                         builds them beside its own build and unit tests
#        COMPAT_BUILD_ONLY=current   the same, then this tree's package from
#                         PEERD_BIN (make test: once its build is done)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${PEERD_BIN:-$ROOT/.build/debug}
# (Building only, make test's build stage builds this tree beside it.)
BIN=$(cd "$BIN" 2>/dev/null && pwd) || [ -n "${COMPAT_BUILD_ONLY:-}" ] || { echo "no directory $BIN: build first (make build)"; exit 1; }
NEW_BIN=$BIN
. "$HERE/../lab/lab.sh"
. "$HERE/../lab/pool.sh"
. "$HERE/../integration/helpers.sh"
. "$HERE/../integration/session_tests.sh"
. "$HERE/../integration/pairing_tests.sh"
. "$HERE/../integration/datagram_tests.sh"
. "$HERE/compat_tests.sh"

[ "$(id -u)" = 0 ] || { echo "the compatibility test needs root (network namespaces)"; exit 1; }
mapfile -t known < <(grep -v '^#' "$HERE/releases.txt" | awk 'NF == 2')
releases=(${RELEASES:-$(printf '%s\n' "${known[@]}" | awk '{print $1}')})
tests=("$@")
[ ${#tests[@]} -gt 0 ] || mapfile -t tests < <(declare -F | awk '{print $3}' | grep '^compat_')
# Every release is built (or found in the cache) before any test starts.
for release in "${releases[@]}"; do
    commit=$(printf '%s\n' "${known[@]}" | awk -v r="$release" '$1 == r {print $2}')
    [ -n "$commit" ] || { echo "no release $release in releases.txt"; exit 1; }
    "$HERE/build-release.sh" "$release" "$commit" || { echo "could not build release $release"; exit 1; }
done
if [ -n "${COMPAT_BUILD_ONLY:-}" ]; then
    # And the two packages the upgrade test installs (deb_of), so make
    # test builds everything before its lab stage (issue 41). This tree's
    # is made of its build, so only once that is done.
    packages=("$(newest_release)")
    [ "$COMPAT_BUILD_ONLY" = releases ] || packages+=(current)
    for release in "${packages[@]}"; do
        echo "compat: the $release package"
        deb_of "$release" >/dev/null || { echo "could not build the $release package"; exit 1; }
    done
    exit 0
fi

# One job a release and test ("0.1.0 compat_messages_both_ways"), each in a
# lab of its own, COMPAT_JOBS at once (Tests/lab/pool.sh).
pool_job() {
    OLD_RELEASE=${1%% *}
    OLD_BIN="$ROOT/.build/compat/$OLD_RELEASE/bin"
    local why
    if ! why=$(test_applies "${1#* }"); then note "$why"; return 0; fi
    lab_up_or_retry 2 || exit 1
    "${1#* }"
}
jobs=()
for release in "${releases[@]}"; do
    for t in "${tests[@]}"; do jobs+=("$release $t"); done
done
POOL_FIRST=$(for release in "${releases[@]}"; do lab_tagged long "$HERE/compat_tests.sh" | sed "s/^/$release /"; done | tr '\n' '|')
pool_run "${COMPAT_JOBS:-4}" "${COMPAT_RESULTS:-$ROOT/.build/lab/compat}" "${jobs[@]}"
[ "$POOL_FAILED" -eq 0 ] || printf 'failed: %s\n' "${POOL_FAILURES[@]}"
echo "$POOL_PASSED passed, $POOL_FAILED failed"
[ "$POOL_FAILED" -eq 0 ]
