#!/usr/bin/env bash
# table.sh: the closing table of make test (issue 41), from the accounts
# that stage.sh and phase.sh left in $TEST_REPORT (default
# .build/test-report) and the lab runners' results.tsv files under
# .build/lab: each stage's wall time with its phases beneath it (the phases
# of a stage run at the same time, so the stages are what add up to the
# total), the 10 slowest lab tests, and the totals. Exits non-zero when a
# stage or phase failed, or when a stage that make test runs is missing.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
report=${TEST_REPORT:-$ROOT/.build/test-report}
labs=${LAB_REPORT:-$ROOT/.build/lab}
now=$(date +%s%N)
begin=$(cat "$report/begin" 2>/dev/null || echo "$now")
bad=0

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

echo
echo "make test: where the time went"
printf '%-22s %9s %7s %7s %7s %7s  %s\n' "stage / phase" "wall s" tests passed failed skipped status
tp=0; tf=0; ts=0; staged=0
while IFS=$'\t' read -r stage start end rc; do
    [ -n "$stage" ] || continue
    staged=$(( staged + end - start ))
    st=ok; [ "$rc" = 0 ] || { st=FAIL; bad=1; }
    printf '%-22s %9s %7s %7s %7s %7s  %s\n' "$stage" "$(secs "$start" "$end")" "" "" "" "" "$st"
    # The phases that began inside this stage, in the order they began.
    for f in "$report"/*.phase; do
        [ -f "$f" ] || continue
        read -r ps pe prc pp pf pk <"$f"
        [ "$ps" -ge "$start" ] && [ "$ps" -le "$end" ] || continue
        echo "$ps $(basename "$f" .phase) $pe $prc $pp $pf $pk"
    done | sort -n | while read -r ps name pe prc pp pf pk; do
        pst=ok; [ "$prc" = 0 ] || pst=FAIL
        n=-; [ "$pp" = - ] || n=$(( pp + pf + pk ))
        printf '  %-20s %9s %7s %7s %7s %7s  %s\n' "$name" "$(secs "$ps" "$pe")" "$n" "$pp" "$pf" "$pk" "$pst"
    done
done <"$report/stages.tsv"
for f in "$report"/*.phase; do
    [ -f "$f" ] || continue
    read -r ps pe prc pp pf pk <"$f"
    [ "$prc" = 0 ] || bad=1
    [ "$pp" = - ] && continue
    tp=$(( tp + pp )); tf=$(( tf + pf )); ts=$(( ts + pk ))
done
total=$(( now - begin ))
printf '%-22s %9s\n' "total" "$(secs "$begin" "$now")"
awk -v s="$staged" -v t="$total" 'BEGIN { if (t > 0) printf "the stages add up to %.1f s, %.1f%% of the total (the rest is make between them)\n", s / 1e9, 100 * s / t }'

echo
echo "the 10 slowest lab tests:"
find "$labs" -name results.tsv 2>/dev/null | while read -r f; do
    group=$(dirname "${f#$labs/}")
    awk -F'\t' -v g="$group" '{ printf "%s\t%s\t%s\t%s\n", $3, g, $1, $2 }' "$f"
done | sort -t$'\t' -k1,1 -rn | head -10 | awk -F'\t' '{ printf "  %7.1f s  %-18s %s%s\n", $1, $2, $3, ($4 == "ok" ? "" : "  (" $4 ")") }'

echo
[ "$tf" = 0 ] || bad=1
echo "total: $tp passed, $tf failed, $ts skipped"
exit $bad
