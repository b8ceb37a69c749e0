#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the guest test suite on one kernel:
#
#   test/vm.sh [--keep] KVER [VMLINUZ]
#
# 1. DKMS builds and installs stackid for KVER as a user's `dkms install`
#    would, against the headers setup unpacked (or STACKID_KDIR), into
#    DKMS trees under build/dkms/ (test/lib.sh: dkms_install); the host's
#    own DKMS, /usr/src and /lib/modules are never touched.
# 2. A busybox initramfs gets that module in a depmod-ed /lib/modules/KVER,
#    kmod's modprobe, the tools, test programs and test/guest/, and the
#    libraries they need, found from their ELF headers (build/elfdeps).
# 3. QEMU boots VMLINUZ (default: the Debian image unpacked by setup.sh),
#    -smp 2, TCG. Kernel console -> console.log, test output (TAP) ->
#    results.log, on separate serial ports.
# 4. The run fails on a failed or missing test result, a timeout, or any
#    splat or unexpected taint in the guest kernel log. A splat logged
#    before the guest's first test (before the module was ever loaded) is
#    reported as the kernel's own ("guest kernel broken before the module
#    loaded"), never as the module's.
#
# Prints TAP-ish lines and ends with "vm KVER: N passed, N failed".
# Logs stay in build/vm/KVER/ (kept on failure; --keep keeps them always).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"

keep=0
[ "${1:-}" = --keep ] && { keep=1; shift; }
kver=${1:?usage: vm.sh [--keep] KVER [VMLINUZ]}
vmlinuz=${2:-$STACKID_CACHE/kernels/$kver/boot/vmlinuz-$kver}
kdir=${STACKID_KDIR:-$(kernel_kdir "$kver")}	# headers, or a built tree
timeout_s=${STACKID_VM_TIMEOUT:-900}
append=${STACKID_APPEND:-}	# more kernel command line (debug: no5lvl)
version=$(stackid_version)
work=$top/build/vm/$kver
passed=0
failed=0

result() {	# result ok|fail NAME
	if [ "$1" = ok ]; then
		passed=$((passed + 1))
		echo "ok - [$kver] $2"
	else
		failed=$((failed + 1))
		echo "not ok - [$kver] $2"
	fi
}

finish() {
	echo "vm $kver: $passed passed, $failed failed"
	if [ $failed -gt 0 ]; then
		echo "vm $kver: guest console log kept in $work/console.log"
	elif [ $keep = 0 ]; then
		rm -rf "$work/root" "$work/initramfs.cpio.gz"
	fi
	exit $((failed > 0))
}

die() {
	result fail "$*"
	finish
}

[ -f "$vmlinuz" ] || die "no kernel image $vmlinuz (run test/setup.sh)"
[ -f "$kdir/Makefile" ] || die "no kernel headers in $kdir (run test/setup.sh)"
rm -rf "$work"
mkdir -p "$work"

# --- 1. DKMS build and install -------------------------------------------
t0=$(date +%s)
make -s -C "$top" user guest >"$work/make.log" 2>&1 || {
	tail -n 30 "$work/make.log"
	die "build tools and guest programs"
}
if ! dkms_install "$kver" "$kdir" >"$work/dkms.log" 2>&1; then
	tail -n 30 "$work/dkms.log"
	die "dkms build/install for $kver"
fi
ko=$(find "$top/build/dkms/install/$kver/updates/dkms" -name 'stackid.ko*' |
	head -n 1)
[ -n "$ko" ] || die "dkms installed no stackid.ko for $kver"
cp "$ko" "$work/"
ko=$work/$(basename "$ko")
result ok "dkms build + install ($(basename "$ko"))"
stage "[$kver] dkms" $t0

# --- 2. initramfs ----------------------------------------------------------
t0=$(date +%s)
root=$work/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib64,proc,sys,dev,tmp,etc,stackid}
cp /bin/busybox "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$top/test/guest/init" "$root/init"
# kmod's modprobe, as on a real system, with the libraries it needs.
cp /usr/bin/kmod "$root/usr/bin/kmod"
for t in modprobe rmmod insmod lsmod modinfo depmod; do
	ln -sf /usr/bin/kmod "$root/sbin/$t"
