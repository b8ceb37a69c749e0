# SPDX-License-Identifier: GPL-2.0
# Lifecycle under load: load/enable/unload 20 times, remove while open,
# CPU hotplug while sampling.
. /stackid/lib.sh
spawn /stackid/chain64
rmmod stackid 2>/dev/null
ok=0
for i in $(seq 20); do
	modprobe stackid &&
	$S record -F 997 -d 150 -o /tmp/lc.rec >/tmp/lc.out 2>&1 &&
	grep -q '^stat identity ok' /tmp/lc.out &&
	rmmod stackid && ok=$((ok + 1))
done
check "20 x load, enable, unload under load ($ok ok)" test $ok = 20

modprobe stackid
$S hold 1500 &
hold=$!
sleep 0.5
check "rmmod while /dev/stackid is open fails" sh -c '! rmmod stackid'
wait $hold
check "rmmod after close succeeds" rmmod stackid

modprobe stackid
taskset -p 2 "$pid" >/dev/null
$S record -F 499 -d 4000 -o /tmp/hp.rec >/tmp/hp.out 2>&1 &
rec=$!
sleep 1
check "cpu1 offline while sampling" sh -c 'echo 0 >/sys/devices/system/cpu/cpu1/online'
sleep 1
check "cpu1 online again" sh -c 'echo 1 >/sys/devices/system/cpu/cpu1/online'
taskset -p 2 "$pid" >/dev/null
wait $rec
check "hotplug recording: samples == delivered + dropped" \
	grep -q '^stat identity ok' /tmp/hp.out
# cpu1 samples again after coming back
$S record -F 499 -d 1000 -o /tmp/hp2.rec >/tmp/hp2.out 2>&1
n=$($S dump /tmp/hp2.rec | grep -c " cpu1 ")
check "cpu1 sampled after re-online ($n samples)" test "$n" -gt 0
kill "$pid"
rmmod stackid
