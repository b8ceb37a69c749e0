#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test/system.sh's stages, inside the Debian 12 guest: run by the image's
# sidtest-driver.service at each boot, from the second disk (/e2e: the .deb
# files, the programs, env with K1 and K2). Which boot this is comes from
# /var/lib/sidtest/stage. TAP lines without numbers (test/system.sh
# numbers them), "# " comments, and last "# next: reboot" or
# "# next: done" before the guest reboots or powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
. /e2e/env
# Where the kernel's int3 path lies, on the heartbeat's serial port
# (test/system.sh's sidtest-beat.service writes the dots).
sh /e2e/int3-path.sh >/dev/ttyS2 2>/dev/null
state=/var/lib/sidtest
mkdir -p $state
stage=$(cat $state/stage 2>/dev/null || echo 1)
caps=/var/lib/stackid/captures
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }
check() { if [ "$1" = 0 ]; then shift; ok "$@"; else shift; nok "$@"; fi; }
say() { echo "# $*"; }
t0=$(date +%s)
since() { echo $(($(date +%s) - $1)); }

# logged LOG CMD...: run CMD into LOG, which the kernel log (so the
# harness's console-N.log, with times) follows; CMD's exit status.
logged() {
	local log=$1 rc tp
	shift
	: >"$log"
	tail -n +1 -f "$log" 2>/dev/null | while IFS= read -r l; do
		echo "sidtest: $l" >/dev/kmsg
	done 2>/dev/null &
	tp=$!
	"$@" >"$log" 2>&1
	rc=$?
	sleep 1
	kill $tp 2>/dev/null
	pkill -f "tail -n +1 -f $log" 2>/dev/null
	return $rc
}

# wait_for SECONDS CMD...: until CMD succeeds; 1 if it never did.
wait_for() {
	local n=$1
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 1
	done
}

# closed captures newer than the file $state/mark
new_caps() { find $caps -maxdepth 1 -name 'stackid-*.cap' -newer $state/mark | sort; }
two_new_caps() { [ "$(new_caps | wc -l)" -ge 2 ]; }

