#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# expect.sh FILE SYM [FILE SYM ...]: for each symbol print
#   NAME BUILDID START END
# with START/END the symbol's extent as file offsets (hex), which is what
# the sampler reports: vaddr - p_vaddr + p_offset of its PT_LOAD. A
# symbol not in the file's .symtab (a stripped file: Debian's) is looked
# up in its dynamic symbols.
set -euo pipefail
while [ $# -ge 2 ]; do
	f=$1 sym=$2
	shift 2
	bid=$(readelf -n "$f" | awk '/Build ID:/ {print $3; exit}')
	read -r addr size < <(nm -S --defined-only "$f" 2>/dev/null |
		awk -v s="$sym" '$4 == s {print $1, $2; exit}') || true
	[ -n "${size:-}" ] || read -r addr size < <(nm -D -S --defined-only "$f" |
		awk -v s="$sym" '{ sub(/@.*/, "", $4) } $4 == s {print $1, $2; exit}') || true
	[ -n "${size:-}" ] || { echo "expect.sh: no $sym in $f" >&2; exit 1; }
	a=$((0x$addr))
	found=0
	while read -r type off va pa fsz rest; do
		[ "$type" = LOAD ] || continue
		if [ $a -ge $((va)) ] && [ $a -lt $((va + fsz)) ]; then
			st=$((a - va + off))
			printf '%s %s %x %x\n' "$sym" "$bid" $st $((st + 0x$size))
			found=1
			break
		fi
	done < <(readelf -lW "$f")
	[ $found = 1 ] || { echo "expect.sh: $sym not in a LOAD" >&2; exit 1; }
done
