# Sourced by build-deb.sh and build-desktop-deb.sh.

# deb_depends SKIP_DIR FILE...: the Debian packages that provide the
# shared libraries the FILEs link, each followed by ", " (a Depends
# field's start), leaving out the libraries found in SKIP_DIR (the Swift
# runtime, which package peerd ships itself in /usr/lib/peerd).
deb_depends() {
    local skip=$1; shift
    local needed
    needed=$(for f in "$@"; do readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; done | sort -u)
    for lib in $needed; do
        [ -e "$skip/$lib" ] && continue
        path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|x86_64|AArch64|aarch64/ {print $NF; exit}')
        [ -n "$path" ] || { echo "deb: no system library provides $lib" >&2; exit 1; }
        dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path"
    done | cut -d: -f1 | sort -u | sed 's/$/,/' | tr '\n' ' '
}
