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
#    -smp 2, TCG, with tsc=reliable: the host's load skews a TCG guest's
#    TSC against its HPET, and the clocksource watchdog's switch to HPET
#    in the middle of a test is noise, not what the suite tests (and
#    twice coincided with an unexplained guest reset on trixie's kernel).
#    STACKID_QEMU=trixie boots it with Debian 13's QEMU 10.0 instead of
#    the host's 7.2 (test/qemu-trixie.sh), to tell the emulator's faults
#    from the kernel's; not what `make check` runs.
#    Kernel console -> console.log, test output (TAP) -> results.log,
#    the guest's heartbeat -> beat.log, on separate serial ports; a guest
#    whose heartbeat stops for STACKID_VM_HANG seconds (240) is ended by
#    test/hang-watch.sh, after it asks QEMU's monitor where its vCPUs are.
# 4. The run fails on a failed or missing test result, a timeout, a hang,
#    or any splat or unexpected taint in the guest kernel log (except a
#    single-step #DB warning that is QEMU 7.2's: qemu_db_strip,
#    test/lib.sh; printed, not failed). A splat logged
#    before the guest's first test (before the module was ever loaded) is
#    reported as the kernel's own ("guest kernel broken before the module
#    loaded"), never as the module's.
#
# Prints TAP-ish lines and ends with "vm KVER: N passed, N failed".
# Logs stay in build/vm/KVER/ (kept on failure; --keep keeps them always).
set -uo pipefail
# All of it in one compound command: bash reads it whole before running
# it, so editing this file while a run is in progress cannot break it.
{
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"

keep=0
[ "${1:-}" = --keep ] && { keep=1; shift; }
kver=${1:?usage: vm.sh [--keep] KVER [VMLINUZ]}
vmlinuz=${2:-$(kernel_image "$kver")}
kdir=${STACKID_KDIR:-$(kernel_kdir "$kver")}	# headers, or a built tree
timeout_s=${STACKID_VM_TIMEOUT:-900}
# a guest with no heartbeat for this long is hung (test/hang-watch.sh)
hang_s=${STACKID_VM_HANG:-240}
append=${STACKID_APPEND:-}	# more kernel command line (debug: no5lvl)
qemu=$(qemu_of "${STACKID_QEMU:-host}") ||
	{ echo "vm.sh: STACKID_QEMU is host or trixie" >&2; exit 1; }
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

# build_key: what a build of the module for this kernel depends on: the
# files the package installs (make dkms-src), the test build's hook, the
# DKMS calls (lib.sh) and the NMI check, the kernel's configuration and
# exports, the build environment with its compiler's exact version, and
# DKMS's version.
build_key() {
	local s=$work/keysrc env
	rm -rf "$s"
	make -s -C "$top" dkms-src DESTDIR="$s" >/dev/null || return 1
	env=$(kernel_env "$kver")
	{
		tree_files_hash "$s"
		(cd "$top" && sha256sum src/testhook.c test/lib.sh \
			test/sampling-symbols.sh)
		sha256sum "$kdir/.config" "$kdir/Module.symvers"
		echo "$kver $kdir $env"
		in_build_env "${env%% *}" -- "$(echo "$env" | cut -s -d' ' -f2 |
			grep . || echo gcc)" --version 2>&1 | head -n 1
		dpkg-query -W -f='${Version}\n' dkms
	} | sha256sum | cut -c1-16
	rm -rf "$s"
}

# check_sampling_symbols: test/sampling-symbols.sh on the test build's
# objects, as TAP results; fails if it does.
check_sampling_symbols() {
	local l rc=0
	while IFS= read -r l; do
		case $l in
		"ok - "*) result ok "${l#ok - }" ;;
		"not ok - "*) result fail "${l#not ok - }"; rc=1 ;;
		*) echo "$l" ;;
		esac
	done < <("$top/test/sampling-symbols.sh" "$work/testmod/src")
	return $rc
}

