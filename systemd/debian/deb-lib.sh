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

# deb_finish STAGE CONTROL_IN DEPENDS DEB: writes STAGE/DEBIAN/control from
# CONTROL_IN (its @VERSION@, @ARCH@, @SIZE@ and @DEPENDS@ filled in from
# $version, $arch, STAGE's size and DEPENDS) and md5sums, sets the modes
# dpkg-deb wants, and builds DEB. DEB_COMPRESSION: xz, as Debian ships
# (the default); the compatibility test's packages, installed once and
# thrown away, use gzip: xz took dpkg-deb 30 CPU seconds of make test's
# build stage.
deb_finish() {
    local stage=$1 control_in=$2 depends=$3 deb=$4 size
    size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
    sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" \
        "$control_in" >"$stage/DEBIAN/control"
    (cd "$stage" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
    chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums" "$stage/DEBIAN/conffiles"
    find "$stage" -type d -exec chmod 0755 {} +
    dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" --build "$stage" "$deb" >/dev/null
    echo "deb: $deb"
}
