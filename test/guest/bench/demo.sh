# SPDX-License-Identifier: GPL-2.0
# `make demo`, inside the VM: what a user does on a real host.
. /stackid/lib.sh
say() { echo "# demo: $*"; }
say "modprobe stackid"
modprobe stackid || fail "modprobe stackid"
say "starting the workload: demo_app web, demo_app batch, a gzip loop"
spawn /stackid/demo_app web
w=$pid
spawn /stackid/demo_app batch
b=$pid
( while :; do busybox gzip -c /stackid/demo_app >/dev/null; done ) &
g=$!
# 10 s: the first second or two, until record has loaded the unwind
# tables of the files it learns of, walks stop in code without frame
# pointers (libc's qsort)
say "stackid record -F 199 -d 10 -o /tmp/demo.cap"
stackid record -F 199 -d 10 -o /tmp/demo.cap 2>&1 | sed 's/^/# demo:   /'
kill $w $b $g
say ""
say "stackid report -i /tmp/demo.cap --format folded   (top 12 stacks)"
stackid report -i /tmp/demo.cap --format folded 2>&1 | head -n 12 |
	sed 's/^/# demo:   /'
say ""
say "the same, unsymbolized (--no-symbols), top 3"
stackid report -i /tmp/demo.cap --format folded --no-symbols 2>&1 |
	head -n 3 | cut -c 1-200 | sed 's/^/# demo:   /'
rmmod stackid
pass "demo ran"
