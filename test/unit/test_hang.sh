#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hang_not_ours and hang_show (test/lib.sh): which hung guests test/vm.sh
# boots again (every vCPU in the core kernel, one in its int3 path, no
# frame of stackid's in the kernel log: QEMU's TCG running a breakpoint
# the kernel has already rewritten) and which it judges as they are.
# int3-6.1.hang is test/hang-watch.sh's report of a real tcg-race.sh
# boot on 6.1 (2026-12-07); int3-6.1-ipi.hang that of the other form
# seen there (one vCPU waits in text_poke_bp_batch() for the other); the
# rest are it, changed. TAP on stdout.
set -u
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

# what the harness prints of it: each vCPU's places, named
out=$(hang_show "$h/int3-6.1.hang")
n=$((n + 1))
if grep -q 'vCPU 0 at ffffffff81a44ffe (in exc_int3)' <<<"$out" &&
	grep -q 'vCPU 1 at ffffffff810e179e (memory there: 0x0f 0x1f 0x44 0x00 0x00' <<<"$out" &&
	grep -q '^#   no heartbeat for 240 s$' <<<"$out"; then
	echo "ok $n - hang_show names the int3 path and the bytes at the other places"
else
	fail=1
	echo "not ok $n - hang_show names the int3 path and the bytes at the other places"
	sed 's/^/# /' <<<"$out"
fi
exit $fail
