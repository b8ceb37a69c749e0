# SPDX-License-Identifier: GPL-2.0
# `make bench`: figures, measured side by side in one run, printed as
# "# bench ..." lines. Not a test: only "ran" is asserted.
. /stackid/lib.sh

figures() {	# LABEL RECFILE PID: frames, cost and fallback reasons
	f=$($S frames "$2.rec" "$3")
	c=$($S cost)
	hit=$(counter "$2.out" bidcache_hit)
	miss=$(counter "$2.out" bidcache_miss)
	echo "# bench $1: $f"
	echo "# bench $1: $c"
	echo "# bench $1: bidcache hit $hit miss $miss" \
		"($(awk -v h="$hit" -v m="$miss" 'BEGIN { if (h + m) printf "%.1f%%", 100 * h / (h + m) }'))"
	echo "# bench $1: samples finished in task context:" \
		"$(counter "$2.out" deferred)"
	grep '^stat frames_ip_[a-z_]* [1-9]' "$2.out" |
		sed "s/^stat /# bench $1: fallback /"
}

load
spawn /stackid/deep
deep=$pid
for res in Y N; do
	echo $res >/sys/module/stackid/parameters/resolve
	$S reset
	record /tmp/deep$res -F 999 -p "$deep" -d 5000 >/dev/null
	figures "16-frame stack, resolve=$res" /tmp/deep$res "$deep"
done
echo Y >/sys/module/stackid/parameters/resolve
kill "$deep"

spawn /stackid/chain64
c64=$pid
spawn /stackid/chain32
c32=$pid
$S reset
record /tmp/known -F 499 -d 5000 >/dev/null
figures "known programs (chain64)" /tmp/known "$c64"
figures "known programs (chain32)" /tmp/known "$c32"

# A busy mixed workload on top: shells, compression, hashing, the
# spinners, short-lived processes.
spawn /stackid/deep
( while :; do busybox gzip -c /stackid/sidcheck >/dev/null; done ) &
g=$!
( while :; do busybox md5sum /stackid/chain64 >/dev/null; done ) &
m=$!
( while :; do i=0; while [ $i -lt 200 ]; do i=$((i + 1)); done; done ) &
l=$!
$S reset
record /tmp/mixed -F 499 -d 6000 >/dev/null
figures "mixed workload (all processes)" /tmp/mixed 0
kill $g $m $l "$pid" "$c64" "$c32"
pass "bench ran"
