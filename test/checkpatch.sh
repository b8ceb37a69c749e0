#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel style: checkpatch.pl (from Debian's linux-source-6.12, unpacked
# by test/setup.sh) on every kernel-side file, one TAP line each.
# compat.h alone may test LINUX_VERSION_CODE: that is its job. The
# feature probes (src/probes/*.c) are kernel code too.
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${STACKID_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stackid}
cp=$cache/checkpatch/scripts/checkpatch.pl
if [ ! -f "$cp" ]; then
	echo "not ok - checkpatch.pl not found in $cache (run test/setup.sh)"
	exit 0
fi
cd "$top" || exit 0
for f in src/*.c src/*.h src/probes/*.c include/stackid.h; do
	ignore=
	[ "$f" = src/compat.h ] &&
		ignore="--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON"
	out=$(perl "$cp" --no-tree --terse --show-types $ignore -f "$f" 2>&1 |
		grep -v '^total:')
	if [ -z "$out" ]; then
		echo "ok - checkpatch clean: $f"
	else
		echo "not ok - checkpatch clean: $f"
		echo "$out" | sed 's/^/# /'
	fi
done
