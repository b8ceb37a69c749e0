#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Not in `make check`: shows the QEMU fault behind the guest kernels' own
# int3 oopses that test/vm.sh and test/system.sh boot again
# (int3_not_ours, test/lib.sh). No module of ours is involved.
#
# A guest with nothing but busybox switches the kernel's scheduler and
# interrupt tracepoints on and off as fast as it can (each switch
# rewrites their static-branch sites in try_to_wake_up(), __schedule()
# and the interrupt paths: int3 first, then the new bytes, then the first
# byte, with an IPI to every CPU between), while pipe pairs keep both
# vCPUs in exactly that code. The kernel's protocol leaves no int3 to a
# CPU that follows the architecture once the last IPI is done. Under
# QEMU's multi-threaded TCG a vCPU can still run the int3 after that
# (the oops's code bytes, read from memory, show the finished jump or
# NOP), and the kernel, finding no rewrite in progress, oopses ("Oops:
# int3"). An upstream fix to TCG's page locking ("accel/tcg: Always lock
# pages before translation", QEMU 8.1) is not in Debian 12's 7.2 stable
# series; QEMU 10 has it, and took such an oops too, far less often.
# 6.1's and 5.10's kernels hang instead of oopsing: their kprobe int3
# handler, finding no int3 in memory, backs the vCPU up to run the
# instruction again, and the vCPU runs its stale int3 again, for ever
# (README, "Guest kernels that take an int3 no rewrite explains").
#
#   TR_QEMUS    which QEMUs (default "host trixie"): host is the
#               qemu-system-x86_64 the suite uses (Debian 12's 7.2);
#               trixie the one of Debian 13 (10.0): test/qemu-trixie.sh
#   TR_BOOTS    boots per QEMU (default 4)
#   TR_SECONDS  seconds of switching per boot (default 45)
#   TR_KERNEL   the kernel line booted (default 6.12; test/kernels.conf)
#
# Each boot ends at the first oops (oops=panic) or after TR_SECONDS (and
# the switch under way: a few seconds more, with the load).
# Prints one line per boot (switches made, seconds until an int3 oops,
# its RIP; any other oops; a boot that stopped without either, a reset
# or a hang) and a summary per QEMU; the logs: build/tcg-race/. Exit
# status: 0 if every boot got as far as switching (whatever it found
# then), 1 if the harness broke (bad settings, no QEMU, a guest that
# never started switching).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"
cd "$top" || exit 1
test/require.sh "test/tcg-race.sh" || exit 1
out=$top/build/tcg-race
rm -rf "$out"
mkdir -p "$out/root/bin" "$out/root/proc" "$out/root/sys" "$out/root/dev"

name=${TR_KERNEL:-6.12}
kver=$(kernel_of "$name")
[ -n "$kver" ] || { echo "tcg-race: no kernel line '$name'" >&2; exit 1; }
vmlinuz=$(kernel_image "$kver")
[ -f "$vmlinuz" ] || { echo "tcg-race: no $vmlinuz (run test/setup.sh)" >&2; exit 1; }
cp "$vmlinuz" "$out/vmlinuz"

bb=$(command -v busybox) || { echo "tcg-race: busybox missing" >&2; exit 1; }
file -L "$bb" | grep -q 'statically linked' ||
	{ echo "tcg-race: $bb is not static (busybox-static)" >&2; exit 1; }
cp "$bb" "$out/root/bin/busybox"
cat >"$out/root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tracefs tracefs /sys/kernel/tracing
dur=$(sed -n 's/.*tr_seconds=\([0-9]*\).*/\1/p' /proc/cmdline)
# context switches and wakeups on both vCPUs, all the time
taskset -c 0 sh -c 'yes | cat >/dev/null' &
taskset -c 1 sh -c 'yes | cat >/dev/null' &
taskset -c 1 sh -c 'yes | cat >/dev/null' &
sleep 1
[ "$(pidof yes | wc -w)" = 3 ] || { echo "tcg-race: no load"; poweroff -f; }
cd /sys/kernel/tracing/events || poweroff -f
t0=$(cut -d' ' -f1 /proc/uptime)
echo "tcg-race: switching from $t0"
end=$((${t0%.*} + dur))
n=0
# the clock is read every 4 switches: with the load, a switch can take
# a second or more
while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
	echo 1 >sched/enable
	echo 0 >sched/enable
	echo 1 >irq/enable
	echo 0 >irq/enable
	n=$((n + 4))
	[ $((n % 20)) = 0 ] && echo "tcg-race: $n switches made"
