# SPDX-License-Identifier: GPL-2.0
# The sampler end to end: known programs come back as exactly their
# build-ids and symbol offsets, 64-bit and compat 32-bit.
. /stackid/lib.sh
load

# The 64-bit chain in packed samples (8-byte frames, ABI 2.4), the
# 32-bit one in 16-byte frames: each exact, and each in its own kind.
for m in 64 32; do
	spawn /stackid/chain$m
	pk=
	[ $m = 64 ] && pk=-P
	record /tmp/c$m -F 199 -p "$pid" -d 3000 $pk
	$S chain /tmp/c$m.rec "$pid" chain$m /stackid/expect/chain$m 80
	set -- $($S kinds /tmp/c$m.rec)
	if [ $m = 64 ]; then
		check "packed: all $2 samples of 8-byte frames ($4)" \
			test "$2" -gt 0 -a "$2" = "$4"
	else
		check "not asked for: none of $2 samples packed ($4)" \
			test "$2" -gt 0 -a "$4" = 0
	fi
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
# Reads of 16 MiB: a read sampled more than 72 times before its task is
# back in user space (8 slots, each a sample and its 8 joins) still runs
# out of slots, and a 64 MiB read took up to 88 samples under TCG (the
# first, before the task's work has put its file in the CPU's cache); a
# 16 MiB one about a quarter of that: 3 of the 8 slots, 5 at half the
# speed.
cp /stackid/sysloop /tmp/sysloop-join
rm -f /tmp/go
mkfifo /tmp/go
spawn /tmp/sysloop-join zero 16 12 /tmp/go
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
what="$joined joined, $deferred deferred, $noslot without a slot, $raw frames not resolved, $3 samples, $7% valid"
check "samples in one system call: none without a slot, every frame named ($what)" \
	test "$noslot" = 0 -a "${raw:-0}" = 0 -a "$3" -gt 0
# fewer than 4 deferred (a machine much faster than TCG): the reads were
# too short for samples to wait together
if [ "${deferred:-0}" -ge 4 ]; then
	check "samples in one system call joined the waiting one ($what)" \
		test "${joined:-0}" -gt 0
else
	pass "samples in one system call joined the waiting one # SKIP too few deferred ($what)"
fi
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
