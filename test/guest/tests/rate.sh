# SPDX-License-Identifier: GPL-2.0
# Frequency: a busy process's samples per second track the set frequency
# within 20%. Drops: a tiny ring with no reader drops and counts.
. /stackid/lib.sh
load
spawn /stackid/chain64
for hz in 49 250; do
	record /tmp/r$hz -F $hz -p "$pid" -d 4000
	rate=$($S rate /tmp/r$hz.rec "$pid" | cut -d' ' -f2)
	check "$hz Hz: measured $rate samples/s, within 20%" \
		awk -v r="$rate" -v f=$hz 'BEGIN { exit !(r > f * 0.8 && r < f * 1.2) }'
done
rmmod stackid

load ring_kb=8
$S reset
$S enable-idle 3000 >/tmp/drop.out
full=$(counter /tmp/drop.out dropped_ring_full)
check "8 KiB ring, no reader: drops counted ($full)" test "${full:-0}" -gt 0
check "and samples == delivered + dropped" grep -q '^stat identity ok' /tmp/drop.out
kill "$pid"
rmmod stackid
