#!/usr/bin/env bash
# phase.sh NAME CMD...: runs one phase of make test (issue 41) and keeps its
# account for the closing table (Tests/report/table.sh).
#
# Each line CMD prints comes out as "NAME: LINE", so phases that run at the
# same time (make -j) can be told apart; a runner's closing line stays one a
# CI reads ("integration: 120 passed, 0 failed"). The account goes to
# $TEST_REPORT/NAME.phase (default .build/test-report): start and end in
# nanoseconds, exit status, and the tests passed, failed and skipped, read
# from the command's own closing line ("N passed, N failed" or XCTest's
# "Executed N tests, with F failures"). Exits with CMD's status.
set -u
name=$1; shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
report=${TEST_REPORT:-$ROOT/.build/test-report}
mkdir -p "$report"
log="$report/$name.log"
start=$(date +%s%N)
set -o pipefail
"$@" 2>&1 | tee "$log" | sed -u "s/^/$name: /"
rc=$?
end=$(date +%s%N)
# The counts: the last closing line of either kind.
counts=$(awk '
    /^[A-Za-z]*:? *[0-9]+ passed, [0-9]+ failed/ {
        line = $0; sub(/^[A-Za-z]*: */, "", line); split(line, w, /[ ,]+/)
        p = w[1]; f = w[3]; s = 0; if (w[6] == "skipped") s = w[5] }
    /Executed [0-9]+ tests?, with/ {
        n = $2; f = 0; s = 0
        if (match($0, /with [0-9]+ tests? skipped and [0-9]+ failures?/)) { split(substr($0, RSTART, RLENGTH), w, " "); s = w[2]; f = w[6] }
        else if (match($0, /with [0-9]+ failures?/)) { split(substr($0, RSTART, RLENGTH), w, " "); f = w[2] }
        p = n - f - s }
    END { if (p == "") print "- - -"; else print p, f, s }' "$log")
echo "$start $end $rc $counts" >"$report/$name.phase"
exit $rc
