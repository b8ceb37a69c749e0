# SPDX-License-Identifier: GPL-2.0
# Whole user stacks through code built without frame pointers (issue 20).
# Programs built as Debian builds its packages (Makefile: NOFP; -O2, no
# frame pointers, .eh_frame only), Debian's libc, libstdc++ and libgcc_s,
# and Debian's own python3 run together, recorded by `stackid record`,
# which compiles and loads each file's unwind table as it learns the
# file's path (ABI 2.2: STACKID_IOC_ADD_UNWIND). Checked from the capture
# by `sidcheck unwind`, on the samples whose innermost frame is the
# program's hot function (each walk's frames, how each was found, why it
# stopped):
#  - the known chain and the bench's 11-function chain, 64-bit: >= 95 %
#    carry the whole chain, exact build-ids and offsets, main's two
#    callers in libc and _start, and stop at the stack's end;
#  - the same chains, 32-bit (tables are for 64-bit tasks only): what a
#    walk by frame pointers finds, in every sample: frames of the chain
#    only, in order (it skips the functions without frame pointers: libc's
#    __libc_start_call_main keeps one, the stack's realignment needs it,
#    and every function below it is skipped), stopping at a frame pointer
#    that is none (BAD_FP) or at the end;
#  - a qsort callback: >= 95 % reach main through libc's frames;
#  - C++: >= 95 % of the std::sort lambda's samples, and of the samples
#    in libgcc_s's unwinder (a throw caught in the loop), reach main;
#  - python3 -S running a pure-Python loop: >= 95 % reach Py_BytesMain
#    and _start;
#  - frames_table counted, and the accounting identity.
# The samples before the first one that passes are the warm-up (the
# tables come one file at a time, as the walk reaches each file): not
# judged, and at most half of the samples.
. /stackid/lib.sh
load
t0=$(date +%s)
E=/stackid/expect
pids=
spawn /stackid/nofp_chain64
c64=$pid
spawn /stackid/nofp_chain32
c32=$pid
/stackid/nofp_bench64 chain 1000000000 >/dev/null &
b64=$!
/stackid/nofp_bench32 chain 1000000000 >/dev/null &
b32=$!
spawn /stackid/nofp_qsort
qs=$pid
spawn /stackid/nofp_sort
cx=$pid
pids="$c64 $c32 $b64 $b32 $qs $cx"
py=
if [ -x /usr/bin/python3 ] && [ -f $E/python3 ]; then
	spawn python3 -S -c 'import os
print(os.getpid(), flush=True)
x = 0
while 1:
    x = (x + 1) & 0xffff'
	py=$pid
	pids="$pids $py"
	{ echo "any * 0 ffffffffffffffff"; cat $E/python3; } >/tmp/python3
fi

# Enough samples of each program to judge (>= 100 each), however slow
# the guest: 8 s, doubled up to 32 s.
s=8
while :; do
	stackid record -F 199 -d $s -o /tmp/uw.cap 2>/tmp/uw.err
	rc=$?
	least=
	for p in $pids; do
		n=$($S frames /tmp/uw.cap "$p" | sed -n 's/^frames samples \([0-9]*\) .*/\1/p')
		[ -z "$least" ] || [ "${n:-0}" -lt "$least" ] && least=${n:-0}
	done
	[ "$least" -ge 100 ] || [ $s -ge 32 ] && break
	echo "# at least $least samples of each program in $s s: again"
	s=$((s * 2))
done
check "stackid record ($s s, all programs at once)" test $rc = 0
grep -E '^ *(samples|delivered|frames_valid|frames_table|frames_signal|stop_|accounting) ' \
	/tmp/uw.err | sed 's/^/# /'
check "accounting: samples == delivered + dropped" \
	grep -q '^ *accounting *ok ' /tmp/uw.err
ft=$(sed -n 's/^ *frames_table *\([0-9]*\).*/\1/p' /tmp/uw.err)
$S hows /tmp/uw.cap >/tmp/uw.hows
sed 's/^/# capture: /' /tmp/uw.hows
ct=$(sed -n 's/^how table //p' /tmp/uw.hows)
check "frames_table counted (${ft:-0}), >= the capture's table frames (${ct:-0}), > 0" \
	test "${ft:-0}" -gt 0 -a "${ft:-0}" -ge "${ct:-0}"

for m in 64 32; do
	eval "c=\$c$m b=\$b$m"
	if [ $m = 64 ]; then
		$S unwind /tmp/uw.cap "$c" $E/nofp_chain$m 95 exact
		$S unwind /tmp/uw.cap "$b" $E/nofp_bench$m 95 exact
	else
		$S unwind /tmp/uw.cap "$c" $E/nofp_chain$m 100 fp
		$S unwind /tmp/uw.cap "$b" $E/nofp_bench$m 100 fp
	fi
done
$S unwind /tmp/uw.cap "$qs" $E/nofp_qsort 95 reach
$S unwind /tmp/uw.cap "$cx" $E/nofp_sort.lambda 95 reach
$S unwind /tmp/uw.cap "$cx" $E/nofp_sort.throw 95 reach
if [ -n "$py" ]; then
	$S unwind /tmp/uw.cap "$py" /tmp/python3 95 reach
else
	pass "python3 # SKIP no python3 in the guest"
fi
kill $pids
wait 2>/dev/null
rmmod stackid
echo "# unwind.sh took $(($(date +%s) - t0)) s"
