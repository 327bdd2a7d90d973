#!/usr/bin/env bash
# make-state-fixture.sh RELEASE: writes Tests/compat/fixtures/RELEASE/, the
# state directories that RELEASE itself wrote, for the upgrade test
# (compat_state_written_by_the_old_release_is_kept). Two lab hosts run
# RELEASE (built by build-release.sh), pair, and host1 queues three
# messages for host2 while host2 is down; then both stop, and their state
# directories are kept as they are, with the peer ids they hold.
#
# Run once per release, as root; the fixture is committed. Env: as run.sh.
set -eu
release=$1
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$ROOT/.build/debug
NEW_BIN=$BIN
. "$HERE/../lab/lab.sh"
. "$HERE/../integration/helpers.sh"
. "$HERE/../integration/session_tests.sh"
. "$HERE/compat_tests.sh"
commit=$(awk -v r="$release" '$1 == r {print $2}' "$HERE/releases.txt")
[ -n "$commit" ] || { echo "no release $release in releases.txt"; exit 1; }
"$HERE/build-release.sh" "$release" "$commit"
OLD_BIN="$ROOT/.build/compat/$release/bin"
bin_of() { echo "$OLD_BIN"; }   # both hosts run the release
out="$HERE/fixtures/$release"
trap lab_down EXIT
lab_up 2 >/dev/null
two_peers
pair_across 1 2
lab_wait_for 15 state_is 1 host2 connected || fail "the paired peers did not connect"
stop_peerd 2
lab_wait_for 15 state_is 1 host2 notConnected || fail "host1 still shows host2 connected"
for n in 1 2 3; do ctl 1 send host2 --queue "queued by $release, $n of 3" >/dev/null || fail "send --queue"; done
stop_peerd 1
rm -rf "$out"
mkdir -p "$out"
cp -a "$LAB_DIR/h1/state" "$out/h1"
cp -a "$LAB_DIR/h2/state" "$out/h2"
{
    echo "# What the fixture's state directories hold, as $release wrote them ($commit)."
    echo "h1 peer id $(lab_exec 1 cat "$LAB_DIR/h1/peerd.log" | grep -o 'peer id [0-9a-f]*' | head -1 | awk '{print $3}')"
    echo "h2 peer id $(lab_exec 2 cat "$LAB_DIR/h2/peerd.log" | grep -o 'peer id [0-9a-f]*' | head -1 | awk '{print $3}')"
    echo "h1 queued for h2: 3"
} >"$out/expected.txt"
echo "fixture written to $out"
find "$out" -type f | sort
