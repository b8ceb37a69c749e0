#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run host unit test commands (each argument one shell command); pass
# their TAP lines through, and turn a command that failed without saying
# so, or printed nothing, into a "not ok" line. UNIT_JOBS commands run at
# once (default 2: the host's two cores; each test picks free ports and
# private directories of its own); their output is printed in the order
# given, each command's at once when it and all before it are done, with
# how long it took.
jobs=${UNIT_JOBS:-2}
# Not make's jobserver of a `make -j2 unit` (test/check.sh): the tests'
# own make calls would warn that it is unavailable to them.
unset MAKEFLAGS MFLAGS MAKELEVEL
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

next=1
# flush: print the finished commands' results, in order, up to the first
# one still running. Its variables are its own (f_*): the loop below
# calls it between choosing a command ($t) and starting it, and a flush
# that set t once started a finished command again instead of the next
# (test/unit/run-unit-test.sh).
flush() {
	while [ -f "$d/$next.rc" ]; do
		f_out=$(cat "$d/$next.out")
		f_rc=$(cat "$d/$next.rc")
		f_cmd=$(cat "$d/$next.cmd")
		echo "# unit: $(cat "$d/$next.time") s: $f_cmd"
		printf '%s\n' "$f_out" | grep -E '^(not )?ok |^#'
		if [ "$f_rc" -ne 0 ] &&
			! printf '%s\n' "$f_out" | grep -q '^not ok '; then
			printf '%s\n' "$f_out" | tail -n 5 | sed 's/^/# /'
			echo "not ok - '$f_cmd' exited with $f_rc"
		fi
		printf '%s\n' "$f_out" | grep -qE '^(not )?ok ' ||
			echo "not ok - '$f_cmd' reported no result"
		next=$((next + 1))
	done
}

i=0
for t in "$@"; do
	i=$((i + 1))
	while [ $((i - 1 - $(find "$d" -name '*.rc' | wc -l))) -ge "$jobs" ]; do
		flush
		sleep 0.2
	done
	printf '%s\n' "$t" >"$d/$i.cmd"
	(
		t0=$(date +%s)
		sh -c "$t" >"$d/$i.out" 2>&1 </dev/null
		rc=$?
		echo $(($(date +%s) - t0)) >"$d/$i.time"
		echo $rc >"$d/$i.rc.tmp"
		mv "$d/$i.rc.tmp" "$d/$i.rc"
	) &
	flush
done
wait
flush
exit 0
