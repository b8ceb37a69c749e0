# SPDX-License-Identifier: GPL-2.0
# `make demo`, inside the VM: what a user does on a real host.
. /stackid/lib.sh
say() { echo "# demo: $*"; }
say "modprobe stackid"
modprobe stackid || fail "modprobe stackid"
say "starting the workload: demo_app web, demo_app batch, a gzip loop (Debian's)"
spawn /stackid/demo_app web
w=$pid
spawn /stackid/demo_app batch
b=$pid
( while :; do /usr/bin/gzip -c /stackid/demo_app >/dev/null; done ) &
g=$!
# and kernel threads at work: direct writes to a loop device on a tmpfs
# file, which the loop driver's kworkers copy into the file
kt=
if modprobe loop 2>/dev/null && busybox dd if=/dev/zero of=/tmp/loop.img \
	bs=1M count=32 2>/dev/null && busybox losetup /dev/loop0 /tmp/loop.img; then
	say "and a loop device's kworkers: direct writes to /dev/loop0 on a tmpfs file"
	( while :; do /usr/bin/dd if=/dev/zero of=/dev/loop0 bs=1M count=32 \
		oflag=direct 2>/dev/null; done ) &
	kt=$!
fi
# 10 s: the first second or two, until record has loaded the unwind
# tables of the files it learns of, walks stop in code without frame
# pointers (libc's qsort)
say "stackid record -F 199 -d 10 -o /tmp/demo.cap"
stackid record -F 199 -d 10 -o /tmp/demo.cap 2>&1 | sed 's/^/# demo:   /'
kill $w $b $g $kt
say ""
say "stackid report -i /tmp/demo.cap --format folded   (top 12 stacks)"
stackid report -i /tmp/demo.cap --format folded 2>&1 | head -n 12 |
	sed 's/^/# demo:   /'
say ""
say "kernel threads (their kernel stacks; --no-kthreads leaves them out), top 3"
stackid report -i /tmp/demo.cap --format folded 2>&1 | grep '^\[' |
	head -n 3 | sed 's/^/# demo:   /'
say ""
say "the same, unsymbolized (--no-symbols), top 3"
stackid report -i /tmp/demo.cap --format folded --no-symbols 2>&1 |
	head -n 3 | cut -c 1-200 | sed 's/^/# demo:   /'
say ""
say "Debian's gzip (built without frame pointers, stripped), top 2"
stackid report -i /tmp/demo.cap --format folded 2>&1 | grep '^gzip;' |
	head -n 2 | sed 's/^/# demo:   /'
[ -n "$kt" ] && { wait $kt 2>/dev/null; busybox losetup -d /dev/loop0; }
rmmod stackid
pass "demo ran"
