#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run host unit test commands (each argument one shell command); pass
# their TAP lines through, and turn a command that failed without saying
# so, or printed nothing, into a "not ok" line.
for t in "$@"; do
	out=$(sh -c "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E '^(not )?ok |^#'
	if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok '; then
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/# /'
		echo "not ok - '$t' exited with $rc"
	fi
	printf '%s\n' "$out" | grep -qE '^(not )?ok ' ||
		echo "not ok - '$t' reported no result"
done
exit 0
