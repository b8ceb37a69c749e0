#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A short run of each fuzzer, part of `make unit` (and so `make check`):
# FUZZ_SHORT seconds each (default 5), from the seed corpus kept in
# test/fuzz/corpus/NAME (read only: new inputs go to a temporary
# directory). TAP: ok with executions per second and corpus size.
B=${1:?usage: short.sh BUILD}
T=${FUZZ_SHORT:-5}
top=$(dirname "$0")
tmp=$(mktemp -d /tmp/stackid-fuzz.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
for f in capture symbolize cfi; do
	n=$((n + 1))
	mkdir -p "$tmp/$f"
	"$B/fuzz_$f" -max_total_time="$T" -max_len=16384 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$tmp/" "$tmp/$f" "$top/corpus/$f" \
		>"$tmp/$f.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$f.log")
	secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$tmp/$f.log")
	cov=$(grep -E '^#[0-9]+.*(DONE|pulse)' "$tmp/$f.log" | tail -n 1 |
		sed -n 's/.*corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p')
	# A harness that stops early or crawls (8 runs in 5 s when each
	# pprof asked for 1 GiB) fails; a busy host still does hundreds.
	if [ $rc -eq 0 ] && [ "${runs:-0}" -ge 20 ]; then
		echo "ok $n - fuzz_$f: ${runs} executions in ${T} s (${secs}/s), corpus ${cov}"
	else
		tail -n 30 "$tmp/$f.log" | sed 's/^/# /'
		echo "not ok $n - fuzz_$f: exit $rc after ${runs:-0} executions"
	fi
done
