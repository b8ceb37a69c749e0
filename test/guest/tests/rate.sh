# SPDX-License-Identifier: GPL-2.0
# Frequency: a busy process's samples per second of the time it ran track
# the set frequency within 20%. A loaded host stops a TCG guest's vCPUs
# now and then, and the guest cannot tell (its clock runs on): the
# spinner notes each time its own clock jumped (sidcheck spinclock), and
# the rate is taken over the time it really ran; a timer that fires late
# after such a gap adds at most one sample for it. Drops: a tiny ring
# with no reader drops and counts.
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
	set -- $($S rate /tmp/r$hz.rec "$pid" /tmp/gaps)
	# N samples, RATE per second run, RUN seconds run, GAPS in the span
	check "$hz Hz: $2 samples/s of the ${3}s it ran ($1 samples, $4 gaps), within 20%" \
		awk -v n="$1" -v run="$3" -v g="$4" -v f=$hz 'BEGIN {
			e = f * run; exit !(n > 1 && n - 1 >= e * 0.8 &&
					    n - 1 <= e * 1.2 + g) }'
done
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
