# SPDX-License-Identifier: GPL-2.0
# The stackid command on the real device: a recording of the known
# program, reported as symbolized folded stacks, shows its exact chain
# across the executable and the library as the hottest stack; the
# unsymbolized report carries the build-ids readelf shows; the capture
# names the file behind each build-id.
. /stackid/lib.sh
load
for m in 64 32; do
	spawn /stackid/chain$m
	check "chain$m: stackid record" \
		sh -c "stackid record -F 199 -p $pid -d 3 -o /tmp/r$m.cap 2>/tmp/r$m.err"
	# wakeups: by the watermark or the 100 ms timer, not per sample
	d=$(sed -n 's/^ *delivered *\([0-9]*\).*/\1/p' /tmp/r$m.err)
	w=$(sed -n 's/^ *wakeups *\([0-9]*\).*/\1/p' /tmp/r$m.err)
	check "chain$m: $d samples, ${w:-0} reader wakeups (<= 40, < samples / 5)" \
		test "${w:-0}" -le 40 -a "$((${w:-0} * 5))" -lt "${d:-0}"
	kill "$pid"
	stackid report -i /tmp/r$m.cap --format folded >/tmp/f$m.txt 2>&1
	head -n 3 /tmp/f$m.txt | sed 's/^/# /'
	top=$(head -n 1 /tmp/f$m.txt)
	case $top in
	"chain$m;"*";main;app_a1;app_a2;app_a3;lib_b1;lib_b2;lib_spin "*)
		pass "chain$m: hottest folded stack is the known chain" ;;
	*)	fail "chain$m: hottest folded stack is the known chain" ;;
	esac
	exe=$(sed -n 's/^main \([0-9a-f]*\) .*/\1/p' /stackid/expect/chain$m)
	lib=$(sed -n 's/^lib_spin \([0-9a-f]*\) .*/\1/p' /stackid/expect/chain$m)
	stackid report -i /tmp/r$m.cap --format folded --no-symbols \
		>/tmp/n$m.txt 2>&1
	top=$(head -n 1 /tmp/n$m.txt)
	case $top in
	*";$exe+0x"*";$lib+0x"*)
		pass "chain$m: unsymbolized stack carries readelf's build-ids" ;;
	*)	fail "chain$m: unsymbolized stack carries readelf's build-ids"
		echo "#   $top" ;;
	esac
	$S paths /tmp/r$m.cap >/tmp/p$m.txt
	sed 's/^/# /' /tmp/p$m.txt
	check "chain$m: capture maps $exe to its file" \
		grep -qx "$exe /stackid/chain$m" /tmp/p$m.txt
	check "chain$m: capture maps $lib to its file" \
		grep -qx "$lib /stackid/libchain$m.so" /tmp/p$m.txt
done
$S mmapcheck
$S recipe
# A reader that wrote nonsense everywhere in its mappings (sidcheck
# hostile ends with one) must cost the next reader nothing: stackid
# record right after it records the known chain.
$S hostile
spawn /stackid/chain64
check "stackid record after a reader that wrote garbage into its mappings" \
	sh -c "stackid record -F 199 -p $pid -d 2 -o /tmp/h.cap 2>/tmp/h.err"
kill "$pid"
stackid report -i /tmp/h.cap --format folded >/tmp/h.txt 2>&1
case $(head -n 1 /tmp/h.txt) in
"chain64;"*";main;app_a1;app_a2;app_a3;lib_b1;lib_b2;lib_spin "*)
	pass "... and its capture's hottest stack is the known chain" ;;
*)	fail "... and its capture's hottest stack is the known chain"
	sed 's/^/#   /' /tmp/h.err /tmp/h.txt | head -n 10 ;;
esac

# A new file's path wakes a reader asleep in poll() within 20 ms, so
# that `stackid record` can load the file's unwind table before the
# next period (its 1 s; 10 s here, the watermark a whole ring): each of
# three programs, started in an enable of its own after 1 s, must have
# its path read within 8 s of its start, before the period ends. Before
# 2026-12-06 a reader learnt them at the next period only (6.12, when
# each waited 2.5 s: none of three in time; 8 s at 999 Hz: one of three,
# by a full ring after 5 s, hence 99 Hz); now 62 to 104 ms on 6.12, 608
# to 699 ms on the debug kernel beside a parallel build (999 Hz).
$S pathwake /stackid/bid8 /stackid/bid16 /stackid/bid20
rmmod stackid
