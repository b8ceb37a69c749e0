# SPDX-License-Identifier: GPL-2.0
# test/clocksource.sh's control (CS_TESTS=clocksource-idle.sh): the
# clocksource switches of clocksource.sh with the same workload and the
# test build loaded, but nothing sampled.
CS_SAMPLE=0
. /stackid/tests/clocksource.sh
