#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of the guest test kframes.sh: DIR holds the captures it sent
# back. This machine's `stackid report` names their kernel frames from
# the capture alone (the guest's kernel is not this one, and nothing of
# it is here): folded stacks of a getppid loop end in the system-call
# entry and handler, those of a tmpfs read loop in vfs_read; the cgroup
# capture names its cgroups. Prints TAP lines.
set -uo pipefail
dir=$1
top=$(cd "$(dirname "$0")/../../.." && pwd)
sid=$top/build/stackid

ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }
check() {	# check NAME CMD...
	local name=$1
	shift
	if "$@"; then ok "$name"; else nok "$name"; fi
}

# stats FILE: "TOTAL KTOTAL ORDERED" of sysloop's folded lines: samples,
# samples with kernel frames, those whose kernel frames all come after
# the user frames; then one count per pattern in PATTERNS (egrep on the
# kernel part, which starts ";" and ends ";").
stats() {
	awk -v pats="$2" '
	{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		if (line !~ /^sysloop;/) next
		total += n
		nf = split(line, f, ";")
		seen = 0; bad = 0; kp = ";"
		for (i = 2; i <= nf; i++) {
			if (f[i] ~ /_\[k\]$/) { seen = 1; kp = kp f[i] ";" }
			else if (seen) bad = 1
		}
		if (!bad) ordered += n
		if (!seen) next
		kt += n
		np = split(pats, p, " ")
		for (i = 1; i <= np; i++)
			if (kp ~ p[i]) c[i] += n
	}
	END {
		printf "%d %d %d", total, kt, ordered
		np = split(pats, p, " ")
		for (i = 1; i <= np; i++) printf " %d", c[i]
		print ""
	}' "$1"
}

# folded NAME: NAME.cap's folded report into NAME.folded (highest count
# first, as the report sorts it); its top 3 stacks with kernel frames
folded() {
	"$sid" report -i "$dir/$1.cap" -f folded >"$dir/$1.folded" \
		2>"$dir/$1.err" || nok "report -f folded $1.cap: $(cat "$dir/$1.err")"
	grep '_\[k\]' "$dir/$1.folded" | head -n 3 | sed 's/^/#   /'
}

for f in getppid.cap read.cap cg.cap; do
	[ -s "$dir/$f" ] || nok "$f came back from the guest"
done

# getppid: outermost kernel frame the syscall entry, then do_syscall_64;
# the handler itself in some samples
folded getppid
read -r t kt ord entry sysc handler < <(stats "$dir/getppid.folded" \
	'^;entry_SYSCALL_64[a-z_]*_\[k\]; ;do_syscall_64_\[k\]; getppid')
echo "# getppid: $t samples, $kt with kernel frames, entry $entry, do_syscall_64 $sysc, handler $handler"
check "getppid loop: kernel frames named from the capture ($kt of $t samples, >= 20)" \
	test "$kt" -ge 20 -a "$t" -ge 100
check "getppid loop: kernel frames after the user frames ($ord of $t)" \
	test "$ord" = "$t"
check "getppid loop: >= 80% start at entry_SYSCALL_64* ($entry of $kt)" \
	test $((entry * 100)) -ge $((kt * 80))
check "getppid loop: >= 80% through do_syscall_64 ($sysc of $kt)" \
	test $((sysc * 100)) -ge $((kt * 80))
check "getppid loop: the handler (*getppid*) named ($handler samples)" \
	test "$handler" -gt 0
"$sid" report -i "$dir/getppid.cap" >"$dir/getppid.text" 2>&1
check "text: kernel frames as FUNC+0xOFF [kernel], before the user frames" \
	grep -qE '^	do_syscall_64\+0x[0-9a-f]+ \[kernel\]$' "$dir/getppid.text"
check "text: no kernel address in the report" \
	sh -c "! grep -qiE 'ffff[0-9a-f]{12}' '$dir/getppid.text'"

# read of a tmpfs file: vfs_read under the read system call
folded read
read -r t kt ord vfs ksys sysc < <(stats "$dir/read.folded" \
	';vfs_read_\[k\]; ;(ksys_read|__x64_sys_read)_\[k\]; ;do_syscall_64_\[k\];')
echo "# read: $t samples, $kt with kernel frames, vfs_read $vfs, ksys_read/__x64_sys_read $ksys, do_syscall_64 $sysc"
check "tmpfs read loop: kernel frames ($kt of $t samples)" \
	test "$kt" -ge $((t / 5)) -a "$t" -ge 50
check "tmpfs read loop: >= 80% in vfs_read ($vfs of $kt)" \
	test $((vfs * 100)) -ge $((kt * 80))
check "tmpfs read loop: >= 80% in ksys_read or __x64_sys_read ($ksys of $kt)" \
	test $((ksys * 100)) -ge $((kt * 80))

# the cgroup capture: its stacks under their cgroups' paths
"$sid" report -i "$dir/cg.cap" -f folded --by-cgroup >"$dir/cg.folded" 2>&1
check "cg.cap: stacks of /stk and /stk/sub only" \
	test "$(cut -d';' -f1 "$dir/cg.folded" | sort -u | tr '\n' ' ')" = "/stk /stk/sub "
