#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pprof.sh BUILD: `stackid report --format pprof` read back by a real
# pprof reader, Debian's `go tool pprof` (package golang-go), on the
# known-chain capture (BUILD/report-fix/chain.cap, see mkcapture chain):
# its stacks must be the folded report's, its header, mappings and labels
# what the capture says. TAP on stdout.
set -u
B=$1
SID=$B/stackid
CAP=$B/report-fix/chain.cap
EXP=$B/report-fix/chain.expect
T=$(mktemp -d /tmp/stackid-pprof.XXXXXX)
trap 'rm -rf "$T"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }
check() { if [ "$1" = 0 ]; then shift; ok "$@"; else shift; nok "$@"; fi; }

if ! command -v go >/dev/null 2>&1 || ! go tool pprof -h >/dev/null 2>&1
then
	nok "go tool pprof not found: install Debian's golang-go"
	exit 1
fi
ok "go tool pprof: $(go version)"
pp() { HOME=$T PPROF_TMPDIR=$T go tool pprof -symbolize=none "$@"; }

"$SID" report -i "$CAP" -f folded >"$T/folded" &&
"$SID" report -i "$CAP" -f pprof -o "$T/p.pb.gz"
check $? "report --format folded and --format pprof -o FILE: exit 0"
magic=$(od -An -tx1 -N2 "$T/p.pb.gz" | tr -d ' ')
gzip -t "$T/p.pb.gz" 2>/dev/null
check $(( $? != 0 )) "the pprof file is gzip (magic $magic, gzip -t)"
pp -raw "$T/p.pb.gz" >"$T/raw" 2>"$T/raw.err"
check $? "go tool pprof -raw reads it$(head -c 200 "$T/raw.err" |
	tr '\n' ' ' | sed 's/^./: &/')"

