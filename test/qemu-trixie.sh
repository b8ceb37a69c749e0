#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qemu-system-x86_64 of Debian 13 (QEMU 10.0), for a run that asks which
# of the guest kernels' faults are the emulator's: Debian 12's 7.2 lacks
# upstream TCG fixes that 10.0 has (test/tcg-race.sh). Takes
# qemu-system-x86_64's arguments and becomes that process (exec: the
# caller's pid, timeout and signals reach QEMU itself).
#
# The binary is installed once into a copy of the cached trixie chroot
# ($STACKID_CACHE/tcg-race/qemu-trixie, shared with test/tcg-race.sh) and
# run from there through the copy's own dynamic loader and libraries, not
# chrooted, so every path the caller gives is the host's. Its firmware
# comes first from the copy (-L). The host's apt configuration is never
# touched.
#   test/qemu-trixie.sh --install   install if needed, print the copy's path
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"
d=$STACKID_CACHE/tcg-race/qemu-trixie
ok=$d.installed	# written once the install finished
if [ ! -e "$ok" ]; then
	mkdir -p "$STACKID_CACHE/tcg-race"
	(
		cd "$top" || exit 1
		flock 9
		[ -e "$ok" ] && exit 0
		test/chroot.sh copy trixie "$d" >/dev/null || exit 1
		cp -L /etc/resolv.conf "$d/etc/resolv.conf" 2>/dev/null || true
		test/chroot.sh run "$d" -- env DEBIAN_FRONTEND=noninteractive sh -c \
			'apt-get -qq update && apt-get -qq -y -o APT::Install-Recommends=false install qemu-system-x86' \
			>"$d.install.log" 2>&1 &&
			[ -x "$d/usr/bin/qemu-system-x86_64" ] && : >"$ok"
	) 9>"$STACKID_CACHE/tcg-race/lock" || {
		echo "qemu-trixie: cannot install Debian 13's QEMU in $d (log: $d.install.log)" >&2
		exit 1
	}
fi
if [ "${1:-}" = --install ]; then
	echo "$d"
	exit 0
fi
lib=$d/usr/lib/x86_64-linux-gnu
export QEMU_MODULE_DIR=$lib/qemu
exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib" \
	"$d/usr/bin/qemu-system-x86_64" \
	-L "$d/usr/share/qemu" -L "$d/usr/share/seabios" -L "$d/usr/lib/ipxe/qemu" "$@"
