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

# The holder prints its pid once it has the device open, which spawn()
# waits for (a fixed sleep was too short on a busy host: rmmod came
# first and succeeded), and holds it until it is killed after the check.
modprobe stackid
spinner=$pid
spawn $S hold 120000
hold=$pid pid=$spinner
check "rmmod while /dev/stackid is open fails (held after $i polls)" \
	sh -c '! rmmod stackid'
kill $hold
wait $hold
check "rmmod after close succeeds" rmmod stackid

# on_cpu1: pin the spinner to cpu1 and wait until it runs there. Taking
# cpu1 away breaks the spinner's affinity; the retries cover a moment
# where the returning CPU is not yet allowed.
on_cpu1() {
	i=0
	while [ $i -lt 50 ]; do
		taskset -p 2 "$pid" >/dev/null 2>&1 &&
			[ "$(cut -d' ' -f39 "/proc/$pid/stat")" = 1 ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "spinner $pid: $(taskset -p "$pid" 2>&1)," \
	     "last on cpu$(cut -d' ' -f39 "/proc/$pid/stat")"
	return 1
}

# cpu1_after REC T: REC holds samples taken on cpu1 after uptime T;
# when it does not, says what it holds instead.
cpu1_after() {
	$S dump "$1" >/tmp/dump.out
	n=$(awk -v t="$2" '$2 == "cpu1" && $1 / 1e9 > t' /tmp/dump.out | wc -l)
	[ "$n" -gt 0 ] && return 0
	echo "no cpu1 sample after uptime $2 in $1; samples per cpu:"
	awk '/^[0-9]/ {print $2}' /tmp/dump.out | sort | uniq -c
	awk -v t="$2" '/^[0-9]/ { n++; if ($1 / 1e9 > t) a++; l = $1 / 1e9 }
		END { print n + 0, "samples,", a + 0, "after", t ", last at", l }' \
		/tmp/dump.out
	echo "uptime now $(cut -d' ' -f1 /proc/uptime)"
	echo "spinner $pid: $(taskset -p "$pid" 2>&1)," \
	     "last on cpu$(cut -d' ' -f39 "/proc/$pid/stat")"
	grep '^stat' "${1%.rec}.out"
	dmesg | tail -5
	return 1
}

modprobe stackid
check "spinner pinned to cpu1" on_cpu1
# recording until stopped (SIGUSR1) 1.5 s after the spinner is back on
# cpu1, however long the hotplug took
$S record -F 499 -d 60000 -o /tmp/hp.rec >/tmp/hp.out 2>&1 &
rec=$!
sleep 1
check "cpu1 offline while sampling" sh -c 'echo 0 >/sys/devices/system/cpu/cpu1/online'
sleep 1
check "cpu1 online again" sh -c 'echo 1 >/sys/devices/system/cpu/cpu1/online'
check "spinner pinned to cpu1 again" on_cpu1
t=$(cut -d' ' -f1 /proc/uptime)
sleep 1.5
kill -USR1 $rec
wait $rec
check "hotplug recording: samples == delivered + dropped" \
	grep -q '^stat identity ok' /tmp/hp.out
# the session's event on cpu1 comes back with the CPU
check "cpu1 sampled again by the same session after re-online" \
	cpu1_after /tmp/hp.rec "$t"
# and a new session samples it too
t=$(cut -d' ' -f1 /proc/uptime)
$S record -F 499 -d 1000 -o /tmp/hp2.rec >/tmp/hp2.out 2>&1
check "cpu1 sampled by a new session after re-online" \
	cpu1_after /tmp/hp2.rec "$t"
# A new reader starts with empty rings: nothing the last reader left
# unread, or that was written after it closed, reaches it (indices of
# epochs it never saw made such leftovers undecodable).
$S enable-idle 500 >/dev/null
t=$($S now)
$S record -F 499 -d 500 -o /tmp/nr.rec >/tmp/nr.out 2>&1
$S dump /tmp/nr.rec >/tmp/nr.dump
old=$(awk -v t="$t" '/^[0-9]/ && $1 < t' /tmp/nr.dump | wc -l)
all=$(grep -c '^[0-9]' /tmp/nr.dump)
check "a new reader gets none of the last one's samples ($old of $all older than its open)" \
	test "$old" = 0 -a "$all" -gt 0
kill "$pid"
rmmod stackid
