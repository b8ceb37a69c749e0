#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: every test stackid has.
#   0. the host requirements (test/require.sh): one line each if missing;
#   1. host unit tests of the user-space and pure code;
#   2. the guest suite (test/vm.sh) on every kernel line of
#      test/kernels.conf, with the module built and installed by DKMS;
#   3. the same suite on the KASAN + lockdep debug kernel
#      (test/debug-kernel.sh, test/DEBUG-KERNEL.md), line "debug";
#   4. a real Debian 12 system (test/system.sh, line "system"): the
#      packages of `make deb` installed with apt in a guest booted with
#      systemd, DKMS building in it, the service, reboots, a second
#      kernel, purge; in the background beside 1 to 3 (nice 5, or 10
#      while the debug kernel is to be built; a guest of its own),
#      waited for after them;
#   5. the build-only matrix (test/matrix.sh): every amd64 headers package
#      of the releases test/kernels.conf names, built or covered by the
#      package built for its group, line "matrix";
#      the debug kernel's build and the matrix start first, nice 19, in
#      the background (below), and are waited for;
#   6. that none of it touched the host's DKMS tree, /usr/src or
#      /lib/modules.
# KLINES="6.12 debug" runs only those kernel lines (default: all, and
# the matrix).
# Prints how long each stage took and ends with "N passed, N failed".
set -uo pipefail
# All of it in one compound command: bash reads it whole before running
# it, so editing this file while a run is in progress cannot break it.
{
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"
cd "$top"

passed=0
failed=0
t_all=$(date +%s)
all_lines="$(kernel_versions | cut -d' ' -f1 | xargs) debug system matrix"
klines=${KLINES:-$all_lines}

# A debug kernel not built yet needs about 2 GB of cache disk.
need_mb=512
dk=$(STACKID_CACHE=$STACKID_CACHE test/debug-kernel.sh --print-dir --cached 2>/dev/null) ||
	need_mb=3072
case " $klines " in *" debug "*) ;; *) need_mb=512 ;; esac
test/require.sh "make check" "$need_mb" || {
	echo "0 passed, 1 failed"
	exit 1
}
for l in $klines; do
	case " $all_lines " in
	*" $l "*) ;;
	*)	echo "make check: no kernel line '$l' (lines: $all_lines)" >&2
		echo "0 passed, 1 failed"
		exit 1 ;;
	esac
done