# store_build: keep the module DKMS built and the test build (module and
# the sampling path's objects) under the build key; the 3 newest keys of
# each kernel are kept. With them, for test/matrix.sh (which then need
# not build this kernel's package again): "SOURCES HEADERS RELEASE CC",
# the hash of the package's files DKMS built (as the matrix hashes its
# copy) and of the headers tree it built against (headers_hash).
store_build() {
	local t=$bcache.tmp.$$ o s=$work/keysrc
	rm -rf "$t" "$s"
	mkdir -p "$t/testmod/src"
	cp "$ko" "$ako" "$t/" && cp "$testko" "$t/testmod/" || { rm -rf "$t"; return; }
	if make -s -C "$top" dkms-src DESTDIR="$s" >/dev/null; then
		echo "$(tree_files_hash "$s" | sha256sum | cut -c1-16) $("$top/test/matrix.sh" --headers-hash "$kdir") $(kernel_env "$kver")" >"$t/built-from"
	fi
	rm -rf "$s"
	for o in "$work"/testmod/src/*.o; do
		cp "$o" "$t/testmod/src/" || { rm -rf "$t"; return; }
	done
	touch "$t/done"
	if [ -d "$bcache" ] || ! mv -T "$t" "$bcache" 2>/dev/null; then
		rm -rf "$t"
	fi
	ls -dt "$STACKID_CACHE/builds/$kver"/*/ 2>/dev/null | tail -n +4 |
		xargs -r rm -rf
}

[ -f "$vmlinuz" ] || die "no kernel image $vmlinuz (run test/setup.sh)"
[ -f "$kdir/Makefile" ] || die "no kernel headers in $kdir (run test/setup.sh)"
# Without symbolic links: a chroot build sees only the real paths it binds.
kdir=$(cd "$kdir" && pwd -P)
rm -rf "$work"
mkdir -p "$work"

# --- 1. DKMS build and install -------------------------------------------
t0=$(date +%s)
make -s -C "$top" user guest >"$work/make.log" 2>&1 || {
	tail -n 30 "$work/make.log"
	die "build tools and guest programs"
}
# The same sources, built before for this kernel in this environment,
# DKMS's build and the test build both passing: taken from the cache
# (build_key), as test/matrix.sh does. STACKID_BUILD_CACHE=0 builds.
bkey=$(build_key) || die "make dkms-src"
bcache=$STACKID_CACHE/builds/$kver/$bkey
testko=
if [ "${STACKID_BUILD_CACHE:-1}" != 0 ] && [ -f "$bcache/done" ]; then
	cp "$bcache"/stackid.ko* "$bcache"/stackid_anchor.ko* "$work/"
	ko=$(find "$work" -maxdepth 1 -name 'stackid.ko*' | head -n 1)
	[ -n "$ko" ] || die "the cached build $bcache has no stackid.ko"
	ako=$(find "$work" -maxdepth 1 -name 'stackid_anchor.ko*' | head -n 1)
	[ -n "$ako" ] || die "the cached build $bcache has no stackid_anchor.ko"
	result ok "dkms build + install ($(basename "$ko"); these sources, built before: $bkey)"
	mkdir -p "$work/testmod"
	cp -a "$bcache/testmod/." "$work/testmod/"
	testko=$work/testmod/stackid.ko
	result ok "test build of the module (src/testhook.c; built before: $bkey)"
	check_sampling_symbols
	stage "[$kver] builds (cached)" $t0
else
	if ! dkms_install "$kver" "$kdir" >"$work/dkms.log" 2>&1; then
		tail -n 30 "$work/dkms.log"
		die "dkms build/install for $kver"
	fi
	ko=$(find "$top/build/dkms/install/$kver/updates/dkms" -name 'stackid.ko*' |
		head -n 1)
	[ -n "$ko" ] || die "dkms installed no stackid.ko for $kver"
	ako=$(find "$top/build/dkms/install/$kver/updates/dkms" -name 'stackid_anchor.ko*' |
		head -n 1)
	[ -n "$ako" ] || die "dkms installed no stackid_anchor.ko for $kver"
	cp "$ko" "$ako" "$work/"
	ko=$work/$(basename "$ko")
	ako=$work/$(basename "$ako")
	result ok "dkms build + install ($(basename "$ko"))"
	stage "[$kver] dkms" $t0

	# The test build (NMI hook, fault injection: src/testhook.c), for
	# the guest tests that need it, never installed; and a check on its
	# objects that the sampling path calls nothing NMI context forbids.
	t0=$(date +%s)
	# Built where DKMS builds: in the kernel's release's chroot if it
	# is not the host's (test/lib.sh: kernel_env, in_build_env).
	if in_build_env "$(kernel_env "$kver" | cut -d' ' -f1)" \
		ro:"$top" ro:"$(cd "$kdir/../../.." && pwd)" "$work" -- \
		make -s -C "$top" module-test KDIR="$kdir" TESTMOD_DIR="$work/testmod" \
		>"$work/testmod.log" 2>&1; then
		testko=$work/testmod/stackid.ko
		result ok "test build of the module (src/testhook.c)"
		check_sampling_symbols && store_build
	else
		tail -n 20 "$work/testmod.log"
		result fail "test build of the module (src/testhook.c)"
	fi
	stage "[$kver] test build" $t0
