# SPDX-License-Identifier: GPL-2.0
# `make soak` (test/soak.sh), not in `make check`: the module and the
# recorder for a long time under everything at once (issue 18):
#  - the known 64-bit chain spinning the whole time, a thread churning
#    mmap/munmap beside the chain (bench_work churn), and a fork/exec
#    storm (bench_work forkexec), all in loops;
#  - a reader cycle: every cycle (60 s by default) a new
#    `stackid record -F 4999 --rotate --dir --keep`, stopped at the end of
#    its cycle, with SIGTERM (it must close its last file and account for
#    every sample) or, every third cycle, with SIGKILL while it has the
#    rings mapped (the next reader must start as if nothing happened);
#    every fourth cycle, before the reader, `sidcheck hostile` writes
#    garbage into every mapping of the device and closes it;
#  - CPU 1 taken offline for 5 s and back every few minutes, readers
#    running;
#  - tasks asleep in the kernel after they were sampled (ABI 2.5's
#    take-back): every half cycle a new batch of 8 copies of sysloop
#    that each poll() 65,536 entries on CPU 0 and then sleep in it
#    (sampler.sh's held tasks), the batch before let go (their works
#    run then, slots taken back or not, across sessions and hotplugs).
# Then: every cleanly stopped reader's accounting identity holds and each
# file it kept is a complete capture; slots were taken back from the
# sleepers, and once the last batch is let go the module's reference
# count is 0 again; every killed one's successor
# started; the last capture holds the known chain; the module's vmalloc
# use is what it was before the first reader (flat); rmmod works. The
# figures (samples, drops by reason, slab and vmalloc use at start and
# end) are printed as "# soak" lines. Its length: /stackid/soak-seconds
# (test/vm.sh writes STACKID_SOAK_SECONDS there; default 3600).
. /stackid/lib.sh
dur=$(cat /stackid/soak-seconds 2>/dev/null || echo 3600)
cycle=60
[ "$dur" -lt 600 ] && cycle=$((dur / 6))
[ $cycle -lt 20 ] && cycle=20
hotplug_every=$((cycle * 3))
# a short soak takes CPU 1 offline too, at least once
[ $hotplug_every -gt $((dur / 2)) ] && hotplug_every=$((dur / 2))
say() { echo "# soak: $*"; }

# vmalloc bytes of the module's own allocations
vm_stackid() {
	awk '/\[stackid\]/ { s += $2 } END { print s + 0 }' /proc/vmallocinfo
}
sunreclaim() {
	awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo
}

slab0=$(sunreclaim)
load
vm0=$(vm_stackid)
say "$dur s, a reader cycle every $cycle s, CPU 1 offline every $hotplug_every s"
say "start: module vmalloc $vm0 bytes; SUnreclaim ${slab0} kB before load, $(sunreclaim) kB after"

rm -f /tmp/soak.stop
spawn /stackid/chain64
chain=$pid
(while [ ! -e /tmp/soak.stop ]; do /stackid/bench_work churn 20; done) \
	>/dev/null 2>&1 &
churn=$!
(while [ ! -e /tmp/soak.stop ]; do /stackid/bench_work forkexec 20; done) \
	>/dev/null 2>&1 &
storm=$!
hotplugs=0
hp_fail=0
(
	while [ ! -e /tmp/soak.stop ]; do
		i=0
		while [ $i -lt $hotplug_every ] && [ ! -e /tmp/soak.stop ]; do
			sleep 1
			i=$((i + 1))
		done
		[ -e /tmp/soak.stop ] && break
		if echo 0 >/sys/devices/system/cpu/cpu1/online; then
			sleep 5
			echo 1 >/sys/devices/system/cpu/cpu1/online ||
				echo fail >>/tmp/soak.hotplug
			echo ok >>/tmp/soak.hotplug
		else
			echo fail >>/tmp/soak.hotplug
		fi
	done
) &
hp=$!
(
	b=0 prev=
	while [ ! -e /tmp/soak.stop ]; do
		b=$((b + 1))
		for k in 1 2 3 4 5 6 7 8; do cp /stackid/sysloop /tmp/held.$b.$k; done
		/stackid/sysloop held 65536 0 /tmp/held.$b.[0-9] >/dev/null 2>&1 &
		h=$!
		if [ -n "$prev" ]; then
			kill $prev 2>/dev/null
			wait $prev 2>/dev/null
			rm -f /tmp/held.$((b - 1)).*
		fi
		prev=$h
		echo $b >/tmp/soak.held
		i=0
		while [ $i -lt $((cycle / 2)) ] && [ ! -e /tmp/soak.stop ]; do
			sleep 1
			i=$((i + 1))
		done
	done
	kill $prev 2>/dev/null
	wait $prev 2>/dev/null
	rm -f /tmp/held.*
) &
held=$!

