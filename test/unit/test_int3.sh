#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# int3_not_ours (test/lib.sh): which guest consoles test/vm.sh and
# test/system.sh boot again (an int3 oops that names nothing of
# stackid's: TCG meeting a text-patching breakpoint late) and which
# they judge as they are. The consoles are real oopses, trimmed.
# TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/test/lib.sh"
c=$top/test/unit/consoles
n=0 fail=0
check() {	# WANT LOG WHY: int3_not_ours LOG is WANT (0 true, 1 false)
	local got=0
	int3_not_ours "$c/$2" || got=1
	n=$((n + 1))
	if [ "$got" = "$1" ]; then
		echo "ok $n - $2: $3"
	else
		fail=1
		echo "not ok $n - $2: $3 (int3_not_ours returned $got)"
	fi
}
check 0 int3-cloud-boot.log "the cloud kernel's int3 in sched_clock_cpu() at boot, no module: boot again"
check 0 int3-module-loaded.log "an int3 in __schedule() with stackid loaded but not in the oops: boot again"
check 0 int3-no-oops-prefix.log "the same oops as 6.1 and 5.10 print it (\"int3: 0000 [#1]\", no \"Oops:\"): boot again"
check 1 int3-stackid.log "an int3 with stackid's frames in the oops: judged as it is"
check 1 gp-no-module.log "an oops that is not an int3: judged as it is"
check 1 clean.log "no oops: nothing to boot again"
exit $fail