fi

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
cp "$ko" "$ako" "$mdir/updates/dkms/"
meta=$(kernel_moddir "$kver")
[ -n "${STACKID_KDIR:-}" ] && meta=$kdir
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$meta/$f" ] && cp "$meta/$f" "$mdir/"
done
# Kernel modules some tests use (vhost_net for the user-worker test), with
# their dependencies, where this kernel's image has them.
add_kmod() {	# NAME: copy NAME's .ko and its dependencies' from the image
	local f d
	f=$(find "$meta" -name "$1.ko*" 2>/dev/null | head -n 1)
	[ -n "$f" ] || return 0
	d=$mdir/${f#"$meta"/}
	[ -e "$d" ] && return 0
	mkdir -p "$(dirname "$d")"
	cp "$f" "$d"
	for dep in $(modinfo -F depends "$f" | tr ',' ' '); do
		add_kmod "$dep"
	done
}
[ -z "${STACKID_KDIR:-}" ] && for m in $(sed 's/#.*//' "$top/test/guest/modules.txt"); do
	add_kmod "$m"
done
depmod -b "$root" "$kver" || die "depmod in initramfs"
# Tools and test programs (built by `make guest`), then their libraries.
cp -a "$top/build/guest/." "$root/stackid/" 2>/dev/null
cp "$top/test/guest/lib.sh" "$top/test/guest/int3-path.sh" "$root/stackid/" ||
	die "test/guest/lib.sh, int3-path.sh"
cp "$top/build/stackid" "$root/usr/bin/stackid"
# make bench measures against perf: Debian's linux-perf, as it is.
if [ -n "${STACKID_WITH_PERF:-}" ] && [ -x /usr/bin/perf ]; then
	cp /usr/bin/perf "$root/usr/bin/perf"
fi
# Debian's gzip and dd, for make demo: programs built as Debian builds
# its packages (no frame pointers, .eh_frame), where busybox-static's
# own code carries neither.
cp /bin/gzip /bin/dd "$root/usr/bin/" || die "Debian's gzip and dd"
# Debian's own python3 (issue 20: test/guest/tests/unwind.sh walks it
# without frame pointers): the interpreter, with its libraries, and of
# its standard library only what `python3 -S` needs to start (os.py,
# the prefix's landmark; the UTF-8 codec; lib-dynload, empty: 92 KiB,
# where the whole library, tests and caches left out, is 15 MiB); and
# where its _start and Py_BytesMain are, from its dynamic symbols.
py=$(readlink -f /usr/bin/python3 2>/dev/null)
if [ -x "$py" ] && [ -f "/usr/lib/${py##*/}/os.py" ]; then
	pv=${py##*/}
	cp "$py" "$root/usr/bin/$pv"
	ln -s "$pv" "$root/usr/bin/python3"
	mkdir -p "$root/usr/lib/$pv/encodings" "$root/usr/lib/$pv/lib-dynload"
	cp "/usr/lib/$pv/os.py" "$root/usr/lib/$pv/"
	for f in __init__ aliases utf_8; do
		cp "/usr/lib/$pv/encodings/$f.py" "$root/usr/lib/$pv/encodings/"
	done
	"$top/test/guest/expect.sh" "$py" Py_BytesMain "$py" _start \
		>"$root/stackid/expect/python3" || die "python3's symbols"
fi
if [ -n "$testko" ]; then
	mkdir -p "$root/stackid/testmod"
	cp "$testko" "$root/stackid/testmod/stackid.ko"
fi
mkdir -p "$root/stackid/tests"
cp "$top"/test/guest/tests/*.sh "$top"/test/guest/bench/*.sh \
	"$root/stackid/tests/"
guest_tests >"$root/stackid/tests/LIST"
echo "$version" >"$root/stackid/VERSION"
# make bench's repetitions (test/guest/bench/bench.sh)
[ -z "${STACKID_BENCH_REPS:-}" ] ||
	echo "$STACKID_BENCH_REPS" >"$root/stackid/bench-reps"
# make soak's length (test/guest/bench/soak.sh)
[ -z "${STACKID_SOAK_SECONDS:-}" ] ||
	echo "$STACKID_SOAK_SECONDS" >"$root/stackid/soak-seconds"
printf "root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n" >"$root/etc/passwd"
printf "root:x:0:\nnogroup:x:65534:\n" >"$root/etc/group"
copy_libs "$root" "$root/usr/bin/kmod" "$root/usr/bin/stackid" \
	"$root/usr/bin/gzip" "$root/usr/bin/dd" \
	$(ls "$root/usr/bin/perf" "$root"/usr/bin/python3.* 2>/dev/null) \
	$(find "$root/stackid" -type f -perm -u+x) >"$work/libs.log" 2>&1 || {
	cat "$work/libs.log"
	die "find the guest programs' libraries (build/elfdeps)"
}
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) \
	>"$work/initramfs.cpio.gz" || die "cpio"
stage "[$kver] initramfs ($(du -k "$work/initramfs.cpio.gz" | cut -f1) KiB)" $t0
if [ "$qemu" != qemu-system-x86_64 ]; then	# installs it on first use
	qv=$("$qemu" --version | head -n 1) && [ -n "$qv" ] || die "no QEMU: $qemu"
	echo "# [$kver] $qv"
fi

# --- 3. boot ---------------------------------------------------------------
# One guest at a time on this machine: TCG guests take every core, and
# the suite's rate and timing checks assume they get them. Other runs
# (another checkout's, a bench) wait here. Guests with no rate or timing
# check (make soak's, STACKID_QEMU_SHARED=1) take the lock shared: they
# run side by side, and never beside a suite's guest.
exec 8>/run/lock/stackid-qemu.lock
t0=$(date +%s)
if [ "${STACKID_QEMU_SHARED:-}" = 1 ]; then
	flock -s 8
else
	flock 8
fi
[ $(($(date +%s) - t0)) -gt 1 ] && stage "[$kver] waiting for another guest" $t0
t0=$(date +%s)
# A guest whose kernel breaks before its first test, before the module
# was ever loaded (sid's 7.2 once took an int3 oops in its own text
# patching 1.4 s into boot under TCG), is the kernel's or QEMU's fault,
# not stackid's: it is booted once more, and said so. So is a guest
# whose kernel took an int3 oops in its own code at any time, with
# nothing of stackid's in the oops (int3_not_ours, test/lib.sh).
# So is a guest that hung in its own int3 path (hang_not_ours,
# test/lib.sh): test/hang-watch.sh ends a guest whose heartbeat stopped,
# after asking QEMU where its vCPUs are.
# A second such boot is judged as it is (section 4 fails it).
for boot in 1 2; do
	# The monitor is a pipe: test/nmi-sender.sh sends `nmi` through it
	# while the guest's NMI test runs, test/hang-watch.sh asks it where
	# a hung guest's vCPUs are; what it answers goes to mon.log.
	watch_prepare "$work"
	: >"$work/results.log"
	timeout "$timeout_s" "$qemu" \
		-machine q35 -cpu max -m 1024 -smp 2 \
		-kernel "$vmlinuz" -initrd "$work/initramfs.cpio.gz" \
		-append "console=ttyS0 ignore_loglevel panic=-1 oops=panic panic_on_warn=0 nokaslr tsc=reliable $append" \
		-display none -no-reboot -d cpu_reset,guest_errors -D "$work/qemu-d.log" \
		-chardev "pipe,id=mon0,path=$work/mon" -mon chardev=mon0,mode=readline \
		-serial "file:$work/console.log" -serial "file:$work/results.log" \
		-serial "file:$work/beat.log" \
		>"$work/qemu.log" 2>&1 </dev/null &
	qpid=$!
	"$top/test/nmi-sender.sh" "$work/mon" "$work/results.log" $qpid \
		>"$work/nmi-sender.log" 2>&1 &
	spid=$!
	watch_start "$work" $qpid "$hang_s"
	wait $qpid
	qrc=$?
	wait $spid
	watch_end
	[ $boot = 2 ] && break
	if [ -f "$work/hang.txt" ] &&
		hang_not_ours "$work/hang.txt" "$work/console.log"; then
		echo "# boot 1: the guest hung in its kernel's own int3 path (TCG: a breakpoint the kernel had already rewritten, run again and again), nothing of stackid's in it; running the suite again:"
		hang_show "$work/hang.txt"
		mv "$work/console.log" "$work/console.boot1.log"
		mv "$work/hang.txt" "$work/hang.boot1.txt"
		continue
	fi
	if int3_not_ours "$work/console.log"; then
		echo "# boot 1: the guest kernel took an int3 in its own text patching (TCG), nothing of stackid's in it; running the suite again:"
		int3_show "$work/console.log"
		mv "$work/console.log" "$work/console.boot1.log"
		continue
	fi
	grep -q -F "$GUEST_MARK" "$work/console.log" && break
	# not at its first test: broken (a splat), or reset (TCG: qemu
	# exits on a reset, -no-reboot) before the module was ever loaded
	tr -d '\r' <"$work/console.log" | grep -E "$SPLAT_RE" >"$work/early.txt"
	if [ -s "$work/early.txt" ]; then
		echo "# boot 1: the guest kernel broke before its first test, before the module loaded; booting again:"
		head -n 5 "$work/early.txt" | sed 's/^/#   /'
	else
		echo "# boot 1: the guest stopped before its first test, before the module loaded, with no kernel message (qemu exit $qrc: a reset, or a hang); booting again:"
		tr -d '\r' <"$work/console.log" | tail -n 2 | sed 's/^/#   /'
	fi
	mv "$work/console.log" "$work/console.boot1.log"
	[ -f "$work/qemu-d.log" ] && mv "$work/qemu-d.log" "$work/qemu-d.boot1.log"
done
flock -u 8
stage "[$kver] boot + guest tests" $t0
sed 's/^/# /' "$work/nmi-sender.log"
[ $qrc = 124 ] && result fail "guest timed out after ${timeout_s}s"
if [ -f "$work/hang.txt" ]; then
	hang_show "$work/hang.txt"
	result fail "guest hung: $(head -n 1 "$work/hang.txt"), ended (test/hang-watch.sh)"
fi
[ $qrc != 0 ] && [ $qrc != 124 ] && {
	cat "$work/qemu.log"
	result fail "qemu exited with $qrc"
}

# --- 4. verdict ------------------------------------------------------------
res=$work/results.log
touch "$res"
tr -d '\r' <"$res" >"$res.tmp" && mv "$res.tmp" "$res"
grep '^#' "$res" | grep -v '^# \(begin\|end\) ' | head -n 400
# how long each test took in the guest (its seconds, from /proc/uptime)
echo "# guest seconds per test: $(sed -n 's/^# end \([^ ]*\)\.sh rc=[0-9]* \([0-9]*\)s$/\1 \2/p' "$res" | paste -sd ' ')"
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
	# Files the test sent back (guest lib.sh: to_host), checked here
	# by test/guest/host/$t with the host's tools, from the files alone.
	names=$(sed -n 's/^@host \([A-Za-z0-9_.-]*\) .*/\1/p' "$work/one.log" |
		sort -u)
	[ -n "$names" ] || continue
	rm -rf "$work/host/$t"
	mkdir -p "$work/host/$t"
	for f in $names; do
		sed -n "s/^@host $f //p" "$work/one.log" | base64 -d |
			gunzip >"$work/host/$t/$f" ||
			result fail "$t: $f back from the guest"
	done
	[ -x "$top/test/guest/host/$t" ] || continue
	while IFS= read -r l; do
		case $l in
		"ok - "*)	result ok "$t (host): ${l#ok - }" ;;
		"not ok - "*)	result fail "$t (host): ${l#not ok - }" ;;
		"#"*)		echo "$l" ;;
		esac
	done < <("$top/test/guest/host/$t" "$work/host/$t" 2>&1 ||
		echo "not ok - test/guest/host/$t exited with $?")
