#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test/unit/test_ring.sh BUILD: the ring protocol test (test_ring.c) as
# built, under ThreadSanitizer, and broken on purpose under it (the
# producer publishing head relaxed): TSan must be silent on the first
# two and must report a data race on the third. TAP on stdout.
b=${1:?usage: test_ring.sh BUILD}
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
"$b/test_ring"
"$b/test_ring_tsan" 2>/tmp/ring-tsan.$$
rc=$?
if [ $rc = 0 ] && ! grep -q 'ThreadSanitizer' /tmp/ring-tsan.$$; then
	echo "ok - ThreadSanitizer: no data race in the ring protocol"
else
	echo "not ok - ThreadSanitizer: no data race in the ring protocol (exit $rc)"
	head -n 20 /tmp/ring-tsan.$$ | sed 's/^/# /'
fi
"$b/test_ring_broken_tsan" >/dev/null 2>/tmp/ring-tsan.$$
rc=$?
if [ $rc = 66 ] && grep -q 'data race' /tmp/ring-tsan.$$; then
	echo "ok - ThreadSanitizer catches head published without release"
else
	echo "not ok - ThreadSanitizer catches head published without release (exit $rc)"
fi
rm -f /tmp/ring-tsan.$$
