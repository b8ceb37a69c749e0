#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Not in `make check`: test/guest/bench/clocksource.sh (clocksource
# switches, the TSC marked unstable, while sampling at 4999 Hz) in
# CS_BOOTS (default 10) boots of each line of CS_KERNELS (default
# "trixie"; names of test/kernels.conf), one after another; CS_TESTS=
# clocksource-idle.sh: the control, nothing sampled. Each boot's log:
# build/clocksource/LINE-N.log (with the CPU state QEMU logged at its
# last reset, if it did not finish). Ends with "N passed, N failed"
# (boots).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"
cd "$top" || exit 1
test/require.sh "test/clocksource.sh" || exit 1
make -s guest user >/dev/null || exit 1
mkdir -p build/clocksource
rm -f build/clocksource/*.log
passed=0
failed=0
for name in ${CS_KERNELS:-trixie}; do
	kver=$(kernel_of "$name")
	[ -n "$kver" ] || { echo "clocksource: no kernel line '$name'" >&2; exit 1; }
	for i in $(seq "${CS_BOOTS:-10}"); do
		log=build/clocksource/$name-$i.log
		if STACKID_GUEST_TESTS=${CS_TESTS:-clocksource.sh} test/vm.sh "$kver" >"$log" 2>&1; then
			passed=$((passed + 1))
			echo "ok - $name boot $i"
		else
			failed=$((failed + 1))
			echo "not ok - $name boot $i ($log)"
		fi
		# the guest's checks and figures; a second boot of vm.sh's
		# (after an int3 oops of TCG's, before it) said so
		grep -E '^not ok|^ok - .*(switches|unstable|samples ==)|^# [0-9]+ samples|^# boot 1' "$log" |
			sed 's/^/#   /'
	done
done
echo "$passed passed, $failed failed"
[ $failed = 0 ]
