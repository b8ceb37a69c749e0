# SPDX-License-Identifier: GPL-2.0
# BENCH_TESTS=bench-stages.sh make bench: only the handler's stages (the
# test build's test_stages) and how the walk found each frame's mapping,
# at 9999 Hz, BENCH_REPS runs of each workload: for comparing two
# versions of the sample path, boot by boot.
BENCH_WORKLOADS="chain many nofp"
BENCH_STAGES_ONLY=1
. /stackid/tests/bench.sh
