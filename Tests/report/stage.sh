#!/usr/bin/env bash
# stage.sh NAME CMD...: runs one stage of make test (issue 41): stages run one
# after another, the phases inside one at the same time (make -j). Appends
# "NAME<TAB>START_NS<TAB>END_NS<TAB>STATUS" to $TEST_REPORT/stages.tsv for
# the closing table, and exits with CMD's status.
set -u
name=$1; shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
report=${TEST_REPORT:-$ROOT/.build/test-report}
mkdir -p "$report"
start=$(date +%s%N)
"$@"
rc=$?
printf '%s\t%s\t%s\t%s\n' "$name" "$start" "$(date +%s%N)" "$rc" >>"$report/stages.tsv"
exit $rc