# qsort_walks: the workload's samples in cmp in the captures closed
# since $state/mark, in order: "W J H" (warm-up, judged, whole) and
# then up to three judged samples that are not whole, one per line
# (their frames innermost first, and how their walk stopped). Whole: up
# through libc's qsort (Debian's libc: no frame pointers) to run and
# main. The warm-up is what came before the first whole one: the tables
# are loaded as the recorder learns each file, so the first samples of
# a recording end in libc. It is counted in samples, never in seconds
# or captures: the guest's clock is not the host's (a capture of 5 s
# held 21 to 113 of these samples, and once 25 of them after the
# guest's clock had jumped by 2,200 s, its first capture ending in
# libc too). Each capture is closed, so it is reported once
# ($state/walks), however often this is asked.
qsort_walks() {
	mkdir -p $state/walks
	new_caps | while read -r f; do
		t=$state/walks/${f##*/}.txt
		[ -e "$t" ] || { stackid report -i "$f" >"$t.tmp" 2>/dev/null
			mv "$t.tmp" "$t"; }
		cat "$t"
	done | awk '
	function judge(  i, k, w, l) {
		if (comm != "nofp_qsort" || nf < 1 || fr[0] != "cmp")
			return
		k = 0
		for (i = 1; i < nf && k < 2; i++)
			if (k == 0 && fr[i] ~ /qsort/)
				k = 1
			else if (k == 1 && fr[i] == "run" && i + 1 < nf &&
				 fr[i + 1] == "main")
				k = 2
		w = k == 2
		if (!seen && !w) {
			warm++
			return
		}
		seen = 1
		judged++
		whole += w
		if (!w && bad < 3) {
			l = fr[0]
			for (i = 1; i < nf; i++)
				l = l ";" fr[i]
			why[bad++] = l " (stop: " stop ")"
		}
	}
	/^[0-9]/ { comm = $4; nf = 0; stop = "-"; next }
	/^\t-- stop: / { stop = $3; next }
	/^\t/ { sub(/^\t/, ""); sub(/ .*/, ""); fr[nf++] = $0; next }
	/^$/ { judge(); comm = "" }
	END {
		judge()
		print warm + 0, judged + 0, whole + 0
		for (i = 0; i < bad; i++)
			print why[i]
	}'
}

# whole_stacks: waits (up to 180 s) for at least 40 of the workload's
# samples in cmp after the warm-up, then "H of J reach main, after a
# warm-up of W" and 0 if at least 95 % of them are whole and the
# warm-up is at most as long as what was judged. The samples that are
# not whole (three at most) follow as "# " lines.
whole_stacks() {
	local n=180 out w j h
	while :; do
		out=$(qsort_walks)
		set -- $(echo "$out" | head -n 1)
		w=$1 j=$2 h=$3
		[ "$j" -ge 40 ] && break
		n=$((n - 5))
		[ $n -gt 0 ] || break
		sleep 5
	done
	echo "$h of $j reach main, after a warm-up of $w ($(new_caps | wc -l) captures)"
	echo "$out" | sed -n '2,$s/^/# not whole: /p'
	[ "$j" -ge 40 ] && [ "$w" -le "$j" ] && [ $((h * 100)) -ge $((j * 95)) ]
}

# no_errors: nothing at priority err or worse from the services in this
# boot, and no kernel warning at all.
no_errors() {
	local j k
	j=$(journalctl -b -q --no-pager -p err -u stackid.service \
		-u stackid-push.service -u stackid-module.service 2>&1)
	# DKMS signs the module with its own key (/var/lib/dkms/mok.pub);
	# a kernel that was not told to trust it says so once when it
	# loads it (stackid_anchor, which modprobe loads first): the README's
	# Secure Boot section, not an error.
	k=$(journalctl -b -q --no-pager -k 2>&1 | grep -v ' sidtest: ' |
		grep -vE 'stackid(_anchor)?: module verification failed: signature and/or required key missing' |
		grep -E 'WARNING:|BUG:|Call Trace|stackid.*(error|fail)')
	check $([ -z "$j$k" ]; echo $?) "the journal shows no error from the services or the kernel${j:+: $j}${k:+: $k}"
}

loaded() { grep -q '^stackid ' /proc/modules; }
# stackid or its task-work module (src/anchor.c)
any_loaded() { grep -qE '^stackid(_anchor)? ' /proc/modules; }
# in_updates KVER: modprobe finds DKMS's build for KVER (.ko, or .ko.xz
# where the kernel's modules are compressed: 6.12)
in_updates() {
	case $(modinfo -k "$1" -n stackid 2>/dev/null) in
	/lib/modules/"$1"/updates/dkms/stackid.ko*) return 0 ;;
	esac
	return 1
}
states() { echo $(systemctl is-active stackid.service stackid-push.service); }
both_active() { [ "$(states)" = "active active" ]; }
svc_active() { [ "$(systemctl is-active stackid.service)" = active ]; }
# restarts: the recorder started the first time in this boot. A start
# that fails is restarted after RestartSec=10s and would go unnoticed
# otherwise: the unit's exit is logged below priority err. It did fail
# when the recorder loaded the module itself in ExecStartPre, after its
# device policy was built without /dev/stackid.
restarts() {
	local n
	n=$(systemctl show -p NRestarts --value stackid.service)
	check $([ "$n" = 0 ]; echo $?) "the recorder started at the first try in this boot (NRestarts=$n; stackid-module.service $(systemctl is-active stackid-module.service))"
}

# start_work: the qsort program, as a service of its own
start_work() {
	systemctl stop e2e-work.service 2>/dev/null
	systemd-run -q --unit=e2e-work /usr/local/bin/nofp_qsort
}

