# File transfer tests, issue 12 (sourced by run.sh).

# paired_peers: hosts 1 and 2 run peerd, pair, and connect.
paired_peers() {
    two_peers "$@"
    pair_hosts 1 2
    lab_wait_for 10 state_is 1 host2 connected || fail "the paired peers did not connect"
}

# make_file PATH MIB: a file of MIB MiB of random bytes.
make_file() { head -c "$(( $2 << 20 ))" /dev/urandom >"$1"; }

test_send_file_of_100_mib_and_a_directory_of_2000_small_files() {
    paired_peers
    local src="$LAB_DIR/src"; mkdir -p "$src/tree"
    make_file "$src/big.bin" 100
    for d in $(seq 0 19); do
        mkdir -p "$src/tree/d$d"
        for f in $(seq 0 99); do head -c $(( (d * 100 + f) * 7 % 4000 + 1 )) /dev/urandom >"$src/tree/d$d/f$f.txt"; done
    done
    local start; start=$(date +%s.%N)
    lab_exec 1 "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$src/big.bin" >"$LAB_DIR/send1.out" 2>&1 || { cat "$LAB_DIR/send1.out" >&2; fail "send-file of 100 MiB failed"; }
    local mid; mid=$(date +%s.%N)
    lab_exec 1 "$BIN/peerctl" --socket "$(sock 1)" send-file host2 "$src/tree" >"$LAB_DIR/send2.out" 2>&1 || { cat "$LAB_DIR/send2.out" >&2; fail "send-file of 2,000 files failed"; }
    local end; end=$(date +%s.%N)
    local dest="$LAB_DIR/h2/state/downloads/host1"
    expect_eq "$(sha256sum <"$dest/big.bin")" "$(sha256sum <"$src/big.bin")" "the 100 MiB file's hash"
    expect_eq "$(cd "$dest/tree" && find . -type f | wc -l)" 2000 "files received"
    expect_eq "$(cd "$dest/tree" && find . -type f -exec sha256sum {} + | sort | sha256sum)" "$(cd "$src/tree" && find . -type f -exec sha256sum {} + | sort | sha256sum)" "the 2,000 files' hashes"
    expect_eq "$(stat -c %Y "$dest/big.bin")" "$(stat -c %Y "$src/big.bin")" "the modification time"
    [ -z "$(find "$dest" -name '.peerd-*')" ] || fail "partial files or records left: $(find "$dest" -name '.peerd-*' | head -3)"
    note "100 MiB in $(echo "$mid - $start" | bc) s; 2,000 small files in $(echo "$end - $mid" | bc) s ($(echo "2000 / ($end - $mid)" | bc) files/s)"
}
