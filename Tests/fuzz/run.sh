#!/usr/bin/env bash
# Builds the libFuzzer harnesses (Tests/fuzz/FuzzTargets.swift) with
# -sanitize=fuzzer,address and runs each parser's harness.
#
# Usage: Tests/fuzz/run.sh RUNS [TARGET...]
#   RUNS     executions per target (make fuzz: FUZZ_RUNS, 1,000,000; the CI smoke: 5,000)
#   TARGET   wire handshake control config txt netlink disk client datagram (default: all)
# Each target starts from its corpus in Tests/fuzz/corpus/TARGET (read-only:
# new inputs go to a scratch copy) and stops at the first crash, leaving the
# input in .build/fuzz/crash-* (.build/fuzz-Onone/ for the smoke). The last
# line is "N passed, N failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RUNS=${1:-2000}; shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(wire handshake control config txt dns netlink disk client datagram)
# FUZZ_OPT: -O (make fuzz: more executions a second for the long runs) or
# -Onone (make test's smoke, issue 41: the harnesses build in 80 CPU
# seconds instead of 190, and 5,000 runs a target do not need the speed;
# the sanitizers and the coverage guidance are the same). Each has its own
# folder, so neither rebuilds the other's.
OPT=${FUZZ_OPT:--O}
OUT="$ROOT/.build/fuzz"; [ "$OPT" = -O ] || OUT="$ROOT/.build/fuzz$OPT"
SWIFTC=${SWIFTC:-swiftc}
mkdir -p "$OUT"
FLAGS=(-sanitize=fuzzer,address -package-name peerd -parse-as-library "$OPT" -g -swift-version 6 -enable-upcoming-feature ExistentialAny -I "$OUT" -L "$OUT")
MODULES=(-I "$ROOT/Sources/CAvahi" -I "$ROOT/Sources/CSodium" -I "$ROOT/Sources/CCrypto" -I "$ROOT/Sources/CMalloc" -I "$ROOT/Sources/CFiles" -I "$ROOT/Sources/CPoll" -I "$ROOT/Sources/CSockets")

# A target's sources, in every folder below it (paths hold no spaces).
sources() { find "$ROOT/Sources/$1" -name '*.swift' | sort; }

# One module: its static library and interface in $OUT.
module() {
    local name=$1; shift
    (cd "$OUT" && "$ROOT/Tests/lab/low-priority" "$SWIFTC" "${FLAGS[@]}" "$@" -module-name "$name" -emit-module -emit-library -static -o "lib$name.a" $(sources "$name")) \
        >"$OUT/build-$name.log" 2>&1
}

build() {
    # Rebuilt only when a source is newer than the binary.
    local newest; newest=$(ls -t $(sources PeerProtocol) $(sources PeerCore) $(sources PeerTools) $(sources PeerSystem) $(sources PeerCrypto) "$HERE"/FuzzTargets.swift | head -1)
    [ -x "$OUT/peerd-fuzz" ] && [ "$OUT/peerd-fuzz" -nt "$newest" ] && return 0
    echo "building the fuzz harnesses (swiftc -sanitize=fuzzer,address; logs in $OUT/build-*.log)"
    # The modules' own graph, side by side where it allows (issue 41):
    # PeerProtocol; then PeerCore and PeerSystem; then PeerTools and
    # PeerCrypto (the handshake's; not the rest of the I/O layer, PeerIO,
    # which was 40% of this build). At the lowest priority
    # (Tests/lab/low-priority): make test builds them beside the lab tests.
    local status=0
    module PeerProtocol || status=1
    if [ $status = 0 ]; then
        module PeerCore & local core=$!
        module PeerSystem "${MODULES[@]}" || status=1
        wait $core || status=1
    fi
    if [ $status = 0 ]; then
        module PeerTools & local tools=$!
        module PeerCrypto "${MODULES[@]}" || status=1
        wait $tools || status=1
    fi
    [ $status = 0 ] && (cd "$OUT" && "$ROOT/Tests/lab/low-priority" "$SWIFTC" "${FLAGS[@]}" "${MODULES[@]}" -module-name FuzzTargets "$HERE/FuzzTargets.swift" -lPeerCrypto -lPeerSystem -lPeerTools -lPeerCore -lPeerProtocol \
            -lsodium -o peerd-fuzz) >"$OUT/build-FuzzTargets.log" 2>&1 || status=1
    [ $status = 0 ] || { cat "$OUT"/build-*.log | grep -E "error" | head -20; return 1; }
}

build || { echo "0 passed, 1 failed"; exit 1; }
passed=0; failed=0
for target in "${TARGETS[@]}"; do
    scratch=$(mktemp -d)
    cp -r "$HERE/corpus/$target/." "$scratch/" 2>/dev/null
    chmod -R u+w "$scratch"
    log="$OUT/$target.log"
    # At the lowest priority too: make test runs them beside the lab tests
    # that measure time (Makefile, stage "alone").
    if FUZZ_TARGET=$target "$ROOT/Tests/lab/low-priority" "$OUT/peerd-fuzz" -runs="$RUNS" -max_len=65600 -rss_limit_mb=4096 -artifact_prefix="$OUT/crash-$target-" "$scratch" >"$log" 2>&1; then
        echo "ok   fuzz $target: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log" | tail -1)"
        passed=$((passed + 1))
    else
        echo "FAIL fuzz $target (see $log)"; tail -n 30 "$log" | sed 's/^/    | /'
        failed=$((failed + 1))
    fi
    rm -rf "$scratch"
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
