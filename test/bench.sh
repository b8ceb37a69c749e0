#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: stackid's cost side by side with `perf record -g -a` in
# one VM boot per kernel line (BENCH_KERNELS, default "6.1 6.12"): each
# workload bare, under perf, under stackid, under stackid with
# resolve=N and with kernel_frames=N, at 999 and 9999 Hz, REPS (3) runs
# each, medians; slowdowns and overhead ratios, stackid's handler cost
# (median and p99, a sample and a frame), build-id cache hit rate, bytes
# per sample and per frame, ring drops and the reader's share of the
# samples (test/guest/bench/bench.sh). Then the report's records per
# second on the host (make bench-report). Figures, not tests: nothing
# here is held against a threshold.
# BENCH_TESTS=bench-nofp.sh: only the chain without frame pointers;
# bench-held.sh: only what taking back a deferral slot costs;
# bench-stages.sh: only the handler's stages (test build), BENCH_REPS runs.
# bench-deep.sh: only the chain and the 300 libraries at 9999 Hz.
# BENCH_REPS=N: N runs of each configuration (default 3); the nofp part
# prints its ratios run by run with 90 % intervals.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"
cd "$top"
test/require.sh "make bench" || exit 1
make -s guest user >/dev/null || exit 1
want=${BENCH_KERNELS:-6.1 6.12}
rc=0
while read -r name kver; do
	case " $want " in *" $name "*) ;; *) continue ;; esac
	echo "# bench on $name ($kver), QEMU TCG, -smp 2"
	t0=$(date +%s)
	STACKID_WITH_PERF=1 STACKID_GUEST_TESTS=${BENCH_TESTS:-bench.sh} \
		STACKID_BENCH_REPS=${BENCH_REPS:-} \
		STACKID_VM_TIMEOUT=${STACKID_VM_TIMEOUT:-3600} \
		test/vm.sh "$kver" >build/bench-$name.log 2>&1 || rc=1
	grep -E '^# bench|^not ok' build/bench-$name.log
	echo "# bench on $name took $(($(date +%s) - t0)) s"
done < <(kernel_versions)
make -s --no-print-directory bench-report || rc=1
exit $rc
