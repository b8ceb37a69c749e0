#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# debuginfod.sh BUILD: the debuginfod path of `stackid report`, end to
# end. Debian's debuginfod server (package debuginfod) serves the debug
# files of stripped copies of the known chain (BUILD/report-fix/dbgi);
# a capture naming the stripped files is symbolized through it exactly
# as the unstripped capture is; with the server gone, the report says so
# once on stderr and falls back to [file]+0xOFFSET frames. The server
# listens on a free port; when it can (root), the test runs in a network
# namespace of its own, so that nothing but 127.0.0.1 is reachable.
# DEBUGINFOD_CACHE_PATH is a temporary directory. TAP on stdout.
set -u
B=$1
if [ -z "${STACKID_NETNS:-}" ] && [ "$(id -u)" = 0 ] &&
	unshare --net true 2>/dev/null; then
	exec env STACKID_NETNS=1 unshare --net sh -c \
		'ip link set lo up 2>/dev/null || ifconfig lo up; exec sh "$0" "$1"' \
		"$0" "$B"
fi
SID=$B/stackid
RF=$B/report-fix
T=$(mktemp -d /tmp/stackid-dbgi.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }
check() { if [ "$1" = 0 ]; then shift; ok "$@"; else shift; nok "$@"; fi; }
unset DEBUGINFOD_URLS

for c in debuginfod debuginfod-find; do
	command -v $c >/dev/null || {
		nok "$c not found: install Debian's debuginfod"
		exit 1
	}
done
ok "debuginfod $(debuginfod -V 2>&1 | head -n 1 | awk '{print $NF}')\
${STACKID_NETNS:+, in a network namespace of its own}"

"$B/mkcapture" chain "$T/s.cap" "$RF/chain.expect" "$RF/dbgi/chain" \
	"$RF/dbgi/libchain.so"
"$SID" report -i "$RF/chain.cap" -f folded >"$T/want" &&
"$SID" report -i "$T/s.cap" -f folded >"$T/local" 2>"$T/local.err"
! grep -q app_a1 "$T/local" && grep -q '\[chain\]+0x' "$T/local" &&
	[ ! -s "$T/local.err" ]
check $? "stripped files, no server: [chain]+0xOFFSET frames, no message"

port=$(node -e 'const s = require("net").createServer();
s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
debuginfod -F "$RF/dbgi/serve" -p "$port" -d "$T/db.sqlite" -t 0 -g 0 \
	>"$T/server.log" 2>&1 &
pid=$!
export DEBUGINFOD_URLS=http://127.0.0.1:$port
export DEBUGINFOD_CACHE_PATH=$T/cache
bid=$(awk '$1 == "main" {print $2}' "$RF/chain.expect")
i=0
# a fresh client cache each time: the client remembers a miss for minutes
until DEBUGINFOD_CACHE_PATH=$T/poll.$i debuginfod-find debuginfo "$bid" \
	>/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -ge 100 ] || ! kill -0 $pid 2>/dev/null; then
		sed 's/^/# /' "$T/server.log" | tail -n 5
		break
	fi
	sleep 0.2
done
[ $i -lt 100 ] && kill -0 $pid 2>/dev/null
check $? "debuginfod serves the debug files on 127.0.0.1:$port \
(ready after $i polls)"
rm -rf "$T/cache" "$T"/poll.*

"$SID" report -i "$T/s.cap" -f folded >"$T/got" 2>"$T/got.err"
rc=$?
[ $rc = 0 ] && cmp -s "$T/got" "$T/want" && [ ! -s "$T/got.err" ]
check $? "DEBUGINFOD_URLS set: symbolized through the server, the same \
stacks as the unstripped files ($(head -n 1 "$T/got"))"
[ -n "$(ls "$T/cache" 2>/dev/null)" ]
check $? "the debug files landed in DEBUGINFOD_CACHE_PATH"

# A bound on requests per report: with 1, the second request is not
# made, and that is said once (which of the files the one request
# served depends on the order they are met in).
rm -rf "$T/cache"
STACKID_DEBUGINFOD_MAX=1 "$SID" report -i "$T/s.cap" -f folded \
	>"$T/cap1" 2>"$T/cap1.err"
rc=$?
lines=$(wc -l <"$T/cap1.err")
[ $rc = 0 ] && [ "$lines" = 1 ] &&
	grep -q "debuginfod: 1 requests made, the most for one report" \
		"$T/cap1.err"
check $? "STACKID_DEBUGINFOD_MAX=1: one request, said once ($lines line: \
$(head -n 1 "$T/cap1.err"))"

kill $pid
wait $pid 2>/dev/null
pid=
rm -rf "$T/cache"
"$SID" report -i "$T/s.cap" -f folded >"$T/down" 2>"$T/down.err"
rc=$?
lines=$(wc -l <"$T/down.err")
[ $rc = 0 ] && cmp -s "$T/down" "$T/local" && [ "$lines" = 1 ] &&
	grep -q "debuginfod (http://127.0.0.1:$port).*symbolizing without it" \
		"$T/down.err"
check $? "server gone: exit $rc, falls back to the local result, says so \
once ($lines line: $(head -n 1 "$T/down.err"))"
exit $fail
