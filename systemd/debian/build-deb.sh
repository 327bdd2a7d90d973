#!/usr/bin/env bash
# build-deb.sh SOURCE_TREE VERSION OUT_DIR: builds OUT_DIR/peerd_VERSION_ARCH.deb
# with dpkg-deb from a peerd source tree (this one, or an earlier release's:
# the compatibility test packages 0.1.0's tree with this script).
#
# The package holds the release binaries, built to find the Swift runtime in
# /usr/lib/peerd (the shared libraries they link, copied from the toolchain:
# a static stdlib raised private memory from 1.5 to 9.6 MB), the units,
# sysusers and tmpfiles entries, man pages, completion, a default
# configuration (a conffile), and the maintainer scripts beside this file.
set -euo pipefail
src=$(cd "$1" && pwd) version=$2 out=$3
HERE=$(cd "$(dirname "$0")" && pwd)
SWIFT=${SWIFT:-swift}
arch=$(dpkg --print-architecture)
runtime=/usr/lib/peerd
toolchain_lib=$(dirname "$(dirname "$(command -v "$SWIFT")")")/lib/swift/linux
scratch="$src/.build/deb"
stage=$(mktemp -d /tmp/peerd-deb.XXXXXX)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out"
out=$(cd "$out" && pwd)

# DEB_CONFIG=debug builds the binaries unoptimised: the compatibility test
# packages that way (issue 41: a release build is a minute and a half of
# both cores). A package to ship is always release (make deb).
# DEB_BIN=DIR packages the peerd and peerctl already built there instead
# (they keep the toolchain's runpath): the compatibility test packages an
# earlier release that way, from the build make compat made of it, only
# to upgrade from it.
# DEB_OWN_RUNTIME=1, with DEB_BIN, points the prebuilt binaries' runpath
# at the packaged runtime (chrpath, which rewrites it in place: the new
# path is shorter than the toolchain's). The compatibility test packages
# this tree that way from the debug build make test has already made, so
# the installed daemon runs on the libraries the package carries, as a
# shipped one does, without compiling the tree a second time (issue 41:
# that second debug build of the whole tree took both cores in make
# test's build stage).
config=${DEB_CONFIG:-release}
if [ -n "${DEB_BIN:-}" ]; then
    echo "deb: packaging peerd $version from $DEB_BIN"
    bin=$DEB_BIN
else
    echo "deb: building peerd $version ($config) from $src"
    for product in peerd peerctl; do
        "$SWIFT" build -c "$config" --package-path "$src" --scratch-path "$scratch" --product "$product" \
            -Xswiftc -no-toolchain-stdlib-rpath -Xlinker -rpath="$runtime" -Xlinker -z -Xlinker now -Xlinker -z -Xlinker relro >/dev/null
    done
    bin="$scratch/$config"
fi

install -d "$stage/usr/bin" "$stage$runtime" "$stage/lib/systemd/system" "$stage/usr/lib/sysusers.d" \
    "$stage/usr/lib/tmpfiles.d" "$stage/usr/share/man/man8" "$stage/usr/share/man/man1" \
    "$stage/usr/share/bash-completion/completions" "$stage/etc/peerd" "$stage/usr/share/doc/peerd" "$stage/DEBIAN"
install -m 0755 "$bin/peerd" "$bin/peerctl" "$stage/usr/bin/"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/peerd" "$stage/usr/bin/peerctl"
if [ -n "${DEB_BIN:-}" ] && [ "${DEB_OWN_RUNTIME:-}" = 1 ]; then
    command -v chrpath >/dev/null || { echo "deb: DEB_OWN_RUNTIME needs chrpath (apt-get install chrpath; make deps installs it)" >&2; exit 1; }
    chrpath -r "$runtime" "$stage/usr/bin/peerd" "$stage/usr/bin/peerctl" >/dev/null
fi
# The Swift runtime libraries the binaries need, and what those need in turn.
libs=$(LD_LIBRARY_PATH="$toolchain_lib" ldd "$stage/usr/bin/peerd" "$stage/usr/bin/peerctl" \
    | awk -v dir="$toolchain_lib" 'index($3, dir) == 1 {print $3}' | sort -u)
for lib in $libs; do
    install -m 0644 "$lib" "$stage$runtime/"
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage$runtime/$(basename "$lib")"
done
install -m 0644 "$src/systemd/peerd.service" "$src/systemd/peerd.socket" "$stage/lib/systemd/system/"
install -m 0644 "$src/systemd/peerd.sysusers" "$stage/usr/lib/sysusers.d/peerd.conf"
install -m 0644 "$src/systemd/peerd.tmpfiles" "$stage/usr/lib/tmpfiles.d/peerd.conf"
gzip -9n <"$src/docs/peerd.8" >"$stage/usr/share/man/man8/peerd.8.gz"
gzip -9n <"$src/docs/peerctl.1" >"$stage/usr/share/man/man1/peerctl.1.gz"
install -m 0644 "$src/docs/peerctl.bash-completion" "$stage/usr/share/bash-completion/completions/peerctl"
install -m 0644 "$src/docs/peerd.conf" "$stage/etc/peerd/peerd.conf"
install -m 0644 "$HERE/copyright" "$stage/usr/share/doc/peerd/copyright"
# A native package's changelog: this release's entry of CHANGELOG.md, or a line.
{
    echo "peerd ($version) unstable; urgency=medium"
    echo
    if [ -f "$src/CHANGELOG.md" ]; then
        awk -v v="$version" '$0 ~ "^## " v {on = 1; next} on && /^## / {exit} on && NF {print "  " $0}' "$src/CHANGELOG.md" \
            | sed 's/^  - /  * /; s/^  \([^ *]\)/  * \1/' \
            | awk '{ # lines of at most 80 columns (Debian policy), continued under their text
                    indent = match($0, /[^ *]/) - 1; lead = substr($0, 1, indent); pad = sprintf("%*s", indent, "")
                    text = substr($0, indent + 1); line = lead
                    n = split(text, words, " ")
                    for (i = 1; i <= n; i++) {
                        if (length(line) + length(words[i]) + 1 > 80 && length(line) > indent) { print line; line = pad }
                        line = (length(line) > indent || line != lead && line != pad) ? line " " words[i] : line words[i]
                    }
                    print line }' \
            | sed -n '1,400p'   # reads it all: head would close the pipe, and pipefail fail on awk's SIGPIPE
    fi
    echo "  * Release $version."
    echo
    echo " -- peerd maintainers <maintainers@peerd.invalid>  $(date -R -d @"${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n >"$stage/usr/share/doc/peerd/changelog.gz"
for script in postinst prerm postrm; do install -m 0755 "$HERE/$script" "$stage/DEBIAN/$script"; done
echo /etc/peerd/peerd.conf >"$stage/DEBIAN/conffiles"
# Dependencies by Debian package name: the C libraries the binaries and the
# runtime link (found through dpkg -S), avahi-daemon, and what the
# maintainer scripts run (init-system-helpers, for deb-systemd-helper, is essential).
. "$HERE/deb-lib.sh"
depends_field="$(deb_depends "$stage$runtime" "$stage/usr/bin/peerd" "$stage/usr/bin/peerctl" "$stage$runtime"/*.so)avahi-daemon, systemd"
deb_finish "$stage" "$HERE/control.in" "$depends_field" "$out/peerd_${version}_${arch}.deb"
