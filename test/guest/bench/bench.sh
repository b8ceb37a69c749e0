# SPDX-License-Identifier: GPL-2.0
# `make bench`, inside one guest boot: each workload run with nothing,
# with the floor (the test build's handler that returns at once), under
# `perf record -g -a` (Debian's linux-perf), under the kernel's BPF
# build-id stack map (bpfstack) and under `stackid record`, REPS times,
# interleaved (each repetition runs each configuration once, in turn);
# then once each stackid with resolve=N, with kernel_frames=N (what
# kernel frames cost) and with the default CPU budget (stackid-budget:
# max_cpu_percent=25, what it drops and saves); at 999 and 9999 Hz.
# Slowdowns are medians of the runs, each against the median of the
# bare runs; costs are per sample
# that interrupted a task (an idle CPU's samples cost the work nothing,
# and under TCG their number varies widely from sampler to sampler),
# and stackid/perf and stackid/BPF run by run with 90 % intervals.
# Figures, printed as "# bench ..." lines; only "bench ran" is asserted.
# Workloads (bench_work, manylibs): the 11-function chain across an
# executable and a library; a stack through 300 libraries; the chain
# while a thread churns mmap/munmap; a fork/exec storm; getppid() and
# read() of /dev/zero in a loop (most samples in kernel mode: what
# kernel frames cost, also as the handler's cost with kernel_frames=N);
# and the chain without frame pointers, by unwind tables, against perf
# --call-graph dwarf.
. /stackid/lib.sh
# Every sample whole, as perf's are and as before ABI 2.7: no CPU budget
# (max_cpu_percent=0), which would drop samples at once where the handler
# takes more than 25 % of a CPU (the 300-library stack at 9999 Hz under
# TCG) and make a sample look cheaper than a whole one. Every load of
# the module here, the test build's too, takes NOBUDGET.
NOBUDGET=max_cpu_percent=0
load() {
	rmmod stackid 2>/dev/null
	modprobe stackid $NOBUDGET "$@"
}
# make bench's BENCH_REPS (test/vm.sh writes it), else 3
REPS=${REPS:-$(cat /stackid/bench-reps 2>/dev/null || echo 3)}
PERF=/usr/bin/perf
out() { echo "# bench $*"; }

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# workload NAME: the command of workload NAME
workload() {
	case $1 in
	chain)	echo "/stackid/bench_work chain $CHAIN_N" ;;
	many)	echo "/stackid/manylibs /stackid/many $MANY_N" ;;
	churn)	echo "/stackid/bench_work churn $CHAIN_N" ;;
	forkexec) echo "/stackid/bench_work forkexec $FORK_N" ;;
	syscall) echo "/stackid/bench_work syscall $SYS_N" ;;
	nofp)	echo "/stackid/nofp_bench64 chain $NOFP_N" ;;
	esac
}

# ns: CLOCK_MONOTONIC now
ns() { $S now; }

# ticks PID: the user + system CPU time of PID, in clock ticks
ticks() { awk '{ print $14 + $15 }' /proc/$1/stat 2>/dev/null; }

# ready PID: wait (at most 15 s) until `stackid record` PID has its steady
# state: sampling on, and the unwind tables of the files it found at start
# compiled (its CPU time grows by at most 5 ticks in 0.5 s); the workload
# measures the profiler at work, not its start-up
ready() {
	local i=0 a b
	a=$(ticks $1)
	while [ $i -lt 30 ]; do
		sleep 0.5
		b=$(ticks $1)
		[ -n "$b" ] && [ $i -ge 1 ] && [ $((b - a)) -le 5 ] && return
		a=$b
		i=$((i + 1))
	done
}

# count PROFILER PID: "ALL BUSY": the handler's entries so far, and of
# those the ones that interrupted a task other than the idle task: the
# test build's floor counts, else the samples stat of the device reader
# PID holds, less those dropped for having no mm (idle, and kernel
# threads: few here)
count() {
	if [ $1 = floor ]; then
		echo $(cat /sys/module/stackid/parameters/test_floor_samples \
			/sys/module/stackid/parameters/test_floor_busy)
	else
		$S peek $2 | awk '{ print $2, $2 - $4 }'
	fi
}

