#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run host unit test binaries; pass their TAP lines through, and turn a
# binary that crashed or printed nothing into a "not ok" line.
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E '^(not )?ok |^#'
	if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok '; then
		echo "not ok - $t exited with $rc"
	fi
	printf '%s\n' "$out" | grep -qE '^(not )?ok ' ||
		echo "not ok - $t reported no result"
done
exit 0
