#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test/nmi-sender.sh MON RESULTS QEMU-PID: while a guest test runs
# between the lines "# nmi-start" and "# nmi-stop" of RESULTS (the
# guest's TAP port), send QEMU's monitor (a pipe chardev: MON.in and
# MON.out) the `nmi` command at a steady rate (NMI_RATE a second, default
# 1000), which injects an NMI into every vCPU. The test build of the
# module routes those into its sampling handler (src/testhook.c). Prints
# how many it sent. The caller reads MON.out (test/vm.sh: into MON.log).
mon=$1 res=$2 qpid=$3
rate=${NMI_RATE:-1000}
# read-write: opening a pipe write-only would wait for its reader, QEMU,
# for ever if QEMU never started or has already exited (then what is
# written stays in the pipe, and the loop below ends within 100 NMIs)
exec 7<>"$mon.in"
# a pipe nobody writes: read -t on it is a sleep without a fork
tick=$(mktemp -u)
mkfifo "$tick"
exec 9<>"$tick"
rm -f "$tick"
period=$(awk -v r="$rate" 'BEGIN { printf "%.4f", 1 / r }')
sent=0
state=wait
while kill -0 "$qpid" 2>/dev/null; do
	case $state in
	wait)
		if grep -q '^# nmi-start' "$res" 2>/dev/null; then
			state=send
		else
			read -t 0.2 -u 9
		fi ;;
	send)
		for i in $(seq 100); do
			echo nmi >&7 || break 2
			read -t "$period" -u 9
		done
		sent=$((sent + 100))
		grep -q '^# nmi-stop' "$res" 2>/dev/null && break ;;
	esac
done
echo "nmi-sender: $sent NMIs sent"