# bpfwait PATTERN [N]: wait (at most 20 s) until /tmp/prof.bpf has N
# (1) lines matching PATTERN
bpfwait() {
	local i=0
	while [ $i -lt 200 ]; do
		[ "$(grep -c "^$1\$" /tmp/prof.bpf 2>/dev/null)" -ge "${2:-1}" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "# bench: bpfstack: no '$1' in 20 s" >&2
	sed 's/^/#   /' /tmp/prof.err | head -n 20 >&2
	return 1
}

# run PROFILER HZ WORKLOAD: the workload's elapsed ns under PROFILER;
# appends "PROFILER HZ WORKLOAD NS SAMPLES BUSY" to /tmp/bench.runs
# (SAMPLES: the samples the profiler took during the work, all CPUs,
# counted exactly: perf's own count, as it records only while the
# workload runs; bpfstack's, stackid's and the floor's counters read
# just before and after the work; BUSY: those of them that interrupted
# a task, not an idle CPU); leaves the profiler's output in /tmp/prof.*
run() {
	local prof=$1 hz=$2 w=$3 cmd p t n=0 b=0 t0 t1 f0 f1 g c0 c1 c2 fails
	cmd=$(workload "$3")
	case $prof in
	none)
		t=$($cmd | sed -n 's/^elapsed_ns //p')
		echo "$prof $hz $3 $t 0 0" >>/tmp/bench.runs
		echo "$t"
		return ;;
	perf|perf-dwarf)
		# perf runs the workload once its events are on: its start-up
		# (reading every process's mappings) is not charged to the work
		rm -f /tmp/prof.perf
		g=-g
		[ $prof = perf-dwarf ] && g="--call-graph dwarf"
		t=$($PERF record $g -a -F "$hz" -o /tmp/prof.perf -- $cmd \
			2>/tmp/prof.err | sed -n 's/^elapsed_ns //p')
		n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' /tmp/prof.err | tail -n 1)
		# less those of the idle task, pid 0
		b=$($PERF script -i /tmp/prof.perf -F pid 2>/dev/null |
			awk '$1 != 0 { b++ } END { print b + 0 }')
		[ $prof = perf-dwarf ] && ls -l /tmp/prof.perf 2>/dev/null |
			awk '{ print $5 }' >/tmp/prof.size
		rm -f /tmp/prof.perf
		echo "# bench run: $prof $hz Hz $3: work $t ns, ${n:-0} samples written, $b busy$(grep -i -m 1 'throttl\|exceeded' /tmp/prof.err | sed 's/^/; /')" >&2
		echo "$prof $hz $3 $t ${n:-0} ${b:-0}" >>/tmp/bench.runs
		echo "$t"
		return ;;
	bpf)
		# the kernel's BPF build-id stack map (bpfstack.c): its own
		# count of the samples it took, asked for before and after the
		# work
		/stackid/bpfstack "$hz" >/tmp/prof.bpf 2>/tmp/prof.err &
		p=$!
		bpfwait ready || { kill $p; wait $p; return; }
		kill -USR1 $p
		bpfwait 'samples.*' 1 >/dev/null
		t=$($cmd 2>/tmp/work.err | sed -n 's/^elapsed_ns //p')
		kill -USR1 $p
		bpfwait 'samples.*' 2 >/dev/null
		kill -INT $p
		wait $p
		set -- $(awk '/^samples/ { s[++k] = $2; f[k] = $4; b[k] = $6 }
			END { print s[2] - s[1], f[2] - f[1], b[2] - b[1] }' /tmp/prof.bpf)
		n=$1 fails=$2 b=$3
		echo "# bench run: $prof $hz Hz $w: work $t ns, $n samples in it, $b busy ($fails without a stack id)" >&2
		echo "$prof $hz $w $t ${n:-0} ${b:-0}" >>/tmp/bench.runs
		echo "$t"
		return ;;
	floor|stages)
		# the test build (testhook.c): its handler returning at once
		# (test_floor), or timing the handler's stages (test_stages)
		rmmod stackid
		insmod /stackid/testmod/stackid.ko test_$prof=1 $NOBUDGET || return
		stackid record -F "$hz" -o /tmp/prof.cap >/tmp/prof.err 2>&1 &
		;;
	stackid-fp)
		$S reset >/dev/null 2>&1
		stackid record --no-unwind-tables -F "$hz" -o /tmp/prof.cap \
			>/tmp/prof.err 2>&1 &
		;;
	stackid|stackid-N|stackid-noK|stackid-budget)
		[ $prof = stackid-N ] && echo N >/sys/module/stackid/parameters/resolve
		[ $prof = stackid-budget ] &&
			echo 25 >/sys/module/stackid/parameters/max_cpu_percent
		[ $prof = stackid-noK ] &&
			echo N >/sys/module/stackid/parameters/kernel_frames
		$S reset >/dev/null 2>&1
		stackid record -F "$hz" -o /tmp/prof.cap >/tmp/prof.err 2>&1 &
		;;
	esac
	p=$!
	t0=$(ns)
	c0=$(ticks $p)
	ready $p
	c1=$(ticks $p)
	f0=$(count $prof $p)
	wa=$(ns)
	t=$($cmd 2>/tmp/work.err | sed -n 's/^elapsed_ns //p')
	wb=$(ns)
	f1=$(count $prof $p)
	c2=$(ticks $p)
	# the work's window, for the reader's share of its samples
	echo "$wa $wb" >/tmp/prof.window
	kill -INT $p
	wait $p
	t1=$(ns)
	set -- "$@" ${f0:-0 0} ${f1:-0 0}
	n=$(($6 - $4)) b=$(($7 - $5))
	[ $prof = stages ] &&
		cat /sys/module/stackid/parameters/test_stage_ns >/tmp/prof.stages &&
		{ cat /sys/module/stackid/parameters/test_walk_lookups ||
			echo; } >/tmp/prof.lookups 2>/dev/null
	case $prof in floor|stages) rmmod stackid; load ;; esac
	echo "# bench run: $prof $hz Hz $3: work $t ns, $n samples in it, $b busy, recording $((t1 - t0)) ns, recorder $c0 -> $c1 ticks (ready) -> $c2 (end)" >&2
	if [ -z "$t" ]; then
		echo "# bench: $3 under $prof at $hz Hz printed no time" >&2
		sed 's/^/#   /' /tmp/work.err /tmp/prof.err | head -n 20 >&2
	fi
	echo Y >/sys/module/stackid/parameters/resolve
	echo Y >/sys/module/stackid/parameters/kernel_frames
	echo 0 >/sys/module/stackid/parameters/max_cpu_percent
	echo "$prof $hz $3 $t $n $b" >>/tmp/bench.runs
	echo "$t"
}

