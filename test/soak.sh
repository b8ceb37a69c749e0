#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make soak` (not in `make check`, not in CI): test/guest/bench/soak.sh
# (readers killed and restarted, garbage in their mappings, mmap churn, a
# fork/exec storm, CPU hotplug, at 4999 Hz) for SOAK_SECONDS (default
# 3600) on each line of SOAK_KERNELS (default "6.12 6.12-rt"; names of
# test/kernels.conf, or "debug" for the KASAN + lockdep kernel once
# `make check` has built it). The lines run side by side: the soak has no
# rate or timing check, so its guests share the host (and wait for a
# test suite's guest, which never shares). The guest kernel's log is
# judged as in `make check` (test/vm.sh). Logs: build/soak-LINE.log.
# SOAK_QEMU=trixie boots the guests with Debian 13's QEMU 10.0
# (test/qemu-trixie.sh) instead of the host's 7.2, to tell a fault of the
# emulator's from one of the kernel's.
# Ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"
cd "$top"
test/require.sh "make soak" || exit 1
make -s guest user >/dev/null || exit 1
secs=${SOAK_SECONDS:-3600}
want=${SOAK_KERNELS:-6.12 6.12-rt}
mkdir -p build
export STACKID_SOAK_SECONDS=$secs STACKID_QEMU_SHARED=1
export STACKID_QEMU=${SOAK_QEMU:-host}
export STACKID_GUEST_TESTS=soak.sh STACKID_VM_TIMEOUT=$((secs + 1200))
pids=()
names=()
for name in $want; do
	if [ "$name" = debug ]; then
		kdir=$(test/debug-kernel.sh --print-dir --cached) || {
			echo "make soak: no debug kernel built yet (make check builds it)" >&2
			exit 1
		}
		vm_debug "$kdir" >"build/soak-$name.log" 2>&1 &
	else
		kver=$(kernel_of "$name")
		[ -n "$kver" ] || { echo "make soak: no kernel line '$name'" >&2; exit 1; }
		test/vm.sh "$kver" >"build/soak-$name.log" 2>&1 &
	fi
	pids+=($!)
	names+=("$name")
	echo "# soak on $name: ${secs} s (build/soak-$name.log)"
done
t0=$(date +%s)
passed=0
failed=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}"
	log=build/soak-${names[$i]}.log
	echo "# --- ${names[$i]}"
	grep -E '^# soak|^ok |^not ok |^#   ' "$log"
	passed=$((passed + $(grep -c '^ok ' "$log")))
	failed=$((failed + $(grep -c '^not ok ' "$log")))
done
stage "make soak" $t0
echo "$passed passed, $failed failed"
[ $failed = 0 ]
