#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# run-unit-test.sh: test/run-unit.sh, the runner of `make unit`, runs
# every command it is given exactly once and prints each one's results
# under its own name, in the order given, two at a time. Until it did, a
# command that finished while the runner waited for a free slot was
# started again in place of the next one, which never ran: in one CI run
# test/unit/debuginfod.sh's 8 checks were silently replaced by a second
# copy of push-test.js's. Three rounds of 80 commands of mixed lengths.
# The fault was a race (a command ending between the runner's count of
# running commands and its flush), so this finds it often, not always:
# the old runner failed it in 2 of 3 runs. RUN_UNIT=PATH tests another
# runner. TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/stackid-rununit.XXXXXX)
trap 'rm -rf "$T"' EXIT
n=0
for round in 1 2 3; do
	set --
	for c in $(seq 1 80); do
		set -- "$@" "echo $c >>$T/ran.$round; sleep 0.0$(((c * 7 + round) % 10)); echo 'ok 1 - c$c'"
	done
	UNIT_JOBS=2 "${RUN_UNIT:-$top/test/run-unit.sh}" "$@" >"$T/out.$round" 2>&1
	n=$((n + 1))
	twice=$(sort -n "$T/ran.$round" | uniq -d | xargs)
	never=$(seq 1 80 | sort | comm -23 - "$(sort "$T/ran.$round" >"$T/s"; echo "$T/s")" | sort -n | xargs)
	if [ -z "$twice$never" ]; then
		echo "ok $n - round $round: each of the 80 commands ran once"
	else
		echo "not ok $n - round $round: ran twice: ${twice:-none}; never: ${never:-none}"
	fi
	n=$((n + 1))
	# "# unit: S s: CMD" names command c, and its result line follows
	bad=$(awk '/^# unit: /{want = $0; sub(/.*ok 1 - c/, "", want); sub(/'"'"'.*/, "", want); next}
		/^ok 1 - c/ {k++; got = substr($0, 9); if (got != k || got != want) print k ":" got}' \
		"$T/out.$round" | head -n 5 | xargs)
	lines=$(grep -c '^ok 1 - c' "$T/out.$round")
	if [ -z "$bad" ] && [ "$lines" = 80 ]; then
		echo "ok $n - round $round: 80 results, in order, each under its own command"
	else
		echo "not ok $n - round $round: $lines results; out of place (position:command): ${bad:-none}"
	fi
done
