#!/usr/bin/env bash
# build-release.sh RELEASE COMMIT: builds an earlier release's peerd and
# peerctl from this repository's own history (git archive of COMMIT, a
# debug build), into .build/compat/RELEASE/bin. Cached: a directory that
# holds both binaries built from COMMIT is used as it is.
set -euo pipefail
release=$1 commit=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SWIFT=${SWIFT:-swift}
out="$ROOT/.build/compat/$release"
if [ -x "$out/bin/peerd" ] && [ -x "$out/bin/peerctl" ] && [ "$(cat "$out/commit" 2>/dev/null)" = "$commit" ]; then
    echo "compat: $release ($commit) is built already"
    exit 0
fi
git -C "$ROOT" cat-file -e "$commit^{commit}" 2>/dev/null || {
    echo "compat: commit $commit of release $release is not in this clone's history (a shallow clone? git fetch --unshallow)" >&2
    exit 1
}
rm -rf "$out"
mkdir -p "$out/src" "$out/bin"
git -C "$ROOT" archive "$commit" | tar -x -C "$out/src"
echo "compat: building $release from $commit"
# At the lowest priority (Tests/lab/low-priority): make test builds these
# beside the lab tests, which wait on deadlines (issue 41).
# Without debug information (-gnone) or an index store: these binaries
# are only run (the Makefile's BUILD_FLAGS say the same of this tree's);
# DWARF alone is a sixth of their build (0.3.0: 50 s against 60 on two
# idle cores), and a crash still names its functions.
flags=(--disable-index-store -Xswiftc -gnone)
( cd "$out/src" && "$ROOT/Tests/lab/low-priority" "$SWIFT" build --product peerd "${flags[@]}" \
    && "$ROOT/Tests/lab/low-priority" "$SWIFT" build --product peerctl "${flags[@]}" )
cp "$out/src/.build/debug/peerd" "$out/src/.build/debug/peerctl" "$out/bin/"
echo "$commit" >"$out/commit"