done
echo "tcg-race: $n switches in $(($(cut -d. -f1 /proc/uptime) - ${t0%.*})) s, no oops"
poweroff -f
EOF
chmod 755 "$out/root/init"
(cd "$out/root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$out/initrd.gz" ||
	exit 1

boot() {	# QEMU LOG: one boot (QEMU a command); qemu's exit status
	local cmd=$1 log=$2 args
	args=(-machine q35 -cpu max -m 512 -smp 2 -display none -no-reboot
		-kernel "$out/vmlinuz" -initrd "$out/initrd.gz"
		-append "console=ttyS0 quiet panic=-1 oops=panic nokaslr tsc=reliable tr_seconds=$seconds"
		-d cpu_reset,guest_errors -D "$log.qemu-d" -serial "file:$log")
	# one guest at a time, as test/vm.sh
	flock /run/lock/stackid-qemu.lock timeout $((seconds + 600)) \
		"$cmd" "${args[@]}" </dev/null >"$log.qemu" 2>&1
}

seconds=${TR_SECONDS:-45}
boots=${TR_BOOTS:-4}
case $seconds$boots in
*[!0-9]*) echo "tcg-race: TR_SECONDS and TR_BOOTS are numbers" >&2; exit 1 ;;
esac
broke=0
for q in ${TR_QEMUS:-host trixie}; do
	qemu=$(qemu_of "$q") ||
		{ echo "tcg-race: no QEMU '$q' (host, trixie)" >&2; exit 1; }
	ver=$("$qemu" --version | head -n 1)
	[ -n "$ver" ] || { echo "tcg-race: no QEMU $q ($qemu)" >&2; exit 1; }
	echo "# $q: $ver; $kver, $seconds s of switching per boot"
	int3=0
	other=0
	stopped=0
	total=0
	for i in $(seq "$boots"); do
		log=$out/$q-$i.log
		boot "$qemu" "$log"
		rc=$?
		c=$(tr -d '\r' <"$log")
		# the uptime the switching began at, the switches made (every
		# 20), and the first oops's line and stamp
		from=$(sed -n 's/^tcg-race: switching from \([0-9.]*\).*/\1/p' <<<"$c")
		n=$(sed -n 's/^tcg-race: \([0-9]*\) switches in \([0-9]*\) s, no oops.*/\1 \2/p' <<<"$c")
		made=$(sed -n 's/.*tcg-race: \([0-9]*\) switches made.*/\1/p' <<<"$c" | tail -n 1)
		made=${made:-0}
		oops=$(grep -m 1 -E "$INT3_RE|Oops|general protection|Kernel panic" <<<"$c")
		at=$(grep -o -m 1 -E '^\[ *[0-9]+\.[0-9]+\]' <<<"$oops" | tr -d '[] ')
		rip=$(grep -m 1 'RIP: 0010:' <<<"$c" | sed 's/.*RIP: 0010://')
		if [ -z "$from" ]; then
			broke=1
			echo "$q boot $i: never started switching (qemu exit $rc; $log)${oops:+: ${oops#*] }}"
			continue
		fi
		when="after $made to $((made + 20)) switches"
		[ -n "$at" ] &&
			when+=", $(awk -v a="$from" -v b="$at" 'BEGIN {printf "%.1f", b - a}') s"
		if grep -q -E "$INT3_RE" <<<"$oops"; then
			int3=$((int3 + 1))
			total=$((total + made))
			echo "$q boot $i: int3 oops $when, at ${rip:-(no RIP)}"
		elif [ -n "$oops" ]; then
			other=$((other + 1))
			total=$((total + made))
			echo "$q boot $i: other oops $when: ${oops#*] }, at ${rip:-(no RIP)}"
		elif [ -n "$n" ]; then
			total=$((total + ${n% *}))
			echo "$q boot $i: ${n% *} switches in ${n#* } s, no oops"
		else
			stopped=$((stopped + 1))
			total=$((total + made))
			if [ "$rc" = 124 ]; then
				echo "$q boot $i: hung without an oops $when (no end within $((seconds + 600)) s; $log)"
			else
				echo "$q boot $i: stopped without an oops $when (qemu exit $rc: a reset; $log.qemu-d)"
			fi
		fi
	done
	echo "# $q: $boots boots, about $total switches: $int3 int3 oopses, $other other oopses, $stopped stopped (reset or hung) without one"
done
exit $broke