# tmed PROFILER HZ WORKLOAD: the median elapsed ns of PROFILER's runs
tmed() {
	awk -v p="$1" -v h="$2" -v w="$3" '$1 == p && $2 == h && $3 == w { print $4 }' \
		/tmp/bench.runs | median
}

# persample PROFILER HZ WORKLOAD BARE: "SAMPLES BUSY COST" of PROFILER's
# runs: the medians of the samples it took during the work and of those
# that interrupted a task, and of its cost per such sample in us,
# (time - BARE) / busy samples
persample() {
	awk -v p="$1" -v h="$2" -v w="$3" -v b="$4" '
	$1 == p && $2 == h && $3 == w && $6 > 0 {
		a[++k] = $5; n[k] = $6; c[k] = ($4 - b) / $6 / 1000
	}
	function med(a, k,  i, j, t) {
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return a[int((k + 1) / 2)]
	}
	END { if (k) printf "%d %d %.1f", med(a, k), med(n, k), med(c, k); else print "0 0 0" }
	' /tmp/bench.runs
}

# paired HZ WORKLOAD BARE A B [FLOOR]: A's cost per sample against B's,
# run by run (the j-th runs of each were made in one repetition, side by
# side), per sample that interrupted a task (BUSY), above FLOOR's if
# given ("-": no floor), else the total overheads (time - BARE) A / B;
# prints "MEAN +-HALF" with HALF the 90 % confidence interval's half
# width (Student's t over the runs), and "(within noise)" when the
# interval holds 1
paired() {
	awk -v h="$1" -v w="$2" -v b="$3" -v A="$4" -v B="$5" -v F="${6:-}" '
	$2 == h && $3 == w && ($1 == A || $1 == B || $1 == F) && $6 > 0 {
		k = $1 SUBSEP (++seen[$1])
		c[k] = F == "" ? $4 - b : ($4 - b) / $6
	}
	# a square root by Newton steps: the guest'"'"'s busybox awk has no sqrt()
	function root(x,  y, i) {
		if (x <= 0) return 0
		y = x < 1 ? 1 : x
		for (i = 0; i < 60; i++) y = (y + x / y) / 2
		return y
	}
	END {
		# t(0.95) for 1 .. 30 degrees of freedom
		split("6.314 2.920 2.353 2.132 2.015 1.943 1.895 1.860 1.833 1.812 1.796 1.782 1.771 1.761 1.753 1.746 1.740 1.734 1.729 1.725 1.721 1.717 1.714 1.711 1.708 1.706 1.703 1.701 1.699 1.697", t, " ")
		for (j = 1; (A SUBSEP j) in c && (B SUBSEP j) in c; j++) {
			f = F == "" || F == "-" ? 0 : c[F SUBSEP j]
			if (F != "" && F != "-" && !((F SUBSEP j) in c))
				break
			d = c[B SUBSEP j] - f
			if (d <= 0)
				continue	# B within the floor: no ratio
			r[++n] = (c[A SUBSEP j] - f) / d
		}
		if (n < 2) { printf "? (%d usable runs)", n; exit }
		for (j = 1; j <= n; j++) m += r[j]
		m /= n
		for (j = 1; j <= n; j++) v += (r[j] - m) * (r[j] - m)
		half = t[n - 1 > 30 ? 30 : n - 1] * root(v / (n - 1) / n)
		printf "%.2f +-%.2f (90%%, %d runs)%s", m, half, n,
			(m - half <= 1 && m + half >= 1) ? " (within noise)" : ""
	}' /tmp/bench.runs
}

