# SPDX-License-Identifier: GPL-2.0
# The build-id cache with hundreds of files: two processes whose stacks
# run through the same 300 shared libraries, on both CPUs. At steady
# state (the cache starts empty at each enable) at least 99% of cache
# lookups hit, every frame in those files
# resolves, and each build-id's path is reported once, however many
# CPUs and processes read it. Steady state starts once a 500 ms
# interval misses at most 1% (sidcheck record -s): a slow kernel (the
# debug one, a loaded host) takes longer to fill the cache, and a
# cache that thrashes never settles; the 4 s after that are measured.
. /stackid/lib.sh
load
spawn /stackid/manylibs /stackid/many
m1=$pid
spawn /stackid/manylibs /stackid/many
m2=$pid
$S record -F 499 -s 8000 -d 4000 -o /tmp/many.rec >/tmp/many.out 2>&1
echo "# cache settled after $(sed -n 's/^settled_ms //p' /tmp/many.out) ms"
check "300 libraries: samples == delivered + dropped" \
	grep -q '^stat identity ok' /tmp/many.out
mid() { sed -n "s/^mid $1 //p" /tmp/many.out; }
h0=$(mid bidcache_hit)
m0=$(mid bidcache_miss)
half=$(mid time_ns)
h1=$(counter /tmp/many.out bidcache_hit)
m1c=$(counter /tmp/many.out bidcache_miss)
echo "# until settled: $h0 hits, $m0 misses; whole recording: $h1 hits, $m1c misses"
check "300 libraries, once settled: cache hit rate >= 99% ($((h1 - ${h0:-0})) hits, $((m1c - ${m0:-0})) misses)" \
	awk -v h=$((h1 - ${h0:-0})) -v m=$((m1c - ${m0:-0})) -v ok="$h0" \
	'BEGIN { exit !(ok != "" && h + m > 1000 && h >= 0.99 * (h + m)) }'
set -- $($S frames /tmp/many.rec "$m1" "$half")
echo "# manylibs, once settled: $*"
check "300 libraries, once settled: >= 99.9% of frames valid ($7%)" \
	awk -v v="$7" 'BEGIN { exit !(v >= 99.9) }'
$S paths /tmp/many.rec >/tmp/many.paths
n=$(grep -c /stackid/many/ /tmp/many.paths)
dup=$(cut -d' ' -f1 /tmp/many.paths | sort | uniq -d | wc -l)
check "300 libraries: a path record for each of them ($n)" test "$n" = 300
check "no build-id's path reported twice ($dup twice)" test "$dup" = 0
kill "$m1" "$m2"
rmmod stackid