case $stage in
1)
	say "boot 1: $(uname -r), systemd $(systemctl --version | head -n 1)"
	[ "$(uname -r)" = "$K1" ] && [ "$(cat /proc/1/comm)" = systemd ]
	check $? "booted Debian's $K1 with systemd as init"
	cp /e2e/bin/* /usr/local/bin/
	cp /e2e/debs/*.deb /tmp/
	t=$(date +%s)
	logged $state/apt1.log apt-get install -y -q /tmp/stackid-dkms_*_all.deb \
		/tmp/stackid_*_amd64.deb
	rc=$?
	check $rc "apt install ./stackid-dkms_*.deb ./stackid_*.deb ($(since $t) s)"
	[ $rc = 0 ] || tail -n 30 $state/apt1.log | sed 's/^/# /'
	st=$(dkms status stackid 2>/dev/null)
	echo "$st" | grep -q ", $K1, x86_64: installed" &&
		ls /lib/modules/$K1/updates/dkms/stackid.ko* >/dev/null 2>&1
	check $? "DKMS built and installed the module in the guest for $K1 ($st)"
	! loaded && [ "$(systemctl is-enabled stackid.service)" = disabled ] &&
		[ "$(systemctl is-enabled stackid-push.service)" = disabled ]
	check $? "installed off: services disabled, module not loaded"

	# README: set the URL (and here a short rotation) in
	# /etc/default/stackid, then enable --now.
	sed -i -e 's|^STACKID_URL=.*|STACKID_URL=http://127.0.0.1:4040|' \
		-e 's|^STACKID_ROTATE=.*|STACKID_ROTATE=5|' \
		-e 's|^STACKID_PUSH_OPTS=.*|STACKID_PUSH_OPTS="--interval 2 --label test=e2e"|' \
		/etc/default/stackid
	systemd-run -q --unit=e2e-ingest /usr/local/bin/ingest 4040 $state/ingest.log
	start_work
	touch $state/mark
	systemctl enable --now stackid.service >$state/enable.log 2>&1
	check $? "systemctl enable --now stackid"
	wait_for 30 loaded && wait_for 30 both_active
	check $? "the service loaded the module; stackid and stackid-push are active ($(states))"
	wait_for 120 two_new_caps
	check $? "records with rotation: $(new_caps | wc -l) closed captures in $caps"
	restarts
	w=$(whole_stacks)
	check $? "whole stacks through libc: of nofp_qsort's samples in cmp, $(echo "$w" | head -n 1)"
	echo "$w" | sed 1d
	# name=stackid.cpu{host=sidtest,test=e2e}, URL-encoded
	wait_for 60 grep -q '^POST /ingest?name=stackid\.cpu%7B.*host%3Dsidtest' $state/ingest.log
	check $? "stackid-push shipped the closed captures to the ingest endpoint on loopback"
	say "ingest: $(wc -l <$state/ingest.log) requests, first: $(head -n 1 $state/ingest.log)"
	grep '^POST ' $state/ingest.log | awk '$3 > 0 && $2 ~ /format=pprof/ && $2 ~ /test%3De2e/ {n++} END {exit !n}'
	check $? "the requests carry pprof bodies with the configured labels"
	no_errors
	echo 2 >$state/stage
	say "boot 1 took $(since $t0) s"
	echo "# next: reboot"
	sync
	systemctl reboot
	;;
2)
	say "boot 2: $(uname -r)"
	touch $state/mark
	[ "$(uname -r)" = "$K1" ] && loaded &&
		in_updates $K1
	check $? "after reboot, the module is loaded again ($(modinfo -n stackid 2>&1))"
	wait_for 30 both_active
	check $? "after reboot, stackid and stackid-push are active by themselves ($(states))"
	wait_for 60 two_new_caps
	check $? "the service records again: $(new_caps | wc -l) captures closed in this boot"
	restarts

	t=$(date +%s)
	# from local files, as the first packages (apt's _apt user cannot
	# read /root); without the image's recommendation of apparmor, which
	# this offline guest cannot fetch
	cp /root/kernel2/*.deb /tmp/
	logged $state/apt2.log apt-get install -y -q \
		-o APT::Install-Recommends=false /tmp/linux-*.deb
	rc=$?
	check $rc "apt install the second kernel, $K2, and its headers ($(since $t) s)"
	[ $rc = 0 ] || tail -n 30 $state/apt2.log | sed 's/^/# /'
	st=$(dkms status stackid 2>/dev/null)
	echo "$st" | grep -q ", $K2, x86_64: installed" &&
		modinfo -k $K2 -F vermagic stackid |
		grep -q "^$K2 "
	check $? "DKMS autoinstall built the module for $K2 ($(echo "$st" | grep -F "$K2"))"
	[ "$(readlink /vmlinuz)" = "boot/vmlinuz-$K2" ]
	check $? "/vmlinuz points at $K2 (the next boot's kernel)"

	# A kernel stackid cannot support (dkms.conf's BUILD_EXCLUSIVE):
	# what a kernel package's postinst runs for it must succeed and
	# build nothing. Its headers: the first kernel's, so that only the
	# version decides.
	kx=4.19.0-99-amd64
	mkdir -p /lib/modules/$kx
	ln -sfn /usr/src/linux-headers-$K1 /lib/modules/$kx/build
	out=$( { /etc/kernel/header_postinst.d/dkms $kx &&
		/etc/kernel/postinst.d/dkms $kx; } 2>&1)
	rc=$?
	[ $rc = 0 ] && ! dkms status stackid 2>/dev/null | grep -q "$kx" &&
		! ls /lib/modules/$kx/updates/dkms/stackid.ko* >/dev/null 2>&1
	check $? "a kernel it cannot support ($kx) is skipped: the kernel hooks exit $rc, nothing built${out:+ (}$(echo "$out" | tail -n 1)${out:+)}"
	dkms build stackid/$(dkms status stackid | sed -n '1s|^stackid/\([^,]*\),.*|\1|p') \
		-k $kx >$state/excl.log 2>&1
	rc=$?
	[ $rc = 77 ] && grep -q BUILD_EXCLUSIVE $state/excl.log
	check $? "dkms build for $kx stops with BUILD_EXCLUSIVE (exit $rc)"
	rm -rf /lib/modules/$kx
	no_errors
	echo 3 >$state/stage
	say "boot 2 took $(since $t0) s"
	echo "# next: reboot"
	sync
	systemctl reboot
	;;
3)
	say "boot 3: $(uname -r)"
	touch $state/mark
	start_work
	[ "$(uname -r)" = "$K2" ] && loaded &&
		in_updates $K2
	check $? "the second kernel runs, with the module DKMS built for it ($(modinfo -n stackid 2>&1))"
	wait_for 30 svc_active
	check $? "the service runs on $K2 ($(states))"
	wait_for 60 two_new_caps
	check $? "and records: $(new_caps | wc -l) captures closed in this boot"
	restarts
	w=$(whole_stacks)
	check $? "whole stacks through libc on $K2: of nofp_qsort's samples in cmp, $(echo "$w" | head -n 1)"
	echo "$w" | sed 1d

	for u in stackid stackid-push stackid-module; do
		e=$(systemd-analyze security --no-pager $u.service 2>/dev/null |
			sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) \(.*\)/\1 \2/p')
		say "systemd-analyze security $u.service: ${e:-?}"
		awk -v e="${e%% *}" 'BEGIN { exit !(e != "" && e + 0 <= 5.0) }'
		check $? "$u.service exposure ${e:-unknown} (at most 5.0 asked)"
	done

	systemctl stop stackid.service
	rc=$?
	last=$(find $caps -maxdepth 1 -name 'stackid-*.cap' | sort | tail -n 1)
	tmp=$(find $caps -maxdepth 1 -name '.*.tmp' | wc -l)
	end=$(/usr/local/bin/sidcheck capend "$last")
	erc=$?
	[ $rc = 0 ] && [ $erc = 0 ] && [ "$tmp" = 0 ]
	check $? "systemctl stop: the last capture is closed and complete ($end; $tmp partial files)"
	stackid report -i "$last" --format folded >/dev/null 2>$state/report.err
	check $? "stackid report reads it$(head -c 200 $state/report.err | tr '\n' ' ')"
	no_errors

	systemctl stop e2e-work.service
	t=$(date +%s)
	logged $state/purge.log apt-get purge -y -q stackid stackid-dkms
	rc=$?
	check $rc "apt purge stackid stackid-dkms ($(since $t) s)"
	[ $rc = 0 ] || tail -n 30 $state/purge.log | sed 's/^/# /'
	! any_loaded
	check $? "nothing left loaded ($(grep -E '^stackid' /proc/modules | cut -d' ' -f1))"
	left=$(ls -d /lib/modules/*/updates/dkms/stackid.ko* \
		/lib/modules/*/updates/dkms/stackid_anchor.ko* /var/lib/dkms/stackid \
		/usr/src/stackid-* /lib/systemd/system/stackid*.service \
		/etc/systemd/system/*/stackid*.service /etc/default/stackid \
		/var/lib/stackid /usr/bin/stackid 2>/dev/null)
	check $([ -z "$left" ]; echo $?) "module, DKMS tree, sources, units, configuration and state are gone${left:+: left }$(echo $left)"
	u=$(systemctl list-units --all --no-legend 'stackid*')
	n=$(echo "$u" | grep -c .)
	check $([ "$n" = 0 ]; echo $?) "systemd knows no stackid unit any more ($n)"
	echo "$u" | grep . | sed 's/^/# unit left: /'
	echo done >$state/stage
	say "boot 3 took $(since $t0) s"
	echo "# next: done"
	sync
	systemctl poweroff
	;;
*)
	echo "# next: done"
	systemctl poweroff
	;;
esac
