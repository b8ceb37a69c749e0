#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test/hang-watch.sh WORK QEMU-PID SECONDS VCPUS: while a guest of
# test/vm.sh or test/system.sh runs, watch its heartbeat (WORK/beat.log:
# the guest's third serial port, a dot every 5 seconds, and the lines of
# test/guest/int3-path.sh). When no beat has come for SECONDS (twice
# that before the first one: the guest is still booting), the guest is
# hung: ask QEMU's monitor (the pipe WORK/mon, whose output the caller
# copies to WORK/mon.log) where each of its VCPUS vCPUs is, 16 times,
# and which bytes memory holds there; write it all to WORK/hang.txt for
# the caller to judge (hang_not_ours, test/lib.sh); and end the guest
# (`quit`) instead of waiting for the run's timeout.
work=$1 qpid=$2 secs=$3 vcpus=$4
beat=$work/beat.log
last=0
since=$(date +%s)
while kill -0 "$qpid" 2>/dev/null; do
	sleep 2
	size=$(stat -c %s "$beat" 2>/dev/null || echo 0)
	now=$(date +%s)
	if [ "$size" != "$last" ]; then
		last=$size
		since=$now
		continue
	fi
	limit=$secs
	[ "$size" = 0 ] && limit=$((2 * secs))
	[ $((now - since)) -ge "$limit" ] || continue

	# read-write: opening a pipe write-only waits for a reader, and
	# QEMU (its reader) may have exited since the check above
	exec 7<>"$work/mon.in"
	# what the monitor answered since offset $off of mon.log
	answers() { tail -c +$((off + 1)) "$work/mon.log" | tr -d '\r'; }
	off=$(stat -c %s "$work/mon.log" 2>/dev/null || echo 0)
	for i in $(seq 16); do
		echo "info registers -a" >&7
		sleep 0.5
	done
	# answers: up to 20 s more on a loaded host
	for i in $(seq 40); do
		[ "$(answers | grep -c 'RIP=')" -ge $((16 * vcpus)) ] && break
		sleep 0.5
	done
	# "cpu N rip R", one line a vCPU a sample
	answers | awk 'match($0, /CPU#[0-9]+/) { cpu = substr($0, RSTART + 4, RLENGTH - 4) }
			match($0, /RIP=[0-9a-f]+/) { print "cpu", cpu, "rip", substr($0, RSTART + 4, RLENGTH - 4) }' \
			>"$work/hang.samples"
	off=$(stat -c %s "$work/mon.log")
	rips=$(awk '{ print $4 }' "$work/hang.samples" | sort -u)
	for r in $rips; do
		echo "x/8bx 0x$r" >&7
		sleep 0.5
	done
	for i in $(seq 40); do
		[ "$(answers | grep -c -E '^[0-9a-f]{16}: ')" -ge $(wc -w <<<"$rips") ] &&
			break
		sleep 0.5
	done
	{
		echo "no heartbeat for $((now - since)) s"
		echo "vcpus $vcpus"
		cat "$work/hang.samples"
		# "bytes R: 0x0f 0x1f ...", what memory holds at each RIP
		answers | grep -o -E '^[0-9a-f]{16}: (0x[0-9a-f]{2} ?)+' |
			sed 's/^/bytes /'
		tr -d '\r' <"$beat" | grep '^int3-path '
	} >"$work/hang.txt.tmp"
	mv "$work/hang.txt.tmp" "$work/hang.txt"
	echo quit >&7
	exit 0
done
