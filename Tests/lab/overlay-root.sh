#!/usr/bin/env bash
# Runs a command as PID 1 with a copy-on-write root: the machine's / under
# an overlay whose writes go to a tmpfs and vanish with the namespace. A
# package can then be installed, upgraded and purged (dpkg writes /usr,
# /etc and /var/lib/dpkg) without touching the machine. Each SHARED
# directory (the lab's, say) is bound in as it is, so files written there
# are seen outside.
#
# Usage (as root, in new PID and mount namespaces):
#   unshare --pid --fork --kill-child --mount --propagation private \
#       Tests/lab/overlay-root.sh WORK_DIR SHARED_DIR... -- CMD [ARGS...]
set -eu
work=$1; shift
shared=()
while [ "$1" != -- ]; do shared+=("$1"); shift; done
shift
mkdir -p "$work"
mount -t tmpfs -o mode=0755 tmpfs "$work"
mkdir -p "$work/upper" "$work/work" "$work/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$work/upper,workdir=$work/work" "$work/root"
for dir in /dev /sys "${shared[@]}"; do
    mkdir -p "$work/root$dir"
    mount --rbind "$dir" "$work/root$dir"
done
cd "$work/root"
mkdir -p .old-root
pivot_root . .old-root
cd /
# umount finds mounts through /proc; the command mounts its own after.
mount -t proc proc /proc
umount -l /.old-root
umount /proc
exec "$@"