# count LOG: add a TAP log's ok / not ok lines to the totals, and
# remember the log for the recap at the end.
counted=
count() {
	local p f
	p=$(grep -c '^ok ' "$1")
	f=$(grep -c '^not ok ' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
	counted+=" $1"
}

# recap: each log's totals on one line, then its first failures, last,
# just before the verdict: whoever sees only the end of the output (a CI
# page) sees what failed and where.
recap() {
	local l f t= n=0
	for l in $counted; do
		t+=" $(basename "$l" .log) $(grep -c '^ok ' "$l")/$(grep -c '^not ok ' "$l"),"
	done
	echo "# recap (passed/failed):${t%,}"
	for l in $counted; do
		while IFS= read -r f; do
			n=$((n + 1))
			[ $n -le 10 ] && echo "#   $(basename "$l" .log): $f" | cut -c 1-200
		done < <(grep '^not ok ' "$l")
	done
	[ $n -gt 10 ] && echo "#   and $((n - 10)) more failures (build/*.log)"
	return 0
}

# What of stackid the host's own DKMS, /usr/src and /lib/modules hold.
host_state() {
	find /var/lib/dkms /usr/src /lib/modules -maxdepth 4 -name '*stackid*' \
		2>/dev/null | sort
}
host_before=$(host_state)

mkdir -p build
# What the later stages need and the cache may not hold yet: the debug
# kernel (about 20 CPU-minutes) and the matrix's builds (about 30).
# Started now at the lowest CPU and I/O priority, they use what the
# guests leave idle, and give way to them everywhere else. A stage that
# needs one waits for it: test/debug-kernel.sh takes the same lock, and
# builds only what is still missing. Warm, each finds its cache and
# ends at once.
# Each in a process group of its own, which Ctrl-C (or a TERM) of this
# script ends: a non-interactive shell's background jobs ignore SIGINT,
# and the builds would run on for an hour after the suite was stopped.
# niced N CMD...: CMD in a session of its own, at nice N. A new session
# is also a new scheduling group where the kernel groups tasks by
# session (CONFIG_SCHED_AUTOGROUP: Debian's kernels, this host's), and
# such a group gets an equal share of the CPU beside the suite's,
# whatever its tasks' nice: the group's own nice (/proc/self/autogroup)
# is what puts it below the suite. (Without it, the nice-19 builds and
# a nice-10 system guest each took as much CPU as the suite's guests
# and tests.)
# Only as an asynchronous command (CMD &): it replaces the shell it runs
# in, so that $! is the new session's leader, whose group stop_bg ends.
niced() {
	exec setsid -w bash -c 'echo "$1" >/proc/self/autogroup 2>/dev/null
		n=$1
		shift
		exec nice -n "$n" "$@"' niced "$@"
}
bg_pids=
bg() {	# LOG CMD...: run CMD niced in the background, output to LOG
	local log=$1
	shift
	niced 19 ionice -c 2 -n 7 "$@" >"$log" 2>&1 &
	bg_pids="$bg_pids $!"
}
stop_bg() {
	local p
	for p in $bg_pids; do
		kill -TERM -- "-$p" 2>/dev/null
	done
}
trap 'stop_bg; exit 130' INT
trap 'stop_bg; exit 143' TERM
# The debug kernel and the matrix run one after the other in one chain:
# the debug line needs its kernel right after the lines, the matrix is
# needed only at the end (sharing the idle quarter, the debug build was
# a third done when the lines ended, and the foreground waited 14 min).
# The debug stage asks test/debug-kernel.sh for the kernel, which waits
# on the chain's lock while the chain builds it. (The matrix copies the
# tree when it starts, as each line does: after the debug kernel.)
chain_pid= want_debug= want_matrix=
case " $klines " in *" debug "*) want_debug=1 ;; esac
case " $klines " in *" matrix "*) want_matrix=1 ;; esac
if [ -n "$want_debug$want_matrix" ]; then
	[ -n "$want_matrix" ] &&
		echo "# build-only matrix: $(wc -l <"$STACKID_CACHE/matrix.list" 2>/dev/null || echo 0) headers packages, in the background${want_debug:+ after the debug kernel}"
	t_chain=$(date +%s)
	rm -f build/matrix-start
	bg build/matrix-all.log bash -c '
		[ -z "$1" ] || test/debug-kernel.sh --print-dir \
			>build/debug-kernel.log 2>&1
		date +%s >build/matrix-start
		[ -z "$2" ] || exec test/matrix.sh' chain "$want_debug" \
		"$want_matrix"
	chain_pid=$!
fi

t0=$(date +%s)
if ! make -s -j2 user guest >build/make.log 2>&1; then
	cat build/make.log
	echo "not ok - build user-space tools and guest programs"
	failed=$((failed + 1))
fi
stage "build tools" $t0

# The Debian system (test/system.sh: make deb, then three boots of a
# guest that installs, builds and purges; about 14 minutes alone, most
# of it DKMS and depmod under TCG, no check of its timed) runs beside
# the host unit tests and the kernel lines, in a guest of its own
# (test/system.sh's lock, not test/vm.sh's), at nice 5: the lines'
# guests keep most of their CPU (about three quarters of it when both
# want it all), and the system takes that and the quarter of the host
# that TCG leaves idle. Alone after the lines, it added 14 minutes to
# every run; at nice 10 beside them (about a tenth when both want it
# all), 6 of its minutes were still left, alone, after the debug line
# (a warm run: 41.0 minutes at nice 10, 37.1 at nice 5).
# But at nice 10 when the debug kernel is still to be built (a cold
# run): the system then also takes the share the chain's build (nice
# 19) would get, the build is left for after the lines, and the debug
# line and the matrix wait for it (cold: 59.5 minutes at nice 10; 61.5
# at nice 5 with less work, the build waited for 8.3 minutes and the
# matrix, after it, 5.3). A line's guest spins for as long as its tests
# take, so slowing the lines costs CPU, not only their time.
# Its output is printed when it is waited for, after the debug line.
# The background chain's builds (nice 19) give way to it.
sys_pid= sys_nice=5
case " $klines " in *" debug "*) [ -n "$dk" ] || sys_nice=10 ;; esac
case " $klines " in
*" system "*)
	echo "# Debian 12 system: make deb, then test/system.sh, in the background from now, at nice $sys_nice (build/system.log)"
	date +%s >build/system-start
	niced "$sys_nice" bash -c '
		if make -s deb >build/deb.log 2>&1; then
			exec test/system.sh build/deb
		fi
		tail -n 30 build/deb.log
		echo "not ok - make deb"' >build/system.log 2>&1 &
	sys_pid=$!
	bg_pids="$bg_pids $sys_pid"
	;;