done < <(guest_tests)
if ! grep -q '^STACKID-GUEST-DONE' "$res"; then
	result fail "guest did not finish the suite"
	# a reset without a word on the console: QEMU's log of the CPU
	# state at each reset (the last one is the guest's) says where; a
	# hung guest (above) was not reset
	if [ ! -f "$work/hang.txt" ]; then
		echo "# guest CPU state at its last reset (qemu -d cpu_reset):"
		awk '/^CPU Reset/ { n = 0 } { b[n++] = $0 }
			END { for (i = 0; i < n && i < 12; i++) print "#   " b[i] }' \
			"$work/qemu-d.log"
	fi
fi

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
# A single-step #DB warning with flags no CPU can hold, nothing of
# stackid's in it, is QEMU 7.2's (qemu_db_strip, test/lib.sh): said, and
# not held against the run; its W taint with it. Only under a QEMU that
# has that fault (qemu_db_judge).
: >"$work/qemu-db-early.txt"
: >"$work/qemu-db.txt"
early=$(head -n $((mark - 1)) "$con" |
	qemu_db_judge "$qemu" "$work/qemu-db-early.txt" |
	grep -E "$SPLAT_RE" | head -n 20)
if [ -n "$early" ]; then
	echo "$early" | sed 's/^/#   /'
	result fail "guest kernel broken before the module loaded (not stackid's doing)"