# ratio A B: A / B with 3 decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b ? a / b : 0 }'; }

# st NAME: a counter of the last recording's statistics
st() { recstat /tmp/prof.err "$1"; }

# stackid's figures of the last run: cost, cache, bytes, reader, drops
stackid_figures() {
	local label=$1 c hit miss drops samples perframe valid bytes reader wreader
	c=$($S cost)
	hit=$(st bidcache_hit) miss=$(st bidcache_miss)
	drops=$(st dropped_ring_full)
	set -- $($S frames /tmp/prof.cap 0)
	samples=$3 perframe=$5 valid=$7
	bytes=$(stat -c %s /tmp/prof.cap)
	reader=$(stackid report -i /tmp/prof.cap --format folded --no-symbols 2>/dev/null |
		awk '{ n += $NF } /^stackid;/ { r += $NF }
		     END { printf "%.2f", n ? 100 * r / n : 0 }')
	# and during the work alone: the start's table compiling left out
	wreader=$($S share /tmp/prof.cap stackid $(cat /tmp/prof.window) |
		awk '{ printf "%.2f%% (%d of %d)", $2 ? 100 * $1 / $2 : 0, $1, $2 }')
	out "$label: handler $c; a frame (the sample's figure over its $perframe frames on average): $(echo "$c" |
		awk -v f="$perframe" '{ for (i = 1; i < NF; i++) if ($i ~ /^(median|p99)_ns$/) printf "%s%s %s", (n++ ? ", " : ""), substr($i, 1, length($i) - 3), (f > 0 ? sprintf("%.0f ns", $(i + 1) / f) : "?") }')"
	out "$label: cache hit $(awk -v h="${hit:-0}" -v m="${miss:-0}" 'BEGIN { printf "%.2f%%", h + m ? 100 * h / (h + m) : 0 }') ($hit hits, ${miss:-0} misses)"
	out "$label: $samples samples, $perframe frames each, $valid% valid; $(awk -v b="$bytes" -v s="$samples" -v f="$perframe" 'BEGIN { if (s) printf "%.0f bytes/sample, %.1f bytes/frame", b / s, b / (s * f) }'); ring drops ${drops:-0}; reader (stackid) $reader% of samples, $wreader during the work, woken $(st wakeups) times"
	out "$label: samples deferred to their task $(st deferred), finished $(st deferred_done), no free slot $(st defer_no_slot)"
	out "$label: frames left raw, by reason: $(awk '$1 ~ /^frames_ip_/ { sub(/^frames_ip_/, "", $1); printf "%s%s %s", n++ ? ", " : "", $1, $2 } END { if (!n) printf "none" }' /tmp/prof.err)"
}

