#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: the sampler's figures, measured in one VM run per kernel
# line (default: the newest Debian line; BENCH_KERNELS="6.1 6.12" for
# more): per-sample handler cost (median, p99) of a 16-frame stack with
# build-id resolution on and off, the build-id cache hit rate, and the
# valid-frame rate with fallback reasons on the known programs and on a
# busy mixed workload. Figures, not pass/fail: nothing here is timed
# against a threshold.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"
cd "$top"
make -s guest >/dev/null || exit 1
want=${BENCH_KERNELS:-6.12}
rc=0
while read -r name kver; do
	case " $want " in *" $name "*) ;; *) continue ;; esac
	echo "# bench on $name ($kver), QEMU TCG, -smp 2"
	STACKID_GUEST_TESTS=bench.sh test/vm.sh "$kver" >build/bench-$name.log 2>&1 || rc=1
	grep -E '^# bench|^not ok' build/bench-$name.log
done < <(kernel_versions)
exit $rc