fi
splats=$(tail -n +"$mark" "$con" | qemu_db_judge "$qemu" "$work/qemu-db.txt" |
	grep -E "$SPLAT_RE" | head -n 20)
qemu_db0=$(wc -l <"$work/qemu-db-early.txt")
qemu_db=$((qemu_db0 + $(wc -l <"$work/qemu-db.txt")))
if [ "$qemu_db" -gt 0 ]; then
	echo "# the guest kernel's log has $qemu_db such warning(s), each a $QEMU_DB_SAID:"
	cat "$work/qemu-db-early.txt" "$work/qemu-db.txt" | sed 's/^/#   /'
fi
if [ -n "$splats" ]; then
	echo "$splats" | sed 's/^/#   /'
	result fail "guest kernel log is clean"
else
	what="guest kernel log is clean"
	[ "$qemu_db" -gt 0 ] && what+=" but for QEMU's #DB ($qemu_db, above)"
	result ok "$what"
fi
# Taint: only the module's own out-of-tree (O, 4096) and unsigned (E,
# 8192) bits are allowed, and none at all before the first test; the
# warning bit (W, 512) too when QEMU's #DB above is the only warning.
# (not when the log lost messages: a warning it lost is not shown QEMU's)
w_ok=0
[ "$qemu_db" -gt 0 ] && [ -z "$splats" ] && [ -z "$early" ] &&
	! grep -q 'messages dropped' "$con" && w_ok=512
w_ok0=0
[ "$qemu_db0" -gt 0 ] && w_ok0=$w_ok
taint0=$(sed -n 's/^# taint-before-tests //p' "$res")
if [ -n "$taint0" ] && [ $((taint0 & ~w_ok0)) != 0 ]; then
	result fail "guest kernel tainted before the module loaded ($taint0; not stackid's doing)"
fi
taint=$(sed -n 's/^# tainted //p' "$res")
allowed=$((4096 | 8192 | w_ok))
if [ -n "$taint" ] && [ $(((taint & ~${taint0:-0}) & ~allowed)) = 0 ]; then
	result ok "kernel taint only O/E$([ $w_ok = 0 ] || echo ", W of QEMU's #DB") ($taint)"
else
	result fail "kernel taint only O/E (got '${taint:-none}')"
fi
finish
}