done
# The module where DKMS put it, plus the image's module metadata, depmod-ed
# in place so that modprobe finds it by name.
mdir=$root/lib/modules/$kver
mkdir -p "$mdir/updates/dkms"
cp "$ko" "$mdir/updates/dkms/"
meta=$(kernel_root "$kver")/lib/modules/$kver
[ -n "${STACKID_KDIR:-}" ] && meta=$kdir
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$meta/$f" ] && cp "$meta/$f" "$mdir/"
done
depmod -b "$root" "$kver" || die "depmod in initramfs"
# Tools and test programs (built by `make guest`), then their libraries.
cp -a "$top/build/guest/." "$root/stackid/" 2>/dev/null
cp "$top/test/guest/lib.sh" "$root/stackid/"
cp "$top/build/stackid" "$root/usr/bin/stackid"
mkdir -p "$root/stackid/tests"
cp "$top"/test/guest/tests/*.sh "$top"/test/guest/bench/*.sh \
	"$root/stackid/tests/"
guest_tests >"$root/stackid/tests/LIST"
echo "$version" >"$root/stackid/VERSION"
printf "root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n" >"$root/etc/passwd"
printf "root:x:0:\nnogroup:x:65534:\n" >"$root/etc/group"
copy_libs "$root" "$root/usr/bin/kmod" "$root/usr/bin/stackid" \
	$(find "$root/stackid" -type f -perm -u+x) >"$work/libs.log" 2>&1 || {
	cat "$work/libs.log"
	die "find the guest programs' libraries (build/elfdeps)"
}
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) \
	>"$work/initramfs.cpio.gz" || die "cpio"
stage "[$kver] initramfs ($(du -k "$work/initramfs.cpio.gz" | cut -f1) KiB)" $t0

# --- 3. boot ---------------------------------------------------------------
# One guest at a time on this machine: TCG guests take every core, and
# the suite's rate and timing checks assume they get them. Other runs
# (another checkout's, a bench) wait here.
exec 8>/run/lock/stackid-qemu.lock
flock 8
t0=$(date +%s)
timeout --foreground "$timeout_s" qemu-system-x86_64 \
	-machine q35 -cpu max -m 1024 -smp 2 \
	-kernel "$vmlinuz" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyS0 ignore_loglevel panic=-1 oops=panic panic_on_warn=0 nokaslr $append" \
	-display none -monitor none -no-reboot \
	-serial "file:$work/console.log" -serial "file:$work/results.log" \
	>"$work/qemu.log" 2>&1
qrc=$?
flock -u 8
stage "[$kver] boot + guest tests" $t0
[ $qrc = 124 ] && result fail "guest timed out after ${timeout_s}s"
[ $qrc != 0 ] && [ $qrc != 124 ] && {
	cat "$work/qemu.log"
	result fail "qemu exited with $qrc"
}

# --- 4. verdict ------------------------------------------------------------
res=$work/results.log
touch "$res"
tr -d '\r' <"$res" >"$res.tmp" && mv "$res.tmp" "$res"
grep '^#' "$res" | grep -v '^# \(begin\|end\) ' | head -n 400
while IFS= read -r t; do
	if ! grep -q "^# end $t " "$res"; then
		result fail "$t: no result (guest crashed or hung?)"
		continue
	fi
	sed -n "/^# begin $t\$/,/^# end $t /p" "$res" >"$work/one.log"
	n=0
	while IFS= read -r l; do
		case $l in
		"ok - "*)	result ok "$t: ${l#ok - }"; n=$((n + 1)) ;;
		"not ok - "*)	result fail "$t: ${l#not ok - }"; n=$((n + 1)) ;;
		"#   "*)	echo "$l" ;;
		esac
	done <"$work/one.log"
	[ $n -gt 0 ] || result fail "$t: printed no result"
done < <(guest_tests)
grep -q '^STACKID-GUEST-DONE' "$res" ||
	result fail "guest did not finish the suite"

# Kernel splats fail the run. The guest marks its log just before the
# first test: what came before is the kernel's own, before stackid was
# ever loaded, and is reported as such.
con=$work/console.log
tr -d '\r' <"$con" >"$con.tmp" && mv "$con.tmp" "$con"
mark=$(grep -n -F "$GUEST_MARK" "$con" | head -n 1 | cut -d: -f1)
if [ -z "$mark" ]; then
	result fail "guest reached its first test (no start mark in the kernel log)"
	mark=$(($(wc -l <"$con") + 1))
fi
early=$(head -n $((mark - 1)) "$con" | grep -E "$SPLAT_RE" | head -n 20)
if [ -n "$early" ]; then
	echo "$early" | sed 's/^/#   /'
	result fail "guest kernel broken before the module loaded (not stackid's doing)"
fi
splats=$(tail -n +"$mark" "$con" | grep -E "$SPLAT_RE" | head -n 20)
if [ -n "$splats" ]; then
	echo "$splats" | sed 's/^/#   /'
	result fail "guest kernel log is clean"
else
	result ok "guest kernel log is clean"
fi
# Taint: only the module's own out-of-tree (O, 4096) and unsigned (E,
# 8192) bits are allowed, and none at all before the first test.
taint0=$(sed -n 's/^# taint-before-tests //p' "$res")
if [ -n "$taint0" ] && [ "$taint0" != 0 ]; then
	result fail "guest kernel tainted before the module loaded ($taint0; not stackid's doing)"
fi
taint=$(sed -n 's/^# tainted //p' "$res")
if [ -n "$taint" ] && [ $(((taint & ~${taint0:-0}) & ~(4096 | 8192))) = 0 ]; then
	result ok "kernel taint only O/E ($taint)"
else
	result fail "kernel taint only O/E (got '${taint:-none}')"
fi
finish
