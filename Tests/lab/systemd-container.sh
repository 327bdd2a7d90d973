#!/usr/bin/env bash
# Boots systemd as PID 1 of a throwaway container and starts one unit, so
# peerd's real units (hardening, system call filter, socket activation,
# watchdog) run under a real service manager. systemd is not PID 1 on the
# machines the tests run on, so the tests make one.
#
# Usage (from a lab host's network namespace, as root):
#   unshare --pid --fork --kill-child --mount --propagation private \
#       Tests/lab/systemd-container.sh UNIT_DIR UNIT PASSWD GROUP CONSOLE [BIN_DIR]
#
# UNIT_DIR holds every unit the container may see (SYSTEMD_UNIT_PATH without
# a trailing ':' hides the machine's own units). PASSWD and GROUP replace
# /etc/passwd and /etc/group inside (for the service's user; "-" keeps them). /run and
# /var/lib are private tmpfs mounts, so nothing leaks onto the machine.
# CONSOLE (a file) stands in for /dev/console. BIN_DIR's peerd and peerctl
# are copied to /run/lab-bin, where a unit's sandbox sees them wherever the
# build lives (PrivateTmp hides /tmp, ProtectHome hides /home). Drive the manager from
# outside with `nsenter -t PID -m -p -n systemctl ...`; it ends with its PID
# namespace when killed (SIGKILL: PID 1 ignores SIGTERM).
set -eu
units=$1 unit=$2 passwd=$3 group=$4 console=$5 bin=${6:-}
[ "$$" = 1 ] || { echo "systemd-container.sh: run me as PID 1 (unshare --pid --fork)" >&2; exit 2; }
mount -t proc proc /proc
mount -t tmpfs -o mode=0755 tmpfs /run
# A throwaway root (passwd "-": Tests/lab/overlay-root.sh) keeps its
# /var/lib, where dpkg keeps what is installed.
[ "$passwd" = - ] || mount -t tmpfs -o mode=0755 tmpfs /var/lib
if [ -n "$bin" ]; then mkdir -p /run/lab-bin && cp "$bin/peerd" "$bin/peerctl" /run/lab-bin/; fi
mkdir -p /var/lib/dbus && cp /etc/machine-id /var/lib/dbus/machine-id
# "-" keeps the root's own files (a package's maintainer scripts add the
# user there; Tests/lab/overlay-root.sh makes that root a throwaway copy).
[ "$passwd" = - ] || mount --bind "$passwd" /etc/passwd
[ "$group" = - ] || mount --bind "$group" /etc/group
touch "$console"
mount --bind "$console" /dev/console
exec env -i container=peerd-lab SYSTEMD_UNIT_PATH="$units" PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    /lib/systemd/systemd --system --unit="$unit" --log-target=console --log-level=info --show-status=no
