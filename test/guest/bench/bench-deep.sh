# SPDX-License-Identifier: GPL-2.0
# BENCH_TESTS=bench-deep.sh make bench: only the known chain and the
# stack through 300 libraries, at 9999 Hz, under every sampler (issue
# 23's handler and per-sample figures where the stack is deep), with
# the handler's stages.
BENCH_WORKLOADS="chain many"
BENCH_HZ=9999
. /stackid/tests/bench.sh
