# The desktop programs' Debian package, issue 45 point 3 (sourced by run.sh).

# The peerd-desktop package (issue 45): built from this build (DEB_BIN, as
# the compatibility test packages peerd), it holds the app, the agent,
# the user unit, the autostart and .desktop entries, the icon and the man
# pages, depends on peerd of its version and on GTK 4, looks for the
# Swift runtime in peerd's /usr/lib/peerd, and keeps the autostart entry
# as a conffile; its agent runs. lintian, where it is installed (make deb
# runs it on the release build, warnings too), finds no error.
test_the_desktop_package_holds_the_desktop() {
    local out="$LAB_DIR/deb" root="$LAB_DIR/root" version
    version=$(sed -n 's/.*static let string = "\(.*\)".*/\1/p' "$ROOT/Sources/PeerProtocol/Support/PeerdVersion.swift")
    DEB_BIN="$BIN" DEB_COMPRESSION=gzip "$ROOT/systemd/debian/build-desktop-deb.sh" "$ROOT" "$version" "$out" >"$LAB_DIR/deb.log" 2>&1 \
        || fail "build-desktop-deb.sh failed: $(tail -5 "$LAB_DIR/deb.log")"
    local deb="$out/peerd-desktop_${version}_$(dpkg --print-architecture).deb" f
    for f in usr/bin/peerd-gtk usr/bin/peerd-agent usr/lib/systemd/user/peerd-agent.service etc/xdg/autostart/peerd-agent.desktop \
             usr/share/applications/peerd-gtk.desktop usr/share/icons/hicolor/scalable/apps/peerd.svg \
             usr/share/man/man1/peerd-agent.1.gz usr/share/man/man1/peerd-gtk.1.gz usr/share/doc/peerd-desktop/copyright \
             usr/share/lintian/overrides/peerd-desktop; do
        dpkg-deb -c "$deb" | grep -q " ./$f\$" || fail "the package lacks /$f: $(dpkg-deb -c "$deb")"
    done
    dpkg-deb -f "$deb" Depends | grep -q "peerd (= $version)" || fail "the package does not depend on peerd $version: $(dpkg-deb -f "$deb" Depends)"
    dpkg-deb -f "$deb" Depends | grep -q "libgtk-4-1" || fail "the package does not depend on GTK 4: $(dpkg-deb -f "$deb" Depends)"
    expect_eq "$(dpkg-deb -e "$deb" "$LAB_DIR/control" && cat "$LAB_DIR/control/conffiles")" /etc/xdg/autostart/peerd-agent.desktop "conffiles"
    dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x"
    expect_eq "$(readelf -d "$root/usr/bin/peerd-gtk" | sed -n 's/.*R.*PATH.*\[\(.*\)\]/\1/p')" /usr/lib/peerd "the app's runpath"
    # The runtime is peerd's package's; here, the toolchain's copy stands in for it.
    LD_LIBRARY_PATH="$(dirname "$(dirname "$(command -v swift)")")/lib/swift/linux" "$root/usr/bin/peerd-agent" --help \
        | grep -q org.freedesktop.Notifications || fail "the packaged agent does not run"
    if command -v lintian >/dev/null; then
        lintian --tag-display-limit 0 --fail-on error "$deb" >"$LAB_DIR/lintian.log" 2>&1 || fail "lintian: $(cat "$LAB_DIR/lintian.log")"
    fi
}
