#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hang_not_ours and hang_show (test/lib.sh): which hung guests test/vm.sh
# and test/system.sh boot again (QEMU's TCG running a breakpoint the
# kernel has already rewritten) and which they judge as they are.
# int3-6.1-ipi.hang is test/hang-watch.sh's report of a 6.1 suite guest
# running tcg-race.sh's switching as a test (2026-12-07: one vCPU waits
# in text_poke_bp_batch() for the other, which loops at __schedule+0x1bc);
# int3-6.1.hang is the report of the same guest's other form (both vCPUs
# loop at try_to_wake_up+0x9e), its samples as the harness printed them,
# with the int3-path lines that boot did not get to print;
# int3-6.1-lock.hang is the report of the same test on the final code
# (one vCPU loops at __schedule+0x1bc, the other spins on the runqueue
# lock it holds). The int3-path lines of all are as the guest prints
# them now (native_irq_return_iret added after those runs); the rest are
# these, changed. TAP on stdout.
set -uo pipefail	# as test/vm.sh and test/system.sh
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/test/lib.sh"
h=$top/test/unit/hangs
c=$top/test/unit/consoles
n=0 fail=0
check() {	# WANT HANG CONSOLE WHY: hang_not_ours is WANT (0 true, 1 false)
	local got=0
	hang_not_ours "$h/$2" "$c/$3" || got=1
	n=$((n + 1))
	if [ "$got" = "$1" ]; then
		echo "ok $n - $2, $3: $4"
	else
		fail=1
		echo "not ok $n - $2, $3: $4 (hang_not_ours returned $got)"
	fi
}
check 0 int3-6.1.hang clean.log "both vCPUs in the int3 loop at try_to_wake_up+0x9e: boot again"
check 0 int3-6.1-ipi.hang clean.log "one vCPU in the int3 loop, the other waiting for it in an IPI: boot again"
check 1 int3-6.1.hang int3-stackid.log "the same, with a frame of stackid's in the kernel log: judged as it is"
check 1 module-rip.hang clean.log "a vCPU in a module's text: judged as it is"
check 1 user-rip.hang clean.log "a vCPU in user space: judged as it is"
check 1 idle.hang clean.log "no vCPU in the int3 path: judged as it is"
check 1 no-samples.hang clean.log "QEMU's monitor said nothing: judged as it is"
check 1 one-vcpu.hang clean.log "the monitor answered for one vCPU of two: judged as it is"
check 1 no-site.hang clean.log "the vCPU in the int3 handler is never seen at the place it loops on: judged as it is"
check 0 int3-6.1-lock.hang clean.log "one vCPU in the int3 loop at __schedule+0x1bc, its return through native_irq_return_iret, the other spinning on the lock it holds: boot again"
check 0 int3-6.1-ctnmi.hang clean.log "the same loop, one sample in ct_nmi_exit (the context tracking irqentry_nmi_exit calls): boot again"
check 1 two-places.hang clean.log "the same with the iret not counted as the int3 path: two places outside it, judged as it is"
check 1 pause-spin.hang clean.log "a vCPU spinning on a pause, seen once in exc_int3: not a rewritten branch, judged as it is"
check 1 int3-6.1.hang no-such-console.log "no kernel log to read: judged as it is"

# a console far bigger than a pipe's buffer, with a frame of stackid's on
# its first line: the check must not stop reading early and take that
# for "not found"
big=$(mktemp)
trap 'rm -f "$big"' EXIT
{
	echo "[   52.576163]  stackid_sample+0x1f/0x80 [stackid]"
	for i in $(seq 20000); do echo "[   53.000000] filler line $i of a long console log"; done
} >"$big"
n=$((n + 1))
if hang_not_ours "$h/int3-6.1.hang" "$big"; then
	fail=1
	echo "not ok $n - a 750 KB console with a frame of stackid's at its start: judged as it is"
else
	echo "ok $n - a 750 KB console with a frame of stackid's at its start: judged as it is"
fi

# what the harness prints of it: each vCPU's places, named
out=$(hang_show "$h/int3-6.1.hang")
n=$((n + 1))
if grep -q 'vCPU 0 at ffffffff81a44ffe (in exc_int3)' <<<"$out" &&
	grep -q 'vCPU 1 at ffffffff810e179e (memory there: 0x0f 0x1f 0x44 0x00 0x00' <<<"$out" &&
	grep -q '^#   no heartbeat for 60 s$' <<<"$out"; then
	echo "ok $n - hang_show names the int3 path and the bytes at the other places"
else
	fail=1
	echo "not ok $n - hang_show names the int3 path and the bytes at the other places"
	sed 's/^/# /' <<<"$out"
fi
exit $fail
