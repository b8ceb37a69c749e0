# SPDX-License-Identifier: GPL-2.0
# Bad input gets its documented error and the module keeps working;
# garbage frame pointers stop the walk cleanly.
. /stackid/lib.sh
load
$S errors

for mode in random cycle down; do
	spawn /stackid/garbage $mode
	record /tmp/g$mode -F 499 -p "$pid" -d 1000
	$S walkstop /tmp/g$mode.rec "$pid"
	kill "$pid"
done
spawn /stackid/garbage fault
record /tmp/gfault -F 499 -p "$pid" -d 1000
$S walkstop /tmp/gfault.rec "$pid"
$S walkstop /tmp/gfault.rec "$pid" fault
kill "$pid"
rmmod stackid
check "bad module parameter refused: max_depth=0" \
	sh -c '! modprobe stackid max_depth=0'
check "bad module parameter refused: ring_kb=100" \
	sh -c '! modprobe stackid ring_kb=100'

# Hardware cycles where no PMU exists (QEMU TCG): enabling fails cleanly
# with the error perf gave, and the module keeps working.
modprobe stackid cycles=1
check "cycles=1 without a PMU: enable fails" sh -c "! $S enable-idle 100"
echo N >/sys/module/stackid/parameters/cycles
check "cycles=0 again: enable works" $S enable-idle 100
rmmod stackid
