# SPDX-License-Identifier: GPL-2.0
# BENCH_TESTS=bench-held.sh make bench: only bench.sh's part for issue 18
# (what taking back a deferral slot held by a task asleep in the kernel
# costs the handler; the test build times each take-back).
BENCH_HELD_ONLY=1
. /stackid/tests/bench.sh