# The samples of -raw, as folded stacks: comm from the label, frames
# outermost first, counts (sample index 0, samples/count) merged.
awk '
/^Samples:/ { s = 1; next }
/^Locations/ { s = 0; l = 1; next }
/^Mappings/ { l = 0; next }
s && /^ *[0-9]+ +[0-9]+: / {
	sub(/:/, "", $2); ns++; cnt[ns] = $1; ids[ns] = ""
	for (i = 3; i <= NF; i++) ids[ns] = ids[ns] " " $i
	next
}
s && /comm:\[/ {
	c = $0; sub(/.*comm:\[/, "", c); sub(/\].*/, "", c); comm[ns] = c
}
l && /^ *[0-9]+: 0x/ {
	id = $1; sub(/:/, "", id)
	name[id] = (NF >= 4 && $3 ~ /^M=/) ? $4 : $2
	if (NF >= 3 && $3 !~ /^M=/) name[id] = $3
}
END {
	for (k = 1; k <= ns; k++) {
		m = split(ids[k], a, " "); line = comm[k]
		for (i = m; i >= 1; i--) line = line ";" name[a[i]]
		tot[line] += cnt[k]
	}
	for (line in tot) print line, tot[line]
}' "$T/raw" | sort >"$T/pp.folded"
sort "$T/folded" >"$T/want.folded"
if [ -s "$T/want.folded" ] && cmp -s "$T/pp.folded" "$T/want.folded"; then
	ok "pprof's stacks and counts == the folded report's ($(wc -l \
		<"$T/want.folded") stacks)"
else
	nok "pprof's stacks differ from the folded report's"
	diff "$T/want.folded" "$T/pp.folded" | sed 's/^/# /'
fi
grep -qx 'chain;main;app_a1;app_a2;app_a3;lib_b1;lib_b2;lib_spin 60' \
	"$T/pp.folded"
check $? "the known chain, symbolized, 60 samples"

grep -qx 'PeriodType: cpu nanoseconds' "$T/raw" &&
grep -qx 'Period: 10101010' "$T/raw" &&
grep -qx 'Time: 2026-01-01 00:00:00 +0000 UTC' "$T/raw" &&
grep -qx 'Duration: 10s' "$T/raw" &&
grep -q '^samples/count cpu/nanoseconds' "$T/raw"
check $? "header: samples/count, cpu/nanoseconds, period 1e9/99 ns, \
time and duration from the capture"

lib=$(awk '$1 == "lib_spin" {print $2}' "$EXP")
exe=$(awk '$1 == "main" {print $2}' "$EXP")
maps=$(sed -n '/^Mappings/,$p' "$T/raw" | grep -c '^[0-9]*: ')
grep -q "^[0-9]*: 0x0/0x[0-9a-f]*/0x0 $B/report-fix/libchain.so $lib \[FN\]" \
	"$T/raw" &&
grep -q "^[0-9]*: 0x0/0x[0-9a-f]*/0x0 $B/report-fix/chain $exe \[FN\]" \
	"$T/raw" && [ "$maps" = 2 ]
check $? "one mapping per build-id: start 0, offset 0, the capture's path, \
build-id hex, has functions"

pp -tags "$T/p.pb.gz" >"$T/tags" 2>/dev/null
tr -s ' ' <"$T/tags" | grep -q '(90.00%): chain' &&
tr -s ' ' <"$T/tags" | grep -q '(10.00%): other' &&
tr -s ' ' <"$T/tags" | grep -q '(45.00%): 0$' &&
tr -s ' ' <"$T/tags" | grep -q '(10.00%): 77$' &&
tr -s ' ' <"$T/tags" | grep -q '(45.00%): 4243$' &&
for k in comm cpu pid tid; do grep -q "^ *$k: Total" "$T/tags" || exit 1
done
check $? "labels comm, cpu (CPU 0 too), pid, tid with their shares"

pp -top -sample_index=samples "$T/p.pb.gz" >"$T/top" 2>/dev/null
tr -s ' ' <"$T/top" | grep -qE '^ 60 60\.00% .* lib_spin$'
check $? "-top: lib_spin, 60 samples flat"

# --lines: the source lines of the text report, in the Lines
"$SID" report -i "$CAP" -f pprof --lines -o "$T/l.pb.gz" &&
pp -raw "$T/l.pb.gz" >"$T/lraw" 2>/dev/null &&
"$SID" report -i "$CAP" -f text --lines >"$T/ltext"
src=$(sed -n 's/^	lib_spin (\(.*\))$/\1/p' "$T/ltext" | head -n 1)
[ -n "$src" ] && grep -qE "^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ lib_spin $src " \
	"$T/lraw" && grep -q '\[FN\]\[FL\]\[LN\]\[IN\]' "$T/lraw"
check $? "--lines: lib_spin's Line is the text report's ($src); mappings \
have functions, file names, line numbers, inline frames"

# without symbols: no functions, addresses are the file offsets
"$SID" report -i "$CAP" -f pprof -n -o "$T/n.pb.gz" &&
pp -raw "$T/n.pb.gz" >"$T/nraw" 2>/dev/null
spin=$(printf '0x%x' $((0x$(awk '$1 == "lib_spin" {print $3}' "$EXP") + 4)))
grep -qE "^ +[0-9]+: $spin M=[0-9]+ *\$" "$T/nraw" &&
! grep -q '\[FN\]' "$T/nraw" && ! grep -q 'lib_spin' "$T/nraw"
check $? "--no-symbols: no functions; lib_spin's frame at its file \
offset $spin, for the backend to symbolize by build-id"
# kernel frames and cgroups (mkcapture kernel: cg_kdemo() in capgen.h)
"$B/mkcapture" kernel "$T/k.cap" &&
"$SID" report -i "$T/k.cap" -f pprof -n -o "$T/k.pb.gz" &&
pp -raw "$T/k.pb.gz" >"$T/kraw" 2>/dev/null
check $? "kernel capture: report --format pprof, read back"
kmap=$(sed -n 's/^\([0-9]*\): 0x0\/0x2c\/0x0 \[kernel.kallsyms\]  \[FN\]$/\1/p' \
	"$T/kraw")
emap=$(sed -n 's/^\([0-9]*\): 0x0\/0x41\/0x0 \[ext4\]  \[FN\]$/\1/p' "$T/kraw")
[ -n "$kmap" ] && [ -n "$emap" ] &&
grep -qE "^ +[0-9]+: 0x1a M=$kmap vfs_read " "$T/kraw" &&
grep -qE "^ +[0-9]+: 0x2b M=$kmap vfs_read " "$T/kraw" &&
grep -qE "^ +[0-9]+: 0x9 M=$kmap ksys_read " "$T/kraw" &&
grep -qE "^ +[0-9]+: 0x0 M=$kmap \[unknown\] " "$T/kraw" &&
grep -qE "^ +[0-9]+: 0x40 M=$emap ext4_file_read_iter " "$T/kraw"
check $? "kernel frames: mappings [kernel.kallsyms] and [ext4], a location \
per function and offset, named, [unknown] for no symbol"
pp -tags -sample_index=samples "$T/k.pb.gz" >"$T/ktags" 2>/dev/null
tr -s ' ' <"$T/ktags" | grep -q '^ *cgroup: Total 4.0$' &&
(for c in /a /a/b /ab '\[cgroup 99\]'; do
	tr -s ' ' <"$T/ktags" | grep -q "(25.00%): $c\$" || exit 1
done)
check $? "label cgroup: the path, [cgroup ID] if never named, none without"
pp -traces "$T/k.pb.gz" 2>/dev/null | tr -s ' ' >"$T/ktraces"
grep -A5 '^ cgroup: /a$' "$T/ktraces" | tr -d '\n' |
	grep -q 'ext4_file_read_iter vfs_read ksys_read <unknown> <unknown>$'
check $? "a trace: kernel frames innermost, then the user frames"
exit $fail
