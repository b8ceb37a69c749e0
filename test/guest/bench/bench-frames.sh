# SPDX-License-Identifier: GPL-2.0
# BENCH_TESTS=bench-frames.sh make bench: only stackid at 9999 Hz on the
# workloads whose frames can outlive their mappings (mmap churn, the
# fork/exec storm): their valid frames, cache and handler figures.
BENCH_WORKLOADS="churn forkexec"
BENCH_PROFS=stackid
BENCH_HZ=9999
. /stackid/tests/bench.sh
