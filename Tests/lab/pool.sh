#!/usr/bin/env bash
# Runs lab jobs a few at a time (issue 41): each job is a subshell with a lab
# of its own (Tests/lab/lab.sh claims a fresh id, namespaces and bridge), so
# no two jobs see each other's hosts or mDNS.
#
# Source this file, define pool_job NAME (runs one job; its exit status is
# the verdict), then:
#   pool_run JOBS DIR NAME...
# NAME...  the jobs, in the order they are reported. POOL_FIRST (names,
#          separated by "|") start before the others: the long ones, so the
#          run does not end waiting on one long job started last.
# JOBS     how many run at once.
# DIR      each job's output goes to DIR/NAME.log; DIR/results.tsv gets a
#          line "NAME<TAB>ok|FAIL<TAB>SECONDS" per job, in report order.
# Each job prints one line, "ok   NAME (Ss)" or "FAIL NAME (Ss)", in the
# order given, as soon as it and every job before it have ended; a failed
# job's line is followed by its own log, and nobody else's. Sets
# POOL_PASSED, POOL_FAILED and POOL_FAILURES (names).

# A job's name as a file name (compat's names hold a space).
pool_file() { printf '%s' "$1" | tr -c 'A-Za-z0-9_.-' '_'; }

# pool_start DIR NAME: runs one job, then leaves DIR/FILE.rc ("STATUS
# MILLISECONDS"), written whole by a rename so a reader never sees half.
pool_start() {
    local dir=$1 name=$2 file start rc
    file=$(pool_file "$name")
    start=$(date +%s%N)
    rm -rf "$dir/$file.saved"
    # A failing job may keep its whole logs here (save_logs, helpers.sh):
    # the report shows only their tails.
    ( POOL_SAVE="$dir/$file.saved" pool_job "$name" ) >"$dir/$file.log" 2>&1 </dev/null
    rc=$?
    echo "$rc $(( ($(date +%s%N) - start) / 1000000 ))" >"$dir/$file.rc.part"
    mv "$dir/$file.rc.part" "$dir/$file.rc"
}

# pool_report DIR NAME...: prints the lines of the ended jobs at the head
# of the list not yet printed; POOL_PRINTED counts them.
pool_report() {
    local dir=$1; shift
    local names=("$@") name file rc ms seconds
    while [ "$POOL_PRINTED" -lt ${#names[@]} ]; do
        name=${names[$POOL_PRINTED]}
        file=$(pool_file "$name")
        [ -f "$dir/$file.rc" ] || return 0
        read -r rc ms <"$dir/$file.rc"
        seconds=$(awk -v ms="$ms" 'BEGIN { printf "%.1f", ms / 1000 }')
        if [ "$rc" = 0 ]; then
            echo "ok   $name (${seconds}s)"
            POOL_PASSED=$((POOL_PASSED + 1))
            printf '%s\tok\t%s\n' "$name" "$seconds" >>"$dir/results.tsv"
        else
            echo "FAIL $name (${seconds}s)"
            sed 's/^/    /' "$dir/$file.log"
            POOL_FAILED=$((POOL_FAILED + 1)); POOL_FAILURES+=("$name")
            printf '%s\tFAIL\t%s\n' "$name" "$seconds" >>"$dir/results.tsv"
        fi
        POOL_PRINTED=$((POOL_PRINTED + 1))
    done
}

pool_run() {
    local jobs=$1 dir=$2; shift 2
    local names=("$@") order=() name first running started=0
    POOL_PASSED=0; POOL_FAILED=0; POOL_FAILURES=(); POOL_PRINTED=0
    mkdir -p "$dir"
    : >"$dir/results.tsv"
    for name in "${names[@]}"; do rm -f "$dir/$(pool_file "$name")".{log,rc}; done
    # The start order: POOL_FIRST's names that are in the list, then the rest.
    local IFS_was=$IFS firsts
    IFS='|' read -r -a firsts <<<"${POOL_FIRST:-}"
    IFS=$IFS_was
    for first in "${firsts[@]}"; do
        for name in "${names[@]}"; do [ "$name" = "$first" ] && order+=("$name"); done
    done
    for name in "${names[@]}"; do
        case "|${POOL_FIRST:-}|" in *"|$name|"*) ;; *) order+=("$name") ;; esac
    done
    for name in "${order[@]}"; do
        while :; do
            running=$(( started - $(find "$dir" -maxdepth 1 -name '*.rc' | wc -l) ))
            [ "$running" -ge "$jobs" ] || break
            # Any job's end wakes this; the count comes from the files, so a
            # job reaped earlier is not missed.
            wait -n 2>/dev/null || true
            pool_report "$dir" "${names[@]}"
        done
        pool_start "$dir" "$name" &
        started=$((started + 1))
    done
    wait
    pool_report "$dir" "${names[@]}"
}

# lab_tagged TAG FILE...: the tests (test_..., compat_...) whose comment
# block, right above their definition, has a line "# lab: TAG (why)" or
# "# lab: TAG, TAG (why)" (alone, long).
lab_tagged() {
    local tag=$1; shift
    awk -v tag="$tag" '
        /^#/ { if ($0 ~ "^# lab: ([a-z]+, )*" tag "([ ,]|$)") tagged = 1; next }
        /^[a-z][A-Za-z0-9_]*\(\)/ { if (tagged) { sub(/\(\).*/, ""); print } }
        { tagged = 0 }' "$@"
}