# stages LABEL HZ WORKLOAD: one run of WORKLOAD under the test build
# timing the handler's stages; prints the mean of each per sample
stages() {
	[ -f /stackid/testmod/stackid.ko ] || return
	run stages $2 $3 >/dev/null
	out "$1: handler stages, mean per walked sample (test build, one run): $(awk '{
		n = $2
		for (i = 3; i < NF; i += 2)
			printf "%s%s %.2f us", (i > 3 ? ", " : ""), $i, n ? $(i + 1) / n / 1000 : 0
		printf " (%d samples)", n }' /tmp/prof.stages)"
	out "$1: the walk's frames by how their mapping was found, per walked sample (test build, the same run): $(awk -v n="$(awk '{ print $2 }' /tmp/prof.stages)" '{
		for (i = 1; i < NF; i += 2)
			printf "%s%s %.1f", (i > 1 ? ", " : ""), $i, n ? $(i + 1) / n : 0 }' /tmp/prof.lookups)"
}

load
[ -x $PERF ] || out "no perf in the guest: perf columns empty"
# Work sized for about 2 s each under TCG (calibrated once).
CHAIN_N=20 MANY_N=20 FORK_N=20 SYS_N=20 NOFP_N=20
for w in chain many forkexec syscall nofp; do
	t=$(run none 0 $w)
	case $w in
	nofp) NOFP_N=$(awk -v t="$t" -v n=$NOFP_N 'BEGIN { printf "%d", n * 2e9 / t + 1 }') ;;
	chain) CHAIN_N=$(awk -v t="$t" -v n=$CHAIN_N 'BEGIN { printf "%d", n * 2e9 / t + 1 }') ;;
	many) MANY_N=$(awk -v t="$t" -v n=$MANY_N 'BEGIN { printf "%d", n * 2e9 / t + 1 }') ;;
	forkexec) FORK_N=$(awk -v t="$t" -v n=$FORK_N 'BEGIN { printf "%d", n * 2e9 / t + 1 }') ;;
	syscall) SYS_N=$(awk -v t="$t" -v n=$SYS_N 'BEGIN { printf "%d", n * 2e9 / t + 1 }') ;;
	esac
done
out "work: chain $CHAIN_N units, many $MANY_N descents, forkexec $FORK_N, syscall $SYS_N units, nofp $NOFP_N units, $REPS runs each"
# the calibrating runs above were of other sizes: no bare time of those
rm -f /tmp/bench.runs

