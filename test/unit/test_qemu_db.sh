#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qemu_db_strip (test/lib.sh): which kernel single-step #DB warnings
# test/vm.sh and test/system.sh take as QEMU 7.2's (flags no CPU can
# hold in the trapped frame, nothing of stackid's: test/tcg-flags.sh)
# and which they judge as they are. db-qemu-flags.log is the 20-minute
# soak's warning (2026-12-07, 6.12), the others are it changed in one
# place each. TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/test/lib.sh"
c=$top/test/unit/consoles
q=$(mktemp)
trap 'rm -f "$q"' EXIT
n=0 fail=0
check() {	# EXCUSED SPLATS LOG WHY: warnings taken as QEMU's, splat lines left
	local got left
	: >"$q"
	left=$(qemu_db_strip "$q" <"$c/$3" | grep -c -E "$SPLAT_RE")
	got=$(wc -l <"$q")
	n=$((n + 1))
	if [ "$got" = "$1" ] && [ "$left" = "$2" ]; then
		echo "ok $n - $3: $4"
	else
		fail=1
		echo "not ok $n - $3: $4 (got $got taken as QEMU's, $left splat lines left; want $1 and $2)"
	fi
}
check 1 0 db-qemu-flags.log "the soak's #DB, trapped RFLAGS 0a6c8b42 (reserved bits): QEMU's"
check 0 2 db-cpu-flags.log "the same #DB with flags a CPU can hold (TF, IF, ZF, PF): judged as it is"
check 0 2 db-stackid.log "the same #DB with a frame of stackid's in its trace: judged as it is"
check 0 2 db-cut.log "the same #DB cut off before its end trace: judged as it is"
check 0 4 db-cut-then-warning.log "the #DB cut off by another warning: both judged"
check 0 3 db-stall-inside.log "the #DB with another CPU's RCU stall report inside it: both judged"
check 0 2 db-regs-outside.log "no registers inside <#DB>, impossible flags in the task's frame after it: judged as it is"
check 1 2 db-then-warning.log "QEMU's #DB, then another warning: only the #DB taken"
check 0 0 clean.log "no warning: nothing taken, nothing left"
check 0 1 gp-no-module.log "a general protection fault: passed through"
exit $fail
