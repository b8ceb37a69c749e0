#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What `make check`, `make demo` and `make bench` need of the host,
# checked before anything runs: one clear line for each thing missing,
# then exit 1. Usage: test/require.sh WHAT [MB-OF-CACHE-DISK]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"
what=${1:-make check}
need_cache_mb=${2:-1024}
bad=0
no() {
	echo "$what: $*" >&2
	bad=1
}

[ "$(id -u)" = 0 ] ||
	no "needs root (DKMS in a private mount namespace, QEMU, the suite's device tests): run it as root"

# Disk: the build tree and the cache (kernels, the debug kernel tree).
free_mb() {	# DIR: free MiB on DIR's filesystem (DIR or its parent)
	local d=$1
	while [ ! -d "$d" ]; do d=$(dirname "$d"); done
	df -Pm "$d" | awk 'NR == 2 {print $4}'
}
b=$(free_mb "$top/build")
[ "${b:-0}" -ge 1024 ] ||
	no "needs 1024 MiB free for $top/build, has ${b:-0} MiB"
c=$(free_mb "$STACKID_CACHE")
[ "${c:-0}" -ge "$need_cache_mb" ] ||
	no "needs $need_cache_mb MiB free for $STACKID_CACHE, has ${c:-0} MiB"

# Debian packages, from test/packages.d/.
missing=""
for p in $(sed 's/#.*//' "$top"/test/packages.d/*.txt | tr -s ' \t' '\n\n' |
	awk 'NF && !seen[$0]++'); do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = \
		"install ok installed" ] || missing="$missing $p"
done
[ -z "$missing" ] ||
	no "missing Debian packages:$missing (run test/setup.sh as root)"

# The kernels setup fetched.
if [ ! -s "$STACKID_CACHE/kernels.resolved" ]; then
	no "no kernels in $STACKID_CACHE (run test/setup.sh as root)"
else
	while read -r name kver; do
		[ -f "$(kernel_root "$kver")/.stackid-complete" ] ||
			no "kernel line $name ($kver) is not unpacked in $STACKID_CACHE (run test/setup.sh)"
		rel=$(kernel_env "$kver" | cut -d' ' -f1)
		[ -n "$rel" ] ||
			no "kernel line $name ($kver) has no build environment (run test/setup.sh)"
		if [ -n "$rel" ] && [ "$rel" != "$HOST_RELEASE" ]; then
			"$top/test/chroot.sh" dir "$rel" >/dev/null ||
				no "kernel line $name ($kver) needs a $rel chroot (run test/setup.sh)"
		fi
	done < <(kernel_versions)
fi
[ -f "$STACKID_CACHE/kernel-doc/ioctl-number.rst" ] ||
	no "ioctl-number.rst is not in $STACKID_CACHE (run test/setup.sh)"
[ -s "$STACKID_CACHE/matrix.list" ] ||
	no "the build-only matrix's headers are not in $STACKID_CACHE (run test/setup.sh)"
[ -f "$STACKID_CACHE/checkpatch/scripts/checkpatch.pl" ] ||
	no "checkpatch.pl is not in $STACKID_CACHE (run test/setup.sh)"
exit $bad
