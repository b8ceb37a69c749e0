# SPDX-License-Identifier: GPL-2.0
# Helpers for guest tests (busybox sh). Each result is one TAP line,
# "ok - NAME" or "not ok - NAME"; the host numbers and counts them.
VERSION=$(cat /stackid/VERSION)

pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; }

# check NAME CMD...: run CMD, pass if it exits 0.
check() {
	name=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		pass "$name"
	else
		fail "$name"
		sed 's/^/#   /' /tmp/check.out
	fi
}

# Fresh module: unloaded, then loaded by modprobe like a user would.
load() {
	rmmod stackid 2>/dev/null
	modprobe stackid "$@"
}

S=/stackid/sidcheck

# unheld: wait (at most 10 s) until every sample's work that was queued
# has run (src/anchor.c); prints how many are still queued.
unheld() {
	local i=0 q=/sys/module/stackid_anchor/parameters/queued_works
	while [ "$(cat $q)" != 0 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	cat $q
}

# retry N CMD...: run CMD (its error output dropped) until it succeeds,
# at most N times, 0.2 s apart; fails if it never did.
retry() {
	local n=$1 i=1
	shift
	while ! "$@" 2>/dev/null; do
		[ $i -ge "$n" ] && return 1
		sleep 0.2
		i=$((i + 1))
	done
}

# spawn PROG ARGS...: start a spinner that prints its pid; sets $pid.
spawn() {
	rm -f /tmp/spawn.pid
	"$@" >/tmp/spawn.pid &
	i=0
	while [ ! -s /tmp/spawn.pid ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	pid=$(cat /tmp/spawn.pid)
	rm -f /tmp/spawn.pid
}

# counter FILE NAME: a counter from sidcheck's output.
counter() {
	sed -n "s/^stat $2 //p" "$1"
}

# recstat FILE NAME: a counter of the statistics `stackid record` wrote
# to FILE (its stderr); 0 for one it left out (it leaves out those at 0).
recstat() {
	local v
	v=$(sed -n "s/^ *$2 *\([0-9]*\).*/\1/p" "$1" | head -n 1)
	echo "${v:-0}"
}

# record OUT ARGS...: sidcheck record into OUT.rec, stats into OUT.out;
# checks the accounting identity.
record() {
	out=$1
	shift
	$S record -o "$out.rec" "$@" >"$out.out" 2>&1
	recorded "$out" $? "$*"
}

# recorded OUT STATUS WHAT [NOTE]: judge a sidcheck record into OUT.rec
# that exited with STATUS: if it failed, fail "record WHAT" with its
# output; else check the accounting identity it printed into OUT.out
# (NOTE added to the check's name).
recorded() {
	if [ "$2" != 0 ]; then
		fail "record $3"
		sed 's/^/#   /' "$1.out"
		return 1
	fi
	check "samples == delivered + dropped ($(counter "$1.out" samples) samples${4:+, $4})" \
		grep -q '^stat identity ok' "$1.out"
}

# to_host NAME FILE: send FILE to the host as NAME, gzipped (a serial
# port flooded for long makes PREEMPT_RT's threaded IRQ 'nobody cared'),
# in base64 lines of
# "@host NAME ..." on the results port; test/vm.sh decodes it into
# build/vm/KVER/host/NAME, and test/guest/host/TEST.sh (TEST: the guest
# test that sent it) checks it there with the host's tools.
to_host() {
	gzip -c "$2" | base64 | sed "s/^/@host $1 /"
}