# bench-nofp.sh: issue 20's part (below) alone
# bench-frames.sh: some workloads, samplers and rates only
# Each repetition runs every configuration once, in turn (interleaved):
# a slow spell of the host falls on all of them alike, and the j-th runs
# of two samplers are a pair. stackid last, whose capture and statistics
# are looked at below. resolve=N, kernel_frames=N and the budget once
# each after.
for w in ${BENCH_NOFP_ONLY:+none} ${BENCH_HELD_ONLY:+none} ${BENCH_STAGES_ONLY:+none} ${BENCH_WORKLOADS:-chain many churn forkexec syscall}; do
	[ "$w" = none ] && break
	for hz in ${BENCH_HZ:-999 9999}; do
		profs=${BENCH_PROFS:-floor perf bpf stackid}
		[ -f /stackid/testmod/stackid.ko ] || profs=$(echo $profs | sed 's/floor//')
		[ -x $PERF ] || profs=$(echo $profs | sed 's/perf//')
		for i in $(seq $REPS); do
			run none 0 $w >/dev/null
			for prof in $profs; do
				run $prof $hz $w >/dev/null
			done
		done
		case " $profs " in *" stackid "*)
			stackid_figures "$w at $hz Hz, stackid" ;;
		esac
		base=$(tmed none 0 $w)
		line="$w at $hz Hz: bare $(awk -v t="$base" 'BEGIN { printf "%.2f s", t / 1e9 }')"
		nline="$w at $hz Hz: samples during the work (medians, all CPUs / of a task; asked $(awk -v t="$base" -v h=$hz 'BEGIN { printf "%d", 2 * h * t / 1e9 }') at the bare time)"
		cline="$w at $hz Hz: cost per sample of a task (us, medians)"
		for prof in $profs; do
			line="$line, $prof $(ratio "$(tmed $prof $hz $w)" "$base")"
			set -- $(persample $prof $hz $w $base)
			nline="$nline, $prof $1 / $2"
			cline="$cline, $prof $3"
		done
		if [ -z "${BENCH_PROFS:-}" ]; then
			for prof in stackid-N stackid-noK stackid-budget; do
				run $prof $hz $w >/dev/null
				line="$line, $prof $(ratio "$(tmed $prof $hz $w)" "$base") (one run)"
				[ $prof = stackid-noK ] &&
					out "$w at $hz Hz, stackid kernel_frames=N: handler $($S cost)"
				[ $prof = stackid-budget ] &&
					out "$w at $hz Hz, stackid max_cpu_percent=25 (the default; every other stackid run here has no budget): dropped for the budget $(st dropped_cpu_budget) of $(st samples) samples; handler $($S cost)"
			done
		fi
		out "$line (slowdowns)"
		out "$nline"
		out "$cline"
		for other in perf bpf; do
			case " $profs " in *" $other "*) ;; *) continue ;; esac
			case " $profs " in *" stackid "*) ;; *) continue ;; esac
			l="$w at $hz Hz, run by run, stackid/$other:"
			case " $profs " in *" floor "*)
				l="$l per sample above the floor $(paired $hz $w "$base" stackid $other floor),"
			esac
			out "$l per sample $(paired $hz $w "$base" stackid $other -) (equal rates), total overhead $(paired $hz $w "$base" stackid $other)"
		done
		[ $hz = 9999 ] && [ -z "${BENCH_PROFS:-}" ] && stages "$w at $hz Hz, stackid" $hz $w
	done
