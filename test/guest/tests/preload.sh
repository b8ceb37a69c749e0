# SPDX-License-Identifier: GPL-2.0
# The system's libraries' unwind tables, loaded before sampling starts
# (stackid record, rec_unwind_preload()). A program with frame pointers
# that spends most of its time in Debian's libc (fp_qsort: _start ->
# libc -> main -> run -> qsort -> libc's merge sort, no frame pointers
# -> cmp), as the demo's does, is already running when a system-wide
# recording starts. Without the preload, a walk from libc stopped there
# until the stream had named libc's path and the recorder had compiled
# and loaded its table: the first tenths of a second of every recording
# (the demo's first second had `demo_app;[libc.so.6]+0x2724a;main;...`;
# this test without the preload, in three recordings: of the first 20
# samples in libc, 0, 0 and 0 reached _start, and 73 to 81 of about
# 1,460 none; with it, 20 and 1,103 of 1,103). Judged by time, from the
# recording's first sample: of the first 20 samples in libc, >= 90 %
# reach _start through run, main and libc's frames (sidcheck early).
. /stackid/lib.sh
load
spawn /stackid/fp_qsort
q=$pid
sleep 1
d=2
while :; do
	stackid record -F 999 -d $d -o /tmp/pre.cap 2>/tmp/pre.err
	rc=$?
	$S early /tmp/pre.cap $q /stackid/expect/fp_qsort 20 >/tmp/pre.out
	n=$(sed -n 's/^# early [^:]*: \([0-9]*\) samples .*/\1/p' /tmp/pre.out)
	[ "${n:-0}" -ge 20 ] || [ $d -ge 16 ] && break
	echo "# in $d s: ${n:-0} samples in libc: again"
	d=$((d * 2))
done
kill $q
wait 2>/dev/null
grep '^ *unwind tables' /tmp/pre.err | sed 's/^/# /'
check "stackid record ($d s, fp_qsort running before it)" test $rc = 0
check "the system's libraries' tables loaded before sampling" \
	grep -q '^ *unwind tables .* of the system.s before sampling' /tmp/pre.err
grep -v '^ok\|^not ok' /tmp/pre.out
grep '^ok\|^not ok' /tmp/pre.out
grep -q '^ok\|^not ok' /tmp/pre.out || fail "sidcheck early said nothing"
rmmod stackid