t_end=$(($(cut -d. -f1 /proc/uptime) + dur))
n=0 clean=0 clean_bad=0 killed=0 start_bad=0 files=0 files_bad=0 hostile=0
hostile_bad=0 samples=0 drops=0 after_kill_bad=0 last= back=0
while [ "$(cut -d. -f1 /proc/uptime)" -lt $t_end ]; do
	n=$((n + 1))
	if [ $((n % 4)) = 0 ]; then
		hostile=$((hostile + 1))
		$S hostile >/tmp/soak.hostile 2>&1
		if grep -q '^not ok' /tmp/soak.hostile; then
			hostile_bad=$((hostile_bad + 1))
			sed 's/^/#   /' /tmp/soak.hostile | head -n 10
		fi
	fi
	d=/tmp/soak/$n
	rm -rf /tmp/soak
	mkdir -p $d
	stackid record -F 4999 --rotate $((cycle / 3)) --dir $d --keep 2 \
		2>/tmp/soak.err &
	rpid=$!
	sleep $((cycle - 2))
	if ! kill -0 $rpid 2>/dev/null; then
		wait $rpid
		rc=$?
		start_bad=$((start_bad + 1))
		[ $((n % 3)) = 1 ] && [ $n -gt 1 ] && after_kill_bad=$((after_kill_bad + 1))
		say "cycle $n: the reader ended by itself (exit $rc):"
		sed 's/^/#   /' /tmp/soak.err | head -n 20
		continue
	fi
	if [ $((n % 3)) = 0 ]; then
		kill -KILL $rpid
		wait $rpid 2>/dev/null
		killed=$((killed + 1))
		continue
	fi
	t_stop=$(cut -d' ' -f1 /proc/uptime)
	kill -TERM $rpid
	wait $rpid
	rc=$?
	t_stop=$(awk -v a="$t_stop" '{ printf "%.1f", $1 - a }' /proc/uptime)
	clean=$((clean + 1))
	s=$(sed -n 's/^ *accounting .* samples \([0-9]*\) .*/\1/p' /tmp/soak.err)
	dr=$(sed -n 's/^ *accounting .* dropped \([0-9]*\).*/\1/p' /tmp/soak.err)
	tb=$(recstat /tmp/soak.err defer_taken_back)
	samples=$((samples + ${s:-0}))
	drops=$((drops + ${dr:-0}))
	back=$((back + ${tb:-0}))
	cp /tmp/soak.err /tmp/soak.lasterr
	say "cycle $n at $(cut -d. -f1 /proc/uptime) s: ${s:-?} samples, ${dr:-?} dropped, ${tb:-0} slots taken back, stopped in $t_stop s; SUnreclaim $(sunreclaim) kB, module vmalloc $(vm_stackid) bytes"
	if [ $rc != 0 ] || ! grep -Eq '^ *accounting +(ok|in flight) ' /tmp/soak.err ||
		grep -q MISMATCH /tmp/soak.err; then
		clean_bad=$((clean_bad + 1))
		say "cycle $n: exit $rc, or its accounting does not hold:"
		sed 's/^/#   /' /tmp/soak.err | head -n 40
	fi
	for f in $d/*; do
		[ -f "$f" ] || continue
		files=$((files + 1))
		case $($S capend "$f") in
		*" end yes") ;;
		*)	files_bad=$((files_bad + 1))
			say "cycle $n: $f: $($S capend "$f")" ;;
		esac
		last=$f
	done
	[ -n "$last" ] && cp "$last" /tmp/soak.last
done
touch /tmp/soak.stop
wait $churn $storm $hp $held
kill $chain
# the last cleanly stopped reader's counters, drops by reason
say "the last reader stopped by SIGTERM, its statistics:"
sed 's/^/#   /' /tmp/soak.lasterr
hotplugs=$(grep -c ok /tmp/soak.hotplug 2>/dev/null)
hp_fail=$(grep -c fail /tmp/soak.hotplug 2>/dev/null)

check "soak: $n reader cycles, each reader started and ran its cycle" \
	test $start_bad = 0 -a $n -ge 3
check "soak: $clean readers stopped by SIGTERM: exit 0, accounting holds in each ($samples samples, $drops dropped)" \
	test $clean_bad = 0 -a $clean -ge 1
check "soak: $files capture files they kept, each complete" \
	test $files_bad = 0 -a $files -ge 1
check "soak: $killed readers killed with their rings mapped, each followed by a working reader" \
	test $after_kill_bad = 0 -a $killed -ge 1
check "soak: $hostile readers wrote garbage into their mappings, the module kept its own" \
	test $hostile_bad = 0
check "soak: CPU 1 offline and back ${hotplugs:-0} times, readers running" \
	test "${hp_fail:-0}" = 0 -a "${hotplugs:-0}" -ge 1
check "soak: $(cat /tmp/soak.held 2>/dev/null || echo 0) batches of 8 tasks asleep in the kernel, $back of their slots taken back in the readers stopped by SIGTERM" \
	test "$back" -gt 0
# the last batch let go: every work it had queued ran
ref=$(unheld)
check "soak: the sleepers let go, every work of theirs ran ($ref still queued)" \
	test "$ref" = 0
stackid report -i /tmp/soak.last --format folded >/tmp/soak.folded 2>&1
check "soak: the last capture holds the known chain" \
	grep -q ';main;app_a1;app_a2;app_a3;lib_b1;lib_b2;lib_spin ' /tmp/soak.folded
rm -rf /tmp/soak /tmp/soak.last /tmp/soak.folded
# tables and rings of the last reader go after an RCU grace period
sleep 2
vm1=$(vm_stackid)
say "end: module vmalloc $vm1 bytes; SUnreclaim $(sunreclaim) kB"
check "soak: the module's vmalloc use is flat ($vm0 bytes at start, $vm1 at the end)" \
	test "$vm0" = "$vm1"
check "soak: rmmod at the end" rmmod stackid
say "after rmmod: SUnreclaim $(sunreclaim) kB"
