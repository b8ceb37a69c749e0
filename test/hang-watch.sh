#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test/hang-watch.sh WORK QEMU-PID SECONDS: while test/vm.sh's guest
# runs, watch its heartbeat (WORK/beat.log: the guest's third serial
# port, a dot every 5 seconds, test/guest/init). When no beat has come
# for SECONDS, the guest is hung: ask QEMU's monitor (the pipe WORK/mon,
# whose output test/vm.sh copies to WORK/mon.log) where each vCPU is,
# eight times, and which bytes memory holds there; write it all to
# WORK/hang.txt for test/vm.sh to judge (hang_not_ours, test/lib.sh);
# and end the guest (`quit`) instead of waiting for the run's timeout.
work=$1 qpid=$2 secs=$3
beat=$work/beat.log
last=-1
since=$(date +%s)
while kill -0 "$qpid" 2>/dev/null; do
	sleep 5
	size=$(stat -c %s "$beat" 2>/dev/null || echo 0)
	now=$(date +%s)
	if [ "$size" != "$last" ]; then
		last=$size
		since=$now
		continue
	fi
	[ $((now - since)) -ge "$secs" ] || continue

	exec 7>"$work/mon.in"
	off=$(stat -c %s "$work/mon.log" 2>/dev/null || echo 0)
	for i in 1 2 3 4 5 6 7 8; do
		echo "info registers -a" >&7
		sleep 0.5
	done
	sleep 2
	# "cpu N rip R", one line a vCPU a sample
	tail -c +$((off + 1)) "$work/mon.log" | tr -d '\r' |
		awk 'match($0, /CPU#[0-9]+/) { cpu = substr($0, RSTART + 4, RLENGTH - 4) }
			match($0, /RIP=[0-9a-f]+/) { print "cpu", cpu, "rip", substr($0, RSTART + 4, RLENGTH - 4) }' \
			>"$work/hang.samples"
	off=$(stat -c %s "$work/mon.log")
	for r in $(awk '{ print $4 }' "$work/hang.samples" | sort -u); do
		echo "x/8bx 0x$r" >&7
		sleep 0.5
	done
	sleep 2
	{
		echo "no heartbeat for $((now - since)) s"
		cat "$work/hang.samples"
		# "bytes R: 0x0f 0x1f ...", what memory holds at each RIP
		tail -c +$((off + 1)) "$work/mon.log" | tr -d '\r' |
			grep -o -E '^[0-9a-f]{16}: (0x[0-9a-f]{2} ?)+' |
			sed 's/^/bytes /'
		tr -d '\r' <"$beat" | grep '^int3-path '
	} >"$work/hang.txt.tmp"
	mv "$work/hang.txt.tmp" "$work/hang.txt"
	echo quit >&7
	exit 0
done
