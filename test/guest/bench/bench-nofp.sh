# SPDX-License-Identifier: GPL-2.0
# BENCH_TESTS=bench-nofp.sh make bench: only bench.sh's part for issue 20
# (the chain without frame pointers: unwind tables against perf
# --call-graph dwarf and against stackid's frame-pointer path).
BENCH_NOFP_ONLY=1
. /stackid/tests/bench.sh
