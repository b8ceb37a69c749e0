# SPDX-License-Identifier: GPL-2.0
# The sampler end to end: known programs come back as exactly their
# build-ids and symbol offsets, 64-bit and compat 32-bit.
. /stackid/lib.sh
load

# The 64-bit chain in packed samples (8-byte frames, ABI 2.4), then in
# delta samples (ABI 2.6: only the frames that differ from the ring's
# previous sample), the 32-bit one in 16-byte frames: each exact, and
# each in its own kind. The chain's process is alone in the recording,
# so a ring's samples all follow one of the same process: each is a
# delta but the first of a ring and every 64th (STACKID_DELTA_RUN_MAX).
for m in 64 64d 32; do
	spawn /stackid/chain${m%d}
	pk=
	case $m in 64) pk=-P ;; 64d) pk="-P -D" ;; esac
	record /tmp/c$m -F 199 -p "$pid" -d 3000 $pk
	$S chain /tmp/c$m.rec "$pid" chain${m%d} \
		/stackid/expect/chain${m%d} 80
	set -- $($S kinds /tmp/c$m.rec)
	case $m in
	64)
		check "packed: all $2 samples of 8-byte frames ($4), no delta ($6)" \
			test "$2" -gt 0 -a "$2" = "$4" -a "$6" = 0 ;;
	64d)
		nd=$(counter /tmp/c$m.out delta_samples)
		check "delta: $6 of $2 samples deltas, as the module counts ($nd)" \
			test "$2" -gt 0 -a "$2" = "$4" -a "$6" = "${nd:-x}"
		# each ring: 1 whole sample, then runs of 63 deltas and 1
		# whole; a sample finished in its task on another CPU than
		# it was taken on ($8) is whole, and so is the next one there
		ncpu=$(grep -c ^processor /proc/cpuinfo)
		check "delta: at least $2 - $ncpu - $2 / 64 - 2 * $8 deltas ($6)" \
			test "$6" -ge $(( $2 - ncpu - $2 / 64 - 2 * $8 )) ;;
	32)
		check "not asked for: none of $2 samples packed ($4)" \
			test "$2" -gt 0 -a "$4" = 0 ;;
	esac
	grep '^stat \(frames\|bidcache\|dropped\)' /tmp/c$m.out |
		sed 's/^/# /'
	kill "$pid"
done