done
# Issue 20: the same chain built without frame pointers (nofp_bench64,
# as Debian builds: -O2, .eh_frame only), walked by unwind tables,
# against perf's --call-graph dwarf (8 KiB of stack copied per sample,
# unwound afterwards) and against stackid's own frame-pointer path on
# the chain with frame pointers, walked with the tables off (stackid-fp:
# --no-unwind-tables; on the chain without frame pointers that walk ends
# in its first frame).
for hz in ${BENCH_WORKLOADS:+none} ${BENCH_HELD_ONLY:+none} ${BENCH_STAGES_ONLY:+none} 999 9999; do
	[ "$hz" = none ] && break
	# interleaved: each repetition runs every configuration once, in
	# turn, so a slow spell of the host falls on all of them alike;
	# stackid last, whose capture and statistics are looked at below
	profs="floor perf-dwarf stackid"
	[ -f /stackid/testmod/stackid.ko ] || profs=${profs#floor }
	[ -x $PERF ] || profs=$(echo $profs | sed 's/perf-dwarf //')
	for i in $(seq $REPS); do
		run none 0 nofp >/dev/null
		run none 0 chain >/dev/null
		run stackid-fp $hz chain >/dev/null
		for prof in $profs; do
			run $prof $hz nofp >/dev/null
		done
	done
	base=$(tmed none 0 nofp)
	fpbase=$(tmed none 0 chain)
	s_fp=$(ratio "$(tmed stackid-fp $hz chain)" "$fpbase")
	set -- $(persample stackid-fp $hz chain $fpbase)
	n_stackid_fp="$1 / $2" c_stackid_fp=$3
	line="nofp at $hz Hz: bare $(awk -v t="$base" 'BEGIN { printf "%.2f s", t / 1e9 }')"
	s_perf_dwarf=0 s_floor=0
	for prof in $profs; do
		s=$(ratio "$(tmed $prof $hz nofp)" "$base")
		eval "s_$(echo $prof | tr - _)=$s"
		line="$line, $prof $s"
		set -- $(persample $prof $hz nofp $base)
		eval "n_$(echo $prof | tr - _)='$1 / $2' c_$(echo $prof | tr - _)=$3"
		if [ $prof = stackid ]; then
			stackid_figures "nofp at $hz Hz, stackid"
			out "nofp at $hz Hz, stackid: $(grep -E 'unwind tables' /tmp/prof.err | head -n 2 | tr -s ' \n' ' ')"
			out "nofp at $hz Hz, stackid: $(stackid report -i /tmp/prof.cap --format text 2>/dev/null | grep -c -- '-- stop: end') walks to the stack's end of $($S frames /tmp/prof.cap 0 | awk '{ print $3 }') samples"
		fi
		[ $prof = perf-dwarf ] &&
			out "nofp at $hz Hz, perf --call-graph dwarf: $(cat /tmp/prof.size 2>/dev/null) bytes of perf.data"
	done
	out "$line; the frame-pointer chain under stackid $s_fp (slowdowns)"
	out "nofp at $hz Hz: samples during the work (medians, all CPUs / of a task): floor ${n_floor:-?}, perf-dwarf ${n_perf_dwarf:-?}, stackid ${n_stackid:-?}, stackid-fp ${n_stackid_fp:-?}"
	out "nofp at $hz Hz: cost per sample of a task (us, (time - bare) / samples): floor ${c_floor:-?}, perf-dwarf ${c_perf_dwarf:-?}, stackid ${c_stackid:-?}, stackid-fp ${c_stackid_fp:-?}"
	out "nofp at $hz Hz: per sample above the floor: stackid/perf-dwarf $(awk -v a="${c_stackid:-0}" -v b="${c_perf_dwarf:-0}" -v f="${c_floor:-0}" 'BEGIN { printf "%.2f", (b - f > 0 ? (a - f) / (b - f) : 0) }'), tables/frame pointers $(awk -v a="${c_stackid:-0}" -v b="${c_stackid_fp:-0}" -v f="${c_floor:-0}" 'BEGIN { printf "%.2f", (b - f > 0 ? (a - f) / (b - f) : 0) }') (cost ratios)"
	out "nofp at $hz Hz: overhead stackid/perf-dwarf $(awk -v a="$s_stackid" -v b="$s_perf_dwarf" 'BEGIN { printf "%.2f", (b > 1 ? (a - 1) / (b - 1) : 0) }'), above the floor $(awk -v a="$s_stackid" -v b="$s_perf_dwarf" -v f="$s_floor" 'BEGIN { printf "%.2f", (b > f ? (a - f) / (b - f) : 0) }'), tables/frame pointers on the same chain $(awk -v a="$s_stackid" -v b="$s_fp" 'BEGIN { printf "%.2f", (b > 1 ? (a - 1) / (b - 1) : 0) }') (overhead ratios)"
	if [ -n "$s_perf_dwarf" ] && [ "$s_perf_dwarf" != 0 ]; then
		out "nofp at $hz Hz, run by run: per sample above the floor stackid/perf-dwarf $(paired $hz nofp "$base" stackid perf-dwarf floor), per sample $(paired $hz nofp "$base" stackid perf-dwarf -) (equal rates), total overhead stackid/perf-dwarf $(paired $hz nofp "$base" stackid perf-dwarf)"
	fi
	stages "nofp at $hz Hz, stackid" $hz nofp
done
# Issue 18: what taking a deferral slot back costs the handler. Batches
# of 8 tasks, each its own copy of sysloop, sampled while they poll()
# 65,536 entries on CPU 0 and then asleep in that poll(), started 1.2 s
# apart (as sampler.sh's test): each batch's samples there find CPU 0's
# 8 slots held by the batch before, and take them back. The test build
# times each take-back (test_take_back_ns: from the search for a slot to
# the last record of that slot written), at 9999 Hz, against the
# handler's cost over the whole recording.
held() {
	local p b k i hs= before after
	[ -f /stackid/testmod/stackid.ko ] || return
	rmmod stackid
	insmod /stackid/testmod/stackid.ko $NOBUDGET || { load; return; }
	stackid record -F 9999 -o /tmp/prof.cap >/tmp/prof.err 2>&1 &
	p=$!
	ready $p
	before=$(cat /sys/module/stackid/parameters/test_take_back_ns)
	rm -f /tmp/held.*
	for b in $(seq ${BENCH_HELD_BATCHES:-6}); do
		for k in $(seq 8); do cp /stackid/sysloop /tmp/held.$b.$k; done
		taskset -c 1 /stackid/sysloop held 65536 0 /tmp/held.$b.* \
			>/tmp/held.pid.$b &
		hs="$hs $!"
		i=0
		while [ ! -s /tmp/held.pid.$b ] && [ $i -lt 600 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		sleep 1.2
	done
	after=$(cat /sys/module/stackid/parameters/test_take_back_ns)
	kill -INT $p
	wait $p
	# let go: the children die with their parent, their works run
	kill $hs 2>/dev/null
	wait $hs 2>/dev/null
	unheld >/dev/null
	out "held (${BENCH_HELD_BATCHES:-6} batches of 8 tasks asleep in the kernel on CPU 0, 9999 Hz): $(echo $before $after | awk '{
		n = $10 - $2; s = $12 - $4; t = $14 - $6
		if (n > 0)
			printf "%d slots taken back, %d samples written by them (%.1f each); per take-back mean %.1f us, max %.1f us (the largest of the module'"'"'s life)", n, s, s / n, t / n / 1000, $16 / 1000
		else
			printf "no slot taken back"
	}'); handler over the recording: $($S cost); taken back $(st defer_taken_back), no slot $(st defer_no_slot)"
	rm -f /tmp/held.*
	rmmod stackid
	load
}
case "${BENCH_WORKLOADS:-}${BENCH_NOFP_ONLY:-}${BENCH_STAGES_ONLY:-}" in
"") held ;;
esac
# bench-stages.sh: the handler's stages alone, REPS runs of each workload
for w in ${BENCH_STAGES_ONLY:+$BENCH_WORKLOADS}; do
	for i in $(seq $REPS); do
		stages "$w at 9999 Hz, stackid, run $i of $REPS" 9999 $w
	done
done
rmmod stackid
pass "bench ran"
