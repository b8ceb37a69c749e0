#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dkms.conf says which kernels stackid builds for, and DKMS acts on it:
# autoinstall (what a kernel package's postinst runs) skips any other
# kernel with exit 0, an explicit build for it stops with DKMS's exit 77,
# and autoinstall for a supported kernel (one setup unpacked) builds and
# installs. DKMS runs with trees of the test's own (test/lib.sh:
# dkms_private), never the host's. TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/test/lib.sh"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }

ver=$(stackid_version)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

# What dkms.conf decides, for kernel versions alone.
wants() {	# KVER: does dkms.conf ask for autoinstall on KVER?
	(kernelver=$1 kernel_source_dir=/nonexistent; . "$top/dkms.conf";
	 [ "$AUTOINSTALL" = yes ])
}
refuses() { ! wants "$1"; }
for k in $(printf '%s\n' 5.10.0-46-amd64 5.10.0-46-rt-amd64 \
	6.1.0-0.deb11.52-cloud-amd64 5.15.0-1-amd64 6.0.0-1-amd64 \
	6.1.0-57-amd64 6.12.117+deb12-amd64 6.12.117+deb12-rt-amd64 \
	6.12.118+deb13-amd64 6.12.117-stackid-debug 7.2.13+deb14-amd64 \
	$(kernel_versions | cut -d' ' -f2) | sort -u); do
	check "dkms.conf: autoinstall wanted for $k" wants "$k"
done
for k in 5.4.0-99-amd64 5.9.0-1-amd64 5.1.0-1-amd64 4.19.0-27-amd64 \
	3.16.0-4-amd64 2.6.32-5-amd64; do
	check "dkms.conf: no autoinstall for $k" refuses "$k"
done

mkdir -p "$d/src/stackid-$ver"
cp -r "$top/dkms.conf" "$top/Kbuild" "$top/Makefile" "$top/src" \
	"$top/include" "$d/src/stackid-$ver/"
dk() { dkms_private "$d/dkms" -- "$@"; }
mkdir -p "$d/dkms/src"
mv "$d/src/stackid-$ver" "$d/dkms/src/"
dk add "stackid/$ver" >/dev/null 2>&1
check "dkms add (private trees)" test -L "$d/dkms/tree/stackid/$ver/source"

# An old kernel: headers that look real enough for DKMS.
old=5.4.0-99-amd64
mkdir -p "$d/old/include" "$d/dkms/install/$old"
printf 'CONFIG_PERF_EVENTS=y\nCONFIG_MODULE_UNLOAD=y\n' >"$d/old/.config"
dk autoinstall -k "$old" --kernelsourcedir "$d/old" --no-depmod >"$d/log" 2>&1
rc=$?
check "autoinstall for $old: skipped cleanly (exit $rc)" test $rc = 0
check "autoinstall for $old: nothing built" \
	test ! -e "$d/dkms/tree/stackid/$ver/$old"
dk build "stackid/$ver" -k "$old" --kernelsourcedir "$d/old" >"$d/log" 2>&1
rc=$?
check "dkms build for $old: refused with 77 (got $rc)" test $rc = 77
check "dkms build for $old: says BUILD_EXCLUSIVE" grep -q BUILD_EXCLUSIVE "$d/log"

# A new enough kernel without perf events.
noperf=6.1.0-99-noperf
mkdir -p "$d/noperf/include" "$d/dkms/install/$noperf"
printf '# CONFIG_PERF_EVENTS is not set\nCONFIG_MODULE_UNLOAD=y\n' >"$d/noperf/.config"
dk autoinstall -k "$noperf" --kernelsourcedir "$d/noperf" --no-depmod >"$d/log" 2>&1
rc=$?
check "autoinstall for a kernel without CONFIG_PERF_EVENTS: skipped (exit $rc)" test $rc = 0

# The same decisions by the DKMS of every other release a kernel line
# comes from (bullseye's 2.8, trixie's and sid's 3.2), in its chroot, as
# the VM suite runs it: private trees, conditional AUTOINSTALL.
for rel in $(kernel_lines | awk -v h="$HOST_RELEASE" '$2 != h {print $2}' | sort -u); do
	if ! "$top/test/chroot.sh" dir "$rel" >/dev/null; then
		nok "DKMS of $rel: no $rel chroot (run test/setup.sh)"
		continue
	fi
	dv=$("$top/test/chroot.sh" run "$rel" -- dkms --version 2>&1 | tail -n 1)
	DKMS_RELEASE=$rel dk autoinstall -k "$old" --kernelsourcedir "$d/old" \
		--no-depmod >"$d/log" 2>&1
	rc=$?
	check "$rel's $dv: autoinstall for $old skipped cleanly (exit $rc)" \
		test $rc = 0 -a ! -e "$d/dkms/tree/stackid/$ver/$old"
	DKMS_RELEASE=$rel dk build "stackid/$ver" -k "$old" \
		--kernelsourcedir "$d/old" --no-prepare-kernel >"$d/log" 2>&1
	rc=$?
	check "$rel's $dv: dkms build for $old refused (exit $rc)" \
		test $rc != 0 -a ! -e "$d/dkms/tree/stackid/$ver/$old/x86_64/module"
	check "$rel's $dv: says BUILD_EXCLUSIVE" grep -q BUILD_EXCLUSIVE "$d/log"
	[ $rc != 0 ] || tail -n 5 "$d/log" | sed 's/^/# /'
done

# A supported kernel: autoinstall builds and installs.
k=$(kernel_versions | head -n 1 | cut -d' ' -f2)
if [ -z "$k" ] || [ ! -f "$(kernel_kdir "$k")/Makefile" ]; then
	nok "a kernel unpacked by test/setup.sh to build for"
else
	mkdir -p "$d/dkms/install/$k"
	dkms_private "$d/dkms" "$(kernel_kdir "$k")" -- autoinstall -k "$k" \
		--kernelsourcedir "$(kernel_kdir "$k")" --no-depmod >"$d/log" 2>&1
	rc=$?
	check "autoinstall for $k: exit 0 (got $rc)" test $rc = 0
	ko=$(find "$d/dkms/install/$k" -name 'stackid.ko*')
	check "autoinstall for $k: installed ${ko#$d/dkms/install/}" test -n "$ko"
	ako=$(find "$d/dkms/install/$k" -name 'stackid_anchor.ko*')
	check "autoinstall for $k: installed ${ako#$d/dkms/install/}" test -n "$ako"
	[ $rc = 0 ] && [ -n "$ko" ] || tail -n 20 "$d/log" | sed 's/^/# /'
	# As on every system after the package's postinst: installed for
	# one kernel, autoinstall for one it cannot support must still skip
	# (DKMS then reads dkms.conf with $kernelver the installed kernel's).
	dk autoinstall -k "$old" --kernelsourcedir "$d/old" --no-depmod >"$d/log" 2>&1
	rc=$?
	check "installed for $k, autoinstall for $old: skipped cleanly (exit $rc)" \
		test $rc = 0 -a ! -e "$d/dkms/tree/stackid/$ver/$old"
	[ $rc = 0 ] || tail -n 5 "$d/log" | sed 's/^/# /'
	dk autoinstall -k "$noperf" --kernelsourcedir "$d/noperf" --no-depmod >"$d/log" 2>&1
	rc=$?
	check "installed for $k, autoinstall for a kernel without CONFIG_PERF_EVENTS: skipped (exit $rc)" \
		test $rc = 0 -a ! -e "$d/dkms/tree/stackid/$ver/$noperf"
fi
echo "1..$n"