# Build-ids of 8, 16 and 20 bytes come back exactly; a note far beyond
# the first page too, never wrong: the handler cannot read it and hands
# the sample to the task's own context, which can.
for b in bid8:80 bid16:80 bid20:80 bidfar:80; do
	prog=${b%:*}
	spawn /stackid/$prog
	record /tmp/$prog -F 199 -p "$pid" -d 1500
	$S buildid /tmp/$prog.rec "$pid" "$(cat /stackid/expect/$prog)" ${b#*:}
	kill "$pid"
done
deferred=$(counter /tmp/bidfar.out deferred)
done=$(counter /tmp/bidfar.out deferred_done)
check "far note: samples deferred ($deferred) and all finished ($done)" \
	test "${deferred:-0}" -gt 0 -a "$deferred" = "$done"

# A task sampled again and again in the kernel before it returns to user
# space, while its first sample waits for it there (its file is new to
# every CPU's cache: a copy, asleep in open() of a FIFO until the test
# starts it): the later samples join the waiting one (8 to a slot) and
# take no slot of their own, and every frame comes back named. Before
# ABI 2.4 each took a slot, the CPU's 8 ran out, and the rest stayed raw.
# Reads of about 12 ms each (sysloop measures how long a read of
# /dev/zero takes on this kernel and machine, from 3 ms for 16 MiB on
# 6.12 to 20 ms on the debug line): about 12 samples at 999 Hz, several
# times fewer than the 72 (8 slots, each a sample and its 8 joins) that
# would run out of slots, and enough that a read whose first sample
# waits is sampled again before it ends.
cp /stackid/sysloop /tmp/sysloop-join
rm -f /tmp/go
mkfifo /tmp/go
spawn /tmp/sysloop-join zero 12 12 /tmp/go 2>/tmp/join.reads
grep '^#' /tmp/join.reads
$S reset >/dev/null	# this recording's counters alone
(sleep 1; echo go >/tmp/go) &
go=$!
record /tmp/join -F 999 -p "$pid" -d 4000
kill "$pid"
wait "$pid" "$go" 2>/dev/null
set -- $($S frames /tmp/join.rec "$pid")
joined=$(counter /tmp/join.out defer_joined)
noslot=$(counter /tmp/join.out defer_no_slot)
raw=$(counter /tmp/join.out frames_ip_not_resolved)
deferred=$(counter /tmp/join.out deferred)
# Samples that waited for the task together: kernel samples finished in
# its context (STACKID_SF_DEFERRED | STACKID_SF_KERNEL), two or more
# taken on one CPU within one read (sysloop says when each read began
# and ended, on the samples' clock): the later one was taken before the
# first one's work could run, at the read's return to user space. Two
# such samples on one CPU in different reads do not count: the task may
# have moved between CPUs, and its work cached the file on the other
# one (seen on sid: 2 on one CPU, 0 joined). The last 2 ms of a read's
# span are left out: the span ends after the read has returned and the
# first sample's work has run, and a sample taken during that work can
# no longer join. Where none waited together, there is nothing that
# could join.
nreads=$(grep -c '^read ' /tmp/join.reads)
check "sysloop said when each of its 12 reads was made ($nreads)" \
	test "$nreads" = 12
together=$($S dump /tmp/join.rec | while read -r t cpu _ _ f flags _; do
	[ "$f" = flags ] && [ $((flags & 0x18)) = 24 ] && echo "s $t $cpu"
done | cat - /tmp/join.reads | awk '
	$1 == "read" { a[$2] = $3 + 0; b[$2] = $4 - 2000000; n++ }
	$1 == "s" { t[++m] = $2 + 0; c[m] = $3 }
	END {
		for (i = 0; i < n; i++) {
			split("", k)
			for (j = 1; j <= m; j++)
				if (t[j] >= a[i] && t[j] <= b[i])
					k[c[j]]++
			for (x in k)
				if (k[x] >= 2)
					w += k[x]
		}
		print w + 0
	}')
what="$joined joined, $deferred deferred, $together waiting together, $noslot without a slot, $raw frames not resolved, $3 samples, $7% valid"
check "samples in one system call: none without a slot, every frame named ($what)" \
	test "$noslot" = 0 -a "${raw:-0}" = 0 -a "$3" -gt 0
if [ "$together" -ge 2 ]; then
	check "samples in one system call joined the waiting one ($what)" \
		test "${joined:-0}" -gt 0
else
	pass "samples in one system call joined the waiting one # SKIP no two samples waited together ($what)"
fi
# A task that sleeps in the kernel after it was sampled (here: in a
# poll() of 65,536 entries, after polling each) keeps its sample waiting
# for it, for hours maybe. Such tasks, each its own copy of the program,
# started on CPU 1 and moved to CPU 0 for their poll() (their files new
# to CPU 0's build-id cache, so each sample there waits), hold all of
# CPU 0's 8 slots. Before ABI 2.5 every later miss there stayed raw
# until they woke (defer_no_slot); now a slot whose task has not come for
# it in a second is taken back, its sample written with its unresolved
# frames raw, and a new program on CPU 0 (its own first sample a miss)
# comes back named. RESET_STATS and rmmod need not wait for them either
# (below). A task is held only if a sample caught it in the kernel on
# its way into poll(): under a loaded host 16 tasks once left 6 works
# queued (2026-12-07), fewer than the slots, and the probe found one
# free. So batches of 16 are started, at most 4, until the works queued
# since (src/anchor.c: queued_works, every CPU's), less one for each
# batch's parent (asleep in pause() on CPU 1) and 2 for passing tasks,
# reach 8. Fewer than 8 from 64 tasks (about 24 expected at that rate)
# fails. Once a batch has held CPU 0's slots for a second, the next
# batch takes some back: taken-back counts show the mechanism; the
# probe's frames, named while every slot was held, show it served the
# probe.
rm -f /tmp/held.*
q=/sys/module/stackid_anchor/parameters/queued_works
q0=$(cat $q)
$S record -o /tmp/held.rec -F 999 -d 120000 >/tmp/held.out 2>&1 &
rec=$!
sleep 0.5
holder=
for b in 1 2 3 4; do
	for k in $(seq 16); do cp /stackid/sysloop /tmp/held.$b.$k; done
	taskset -c 1 /stackid/sysloop held 65536 0 /tmp/held.$b.[0-9]* \
		>/tmp/held.pid.$b &
	i=0
	while [ ! -s /tmp/held.pid.$b ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	h=$(cat /tmp/held.pid.$b 2>/dev/null)
	[ -n "$h" ] && holder="$holder $h"
	[ $(($(cat $q) - q0 - b)) -ge 10 ] && break
done
sleep 1.5	# the slots they hold are a second old then
queued=$(($(cat $q) - q0 - b))
spawn taskset -c 0 /stackid/chain64
probe=$pid
sleep 2
kill -USR1 $rec
wait $rec
recorded /tmp/held $? "tasks held in the kernel"
set -- $($S frames /tmp/held.rec "${probe:-1}")
[ $# -ge 7 ] || set -- frames samples 0 per_sample 0 valid_pct 0
back=$(counter /tmp/held.out defer_taken_back)
noslot=$(counter /tmp/held.out defer_no_slot)
what="holders${holder:- none} ($((b * 16)) tasks, $queued works queued less theirs), probe ${probe:-none}: $3 samples, $7% valid; $back taken back, $noslot without a slot, $(counter /tmp/held.out in_flight) in flight"
check "held tasks: their samples wait for them, at least CPU 0's 8 slots ($what)" \
	test "$queued" -ge 8
check "held tasks: a new program on their CPU is named ($what)" \
	test -n "$holder" -a -n "$probe" -a "${3:-0}" -gt 0 -a \
	"${7%.*}" -ge 90 -a "${back:-0}" -gt 0
# RESET_STATS with sampling off need not wait for them either: their
# samples are written first (before ABI 2.5: EBUSY until they woke)
$S reset >/tmp/held.reset 2>&1
rc=$?
check "held tasks: RESET_STATS takes their samples back ($rc $(cat /tmp/held.reset))" \
	test $rc = 0
# Nor does rmmod (before: in use until they woke): their works name
# stackid_anchor's function (src/anchor.c), which no longer calls into
# stackid once it is gone, and hold the block of tickets they are in,
# and stackid_anchor itself. Loaded again while they sleep, stackid is
# not handed them: when they wake, each work only lets go, and the last
# frees the block. Counts are taken against those before.
A=/sys/module/stackid_anchor/parameters
ob0=$(cat $A/orphan_blocks)
ow0=$(cat $A/orphan_works)
check "held tasks: rmmod stackid while they sleep" rmmod stackid
ob=$(cat $A/orphan_blocks)
check "held tasks: their works outlive the module, in $((ob - ob0)) block(s)" \
	test "$ob" -gt "$ob0"
check "held tasks: rmmod stackid_anchor fails while they sleep" \
	sh -c '! rmmod stackid_anchor'
check "held tasks: modprobe stackid while they sleep" load
kill ${probe:-} ${holder:-} 2>/dev/null
unheld >/dev/null	# their works run as they die
ob2=$(cat $A/orphan_blocks)
ow2=$(cat $A/orphan_works)
check "held tasks let go: their works let go, their blocks freed ($((ow2 - ow0)) works, blocks $ob0 -> $ob -> $ob2)" \
	test "$ob2" -le "$ob0" -a "$ow2" -gt "$ow0"
# and, with nothing left to wait for, both modules unload
rmmod stackid
if [ "$ob0" = 0 ]; then
	check "held tasks let go: rmmod stackid_anchor" rmmod stackid_anchor
else
	pass "held tasks let go: rmmod stackid_anchor # SKIP $ob0 block(s) of earlier tests still wait"
fi
check "held tasks let go: modprobe stackid" load
rm -f /tmp/held.*

# With resolve=N (the floor) frames stay raw and no file is read; a
# sample goes to task context only to name its cgroup: once per CPU for
# the one cgroup here (cgroups.c), plus those taken on a CPU while its
# first one waited for its task (more the slower the guest): at most one
# per CPU and 5 % of the samples, as for the far note.
echo N >/sys/module/stackid/parameters/resolve
$S reset
spawn /stackid/bidfar
record /tmp/bidfar-off -F 199 -p "$pid" -d 500
kill "$pid"
echo Y >/sys/module/stackid/parameters/resolve
d=$(counter /tmp/bidfar-off.out deferred)
n=$(counter /tmp/bidfar-off.out samples)
check "resolve=N: raw IPs only, deferred only to name the cgroup ($d of $n, cgroup records $(counter /tmp/bidfar-off.out cgroup_records))" \
	test "${d:-999999}" -le "$(($(grep -c ^processor /proc/cpuinfo) + ${n:-0} / 20))" -a \
	"$(counter /tmp/bidfar-off.out frames_valid)" = 0 -a \
	"$(counter /tmp/bidfar-off.out parses)" = 0

# The build-id cache notices a rewritten file: flip a byte of a mapped
# library's build-id in place and the next samples carry the new one.
mkdir -p /tmp/lx
cp /stackid/libchain64.so /tmp/lx/
export LD_LIBRARY_PATH=/tmp/lx
spawn /stackid/chain64
unset LD_LIBRARY_PATH
lib=$(sed -n 's/^lib_spin \([0-9a-f]*\) .*/\1/p' /stackid/expect/chain64)
record /tmp/lx1 -F 199 -p "$pid" -d 1000
$S buildid /tmp/lx1.rec "$pid" "$lib" 80
new=$($S flipbid /tmp/lx/libchain64.so "$lib")
record /tmp/lx2 -F 199 -p "$pid" -d 1000
echo "# rewritten build-id: $lib -> $new"
$S buildid /tmp/lx2.rec "$pid" "$new" 80
kill "$pid"

# Unfiltered: samples of idle CPUs are counted, not walked (kernel
# threads at work are recorded: nmi.sh, with a kernel thread of its own).
record /tmp/all -F 99 -d 1000
nomm=$(counter /tmp/all.out dropped_no_mm)
check "idle samples counted as dropped_no_mm ($nomm)" test "${nomm:-0}" -gt 0
rmmod stackid
