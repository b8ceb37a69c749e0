# SPDX-License-Identifier: GPL-2.0
# Frequency: a busy process's samples come at the set frequency: the
# time from one of its samples to the next is, in the median, within 20%
# of the period asked for; it takes at most 20% more samples than the
# time it ran holds periods; and the module dropped at most 2% as many
# samples as it delivered of it (the accounting identity, checked by
# record, says every timer that reached the module is one or the other).
#
# The host stops a TCG guest's vCPUs now and then, and the guest cannot
# tell (its clock runs on): the spinner notes each time its own clock
# jumped (sidcheck spinclock). The rate is taken over the time it really
# ran (a timer that fires late after such a gap adds at most one sample
# for it), and the median over the intervals that hold no such gap of a
# fifth of the period or more (shorter ones cannot move an interval out
# of the 20%; a sample's own cost is one).
#
# Not a lower bound on the rate: a cold CI run (7.2 line, background
# builds beside it) took 196 samples a second of the time the spinner ran
# at 250 Hz. When the timer fires late by more than a period,
# hrtimer_forward skips the periods it missed, before the module is
# called: the guest cannot tell that from a timer that never fired. The
# module's own parts are the period, which the median checks, and what
# it did with each timer that reached it, which the identity and the
# drops check. A host that left fewer than 20 intervals without such a
# gap gets a SKIP, said so (three busy loops at nice 0 beside the guest
# left 3 of 195 at 49 Hz, and 40 of 748 at 250 Hz).
#
# Drops: a tiny ring with no reader drops and counts. The handler's CPU
# budget: below.
. /stackid/lib.sh
load
$S spinclock /tmp/gaps >/tmp/spawn.pid &
i=0
while [ ! -s /tmp/spawn.pid ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
pid=$(cat /tmp/spawn.pid)
for hz in 49 250; do
	record /tmp/r$hz -F $hz -p "$pid" -d 4000
done
kill -TERM "$pid"
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
for hz in 49 250; do
	p=$((1000000 / hz))
	set -- $($S rate /tmp/r$hz.rec "$pid" /tmp/gaps $((p / 5)))
	# N samples, RATE per second run, RUN seconds run, GAPS in the span,
	# MEDIAN microseconds from a sample to the next over CLEAN intervals
	# that hold no gap of a fifth of the period or more
	if [ -n "$6" ] && [ "$1" -gt 1 ] && [ "$6" -lt 20 ]; then
		pass "$hz Hz: # SKIP the host stopped the guest for $((p / 5)) us or more in all but $6 of $(($1 - 1)) intervals ($4 gaps): too few to judge the period"
	else
		check "$hz Hz: a sample every $5 us in the median of $6 intervals without a gap of $((p / 5)) us, within 20% of $p" \
			awk -v m="$5" -v p=$p 'BEGIN { exit !(m >= p * 0.8 && m <= p * 1.2) }'
	fi
	check "$hz Hz: $2 samples/s of the ${3}s it ran ($1 samples, $4 gaps), at most 20% over" \
		awk -v n="$1" -v run="$3" -v g="$4" -v f=$hz 'BEGIN {
			exit !(n > 1 && n - 1 <= f * run * 1.2 + g) }'
	# the module's drops that a sample of the spinner could meet
	lost=0
	for c in dropped_ring_full dropped_nested dropped_no_regs dropped_stale; do
		lost=$((lost + $(counter /tmp/r$hz.out $c)))
	done
	check "$hz Hz: samples the module dropped ($lost) at most 2% of the spinner's $1" \
		awk -v l=$lost -v n="$1" 'BEGIN { exit !(n > 1 && l * 50 <= n) }'
done
rmmod stackid

# The handler's CPU budget (max_cpu_percent, ABI 2.7). With two busy
# chains at 9999 Hz and a budget of 1 %, each CPU's handler time is at
# most 1 % of the time sampling was on, plus the 10 ms a CPU may run
# ahead and its last sample's own time (20 ms allowed for that): the
# module's cost histogram sums it. Without a budget the same run costs
# several times that (about 7 us a sample, 10,000 a second a CPU). The
# samples it could not pay for are dropped and counted, and the identity
# holds. At the default (25 %) and 999 Hz, few are dropped so: 27 of
# 3,914 on the debug kernel (KASAN, lockdep: 123 us a walked sample),
# where a run's first samples meet cold caches and its files' misses.
load max_cpu_percent=1
spawn /stackid/chain64
p1=$pid
spawn /stackid/chain64
p2=$pid
$S reset
u0=$(cut -d ' ' -f 1 /proc/uptime)
record /tmp/bud -F 9999 -d 3000
u1=$(cut -d ' ' -f 1 /proc/uptime)
$S cost >/tmp/bud.cost
set -- $(sed -n 's/^cost samples \([0-9]*\) mean_ns \([0-9]*\).*/\1 \2/p' /tmp/bud.cost)
spent=$((${1:-0} * ${2:-0} / 1000000))
cpus=$(grep -c '^processor' /proc/cpuinfo)
bound=$(awk -v a="$u0" -v b="$u1" -v n="$cpus" \
	'BEGIN { printf "%d", n * ((b - a + 0.01) * 1000 * 0.01 + 10 + 20) }')
budget=$(counter /tmp/bud.out dropped_budget)
check "max_cpu_percent=1 at 9999 Hz: the handler took $spent ms of $cpus CPUs' $(awk -v a="$u0" -v b="$u1" 'BEGIN { print b - a }') s, at most $bound ms ($1 samples walked)" \
	test "${1:-0}" -gt 0 -a "$spent" -le "$bound"
check "and the samples beyond it dropped, counted as dropped_budget (${budget:-none})" \
	test "${budget:-0}" -gt 0
echo 0 >/sys/module/stackid/parameters/max_cpu_percent
$S reset
record /tmp/bud0 -F 9999 -d 1000
check "max_cpu_percent=0: no limit, none dropped so ($(counter /tmp/bud0.out dropped_budget))" \
	test "$(counter /tmp/bud0.out dropped_budget)" = 0
check "max_cpu_percent refuses 101" \
	sh -c '! echo 101 >/sys/module/stackid/parameters/max_cpu_percent'
check "and keeps its value (0)" \
	grep -qx 0 /sys/module/stackid/parameters/max_cpu_percent
load
check "the default is 25" \
	grep -qx 25 /sys/module/stackid/parameters/max_cpu_percent
record /tmp/bud25 -F 999 -d 2000
n=$(counter /tmp/bud25.out samples)
d=$(counter /tmp/bud25.out dropped_budget)
check "at 25 % and 999 Hz on the same chains: at most 5% of the samples dropped so ($d of $n)" \
	test "${n:-0}" -gt 0 -a "$((${d:-0} * 20))" -le "${n:-0}"
kill "$p1" "$p2"
rmmod stackid

load ring_kb=8
spawn /stackid/chain64
$S reset
$S enable-idle 3000 >/tmp/drop.out
full=$(counter /tmp/drop.out dropped_ring_full)
check "8 KiB ring, no reader: drops counted ($full)" test "${full:-0}" -gt 0
check "and samples == delivered + dropped" grep -q '^stat identity ok' /tmp/drop.out
kill "$pid"
rmmod stackid