esac

t0=$(date +%s)
# Beside them, the test of their runner (test/run-unit.sh; mostly
# sleeping, about a minute).
test/unit/run-unit-test.sh >build/run-unit-test.log 2>&1 &
rut_pid=$!
make -s -j2 unit 2>&1 | tee build/unit.log
wait $rut_pid
grep -q '^ok ' build/run-unit-test.log ||
	echo "not ok - test/unit/run-unit-test.sh reported no result" >>build/run-unit-test.log
echo "# unit: test/unit/run-unit-test.sh"
cat build/run-unit-test.log
count build/unit.log
count build/run-unit-test.log
stage "host unit tests" $t0

while read -r name kver; do
	case " $klines " in *" $name "*) ;; *) continue ;; esac
	echo "# kernel line $name: $kver"
	t0=$(date +%s)
	# one line also runs the unwinding tests side by side with perf
	# --call-graph dwarf (Debian's perf in the guest: 40 s more)
	perf=
	[ "$name" = 6.12 ] && perf=1
	STACKID_WITH_PERF=$perf test/vm.sh "$kver" 2>&1 |
		tee "build/vm-$name.log"
	count "build/vm-$name.log"
	stage "kernel $name ($kver)" $t0
done < <(kernel_versions)

# The debug-kernel tier (KASAN, lockdep, ...): built from Debian's
# linux-source-6.12 on first use (about 10 minutes), cached afterwards.
case " $klines " in
*" debug "*)
	t0=$(date +%s)
	# waits for the chain's build (its lock), or builds now if that
	# failed
	if [ -e build/matrix-start ] &&
		! test/debug-kernel.sh --print-dir --cached >/dev/null 2>&1; then
		echo "# the background build of the debug kernel failed; its log's end (build/debug-kernel.log), then a build now:"
		tail -n 20 build/debug-kernel.log | sed 's/^/#   /'
	fi
	if kdir=$(test/debug-kernel.sh --print-dir); then
		stage "debug kernel build: waited for it (cached after the first)" $t0
		kver=$(cat "$kdir/kernelrelease")
		echo "# kernel line debug: $kver"
		t0=$(date +%s)
		vm_debug "$kdir" 2>&1 | tee build/vm-debug.log
		count build/vm-debug.log
		stage "kernel debug ($kver)" $t0
	else
		echo "not ok - build the debug kernel"
		failed=$((failed + 1))
	fi
	;;
esac

# The Debian system (started after the build, above): waited for here.
if [ -n "$sys_pid" ]; then
	t0=$(date +%s)
	wait "$sys_pid"
	cat build/system.log
	count build/system.log
	stage "Debian system: waited for it" $t0
	t_s=$(cat build/system-start)
	stage "Debian system (apt, DKMS, systemd, reboots, purge): all of it, beside the lines" "$t_s"
fi

if [ -n "$chain_pid" ]; then
	t0=$(date +%s)
	wait "$chain_pid"
	if [ -n "$want_matrix" ]; then
		cat build/matrix-all.log
		count build/matrix-all.log
		stage "build-only matrix: waited for it" $t0
		t_m=$(cat build/matrix-start 2>/dev/null || echo "$t_chain")
		stage "build-only matrix: all of it, in the background" "$t_m"
	fi
	[ -n "$want_debug" ] &&
		stage "debug kernel and matrix: the background chain" "$t_chain"
fi

host_after=$(host_state)
if [ "$host_before" = "$host_after" ]; then
	echo "ok - host DKMS tree, /usr/src and /lib/modules untouched"
	passed=$((passed + 1))
else
	echo "not ok - host DKMS tree, /usr/src and /lib/modules untouched"
	diff <(echo "$host_before") <(echo "$host_after") | sed 's/^/#   /'
	failed=$((failed + 1))
fi

stage "make check" $t_all
recap
echo "$passed passed, $failed failed"
[ $failed = 0 ]
}
