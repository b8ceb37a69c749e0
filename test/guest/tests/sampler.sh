# SPDX-License-Identifier: GPL-2.0
# The sampler end to end: known programs come back as exactly their
# build-ids and symbol offsets, 64-bit and compat 32-bit.
. /stackid/lib.sh
load

for m in 64 32; do
	spawn /stackid/chain$m
	record /tmp/c$m -F 199 -p "$pid" -d 3000
	$S chain /tmp/c$m.rec "$pid" chain$m /stackid/expect/chain$m 80
	grep '^stat \(frames\|bidcache\|dropped\)' /tmp/c$m.out |
		sed 's/^/# /'
	kill "$pid"
done

# Build-ids of 8, 16 and 20 bytes come back exactly; a note far beyond
# the first page comes back exactly or as a raw IP, never wrong.
for b in bid8:80 bid16:80 bid20:80 bidfar:0; do
	prog=${b%:*}
	spawn /stackid/$prog
	record /tmp/$prog -F 199 -p "$pid" -d 1500
	$S buildid /tmp/$prog.rec "$pid" "$(cat /stackid/expect/$prog)" ${b#*:}
	kill "$pid"
done
far=$(counter /tmp/bidfar.out frames_ip_note_far)
check "far note counted as note_far ($far)" test "${far:-0}" -gt 0

# Unfiltered: idle and kernel-thread samples are counted, not walked.
record /tmp/all -F 99 -d 1000
nomm=$(counter /tmp/all.out dropped_no_mm)
check "kernel threads counted as dropped_no_mm ($nomm)" test "${nomm:-0}" -gt 0
rmmod stackid
