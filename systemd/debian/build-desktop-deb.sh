#!/usr/bin/env bash
# build-desktop-deb.sh SOURCE_TREE VERSION OUT_DIR: builds
# OUT_DIR/peerd-desktop_VERSION_ARCH.deb (issue 45): peerd-gtk and
# peerd-agent, the agent's user unit and autostart entry, the app's
# .desktop entry, the icon and the man pages. The binaries find the Swift
# runtime in /usr/lib/peerd, which the peerd package of the same version
# ships (build-deb.sh): this one depends on it.
set -euo pipefail
src=$(cd "$1" && pwd) version=$2 out=$3
HERE=$(cd "$(dirname "$0")" && pwd)
SWIFT=${SWIFT:-swift}
arch=$(dpkg --print-architecture)
runtime=/usr/lib/peerd
scratch="$src/.build/deb"
stage=$(mktemp -d /tmp/peerd-desktop-deb.XXXXXX)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out"
out=$(cd "$out" && pwd)

# DEB_BIN=DIR packages the peerd-agent and peerd-gtk already built there
# (the lab test of the package: make test's debug build), their runpath
# pointed at the packaged runtime with chrpath, as build-deb.sh's
# DEB_OWN_RUNTIME does. A package to ship is built here, release.
if [ -n "${DEB_BIN:-}" ]; then
    echo "deb: packaging peerd-desktop $version from $DEB_BIN"
    bin=$DEB_BIN
else
    echo "deb: building peerd-desktop $version (release) from $src"
    for product in peerd-agent peerd-gtk; do
        "$SWIFT" build -c release --package-path "$src" --scratch-path "$scratch" --product "$product" \
            -Xswiftc -no-toolchain-stdlib-rpath -Xlinker -rpath="$runtime" -Xlinker -z -Xlinker now -Xlinker -z -Xlinker relro >/dev/null
    done
    bin="$scratch/release"
fi

install -d "$stage/usr/bin" "$stage/usr/lib/systemd/user" "$stage/etc/xdg/autostart" "$stage/usr/share/applications" \
    "$stage/usr/share/icons/hicolor/scalable/apps" "$stage/usr/share/man/man1" "$stage/usr/share/doc/peerd-desktop" "$stage/DEBIAN"
install -m 0755 "$bin/peerd-agent" "$bin/peerd-gtk" "$stage/usr/bin/"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/peerd-agent" "$stage/usr/bin/peerd-gtk"
if [ -n "${DEB_BIN:-}" ]; then
    command -v chrpath >/dev/null || { echo "deb: DEB_BIN needs chrpath (make deps installs it)" >&2; exit 1; }
    chrpath -r "$runtime" "$stage/usr/bin/peerd-agent" "$stage/usr/bin/peerd-gtk" >/dev/null
fi
install -m 0644 "$src/systemd/peerd-agent.service" "$stage/usr/lib/systemd/user/"
install -m 0644 "$src/systemd/peerd-agent.desktop" "$stage/etc/xdg/autostart/"
install -m 0644 "$src/systemd/peerd-gtk.desktop" "$stage/usr/share/applications/"
install -m 0644 "$src/systemd/peerd.svg" "$stage/usr/share/icons/hicolor/scalable/apps/peerd.svg"
gzip -9n <"$src/docs/peerd-agent.1" >"$stage/usr/share/man/man1/peerd-agent.1.gz"
gzip -9n <"$src/docs/peerd-gtk.1" >"$stage/usr/share/man/man1/peerd-gtk.1.gz"
install -m 0644 "$HERE/copyright-desktop" "$stage/usr/share/doc/peerd-desktop/copyright"
install -d "$stage/usr/share/lintian/overrides"
install -m 0644 "$HERE/lintian-overrides-desktop" "$stage/usr/share/lintian/overrides/peerd-desktop"
{
    echo "peerd ($version) unstable; urgency=medium"
    echo
    echo "  * Release $version: the desktop window and notifications."
    echo
    echo " -- peerd maintainers <maintainers@peerd.invalid>  $(date -R -d @"${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n >"$stage/usr/share/doc/peerd-desktop/changelog.gz"
echo /etc/xdg/autostart/peerd-agent.desktop >"$stage/DEBIAN/conffiles"
# Dependencies: the system libraries the binaries link (GTK, libadwaita,
# libsystemd, …) by package, and peerd of this version for the runtime.
toolchain_lib=$(dirname "$(dirname "$(command -v "$SWIFT")")")/lib/swift/linux
. "$HERE/deb-lib.sh"
depends_field="$(deb_depends "$toolchain_lib" "$stage/usr/bin/peerd-agent" "$stage/usr/bin/peerd-gtk")peerd (= $version)"
deb_finish "$stage" "$HERE/control-desktop.in" "$depends_field" "$out/peerd-desktop_${version}_${arch}.deb"
