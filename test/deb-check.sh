#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test/deb-check.sh DEBDIR: the packages `make deb` built, in a clean
# chroot of the 6.1 kernel line's Debian release (test/kernels.conf:
# bookworm; test/chroot.sh, a fresh copy of the cached one under
# DEBDIR/root): apt installs that line's headers and both packages; DKMS must build and install the
# module for that kernel; the command and man page must work; the units
# must pass systemd-analyze verify and stay disabled. Nothing touches the
# host's /usr/src, /lib/modules or DKMS tree. TAP on stdout, then
# "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
debdir=$(cd "${1:?usage: test/deb-check.sh DEBDIR}" && pwd)
root=$debdir/root
# the 6.1 line of test/kernels.conf: NAME RELEASE HEADERS IMAGE
read -r release hdr < <(awk '$1 == "6.1" && NF >= 4 {print $2, $3}' \
	"$top/test/kernels.conf")
[ -n "${hdr:-}" ] || { echo "not ok 1 - no 6.1 line in test/kernels.conf"
	echo "0 passed, 1 failed"; exit 1; }
t0=$(date +%s)

mkdir -p "$root.in"
rm -f "$root.in"/*.deb
cp "$debdir"/stackid_*_amd64.deb "$debdir"/stackid-dkms_*_all.deb "$root.in"/
cat >"$root.in/inside.sh" <<EOF_INSIDE
#!/bin/sh
# runs in the chroot: TAP lines, each check one line
n=0
ok() { n=\$((n + 1)); echo "ok \$n - \$*"; }
nok() { n=\$((n + 1)); echo "not ok \$n - \$*"; }
check() { if [ "\$1" = 0 ]; then shift; ok "\$@"; else shift; nok "\$@"; fi; }
log=/tmp/in/apt.log
apt-get update -q >\$log 2>&1 &&
apt-get install -y -q $hdr systemd man-db >>\$log 2>&1
check \$? "apt: $hdr, systemd, man-db"
kver=\$(ls /lib/modules | sort -V | tail -n 1)
apt-get install -y -q /tmp/in/stackid-dkms_*_all.deb /tmp/in/stackid_*_amd64.deb \\
	>>\$log 2>&1
rc=\$?
check \$rc "apt installs stackid-dkms and stackid"
[ \$rc = 0 ] || tail -n 30 \$log | sed 's/^/# /'
st=\$(dkms status stackid 2>&1)
built=1
[ -n "\$kver" ] &&
	echo "\$st" | grep -q "stackid/.*, \$kver, x86_64: installed" &&
	[ -f /lib/modules/\$kver/updates/dkms/stackid.ko ] &&
	[ -f /lib/modules/\$kver/updates/dkms/stackid_anchor.ko ] &&
	modinfo -k \$kver stackid | grep -q '^name: *stackid' &&
	modinfo -k \$kver stackid | grep -q '^depends: *stackid_anchor' && built=0
check \$built "DKMS built and installed the modules for \$kver, stackid depending on stackid_anchor (\$st)"
[ -f /usr/src/stackid-*/dkms.conf ] && [ -f /usr/src/stackid-*/Kbuild ]
check \$? "sources in /usr/src/\$(cd /usr/src && ls -d stackid-*)"
stackid --version | grep -q '^stackid ' && stackid report --help | grep -q pprof
check \$? "the command runs: \$(stackid --version)"
man -w stackid >/dev/null 2>&1
check \$? "man page: \$(man -w stackid 2>/dev/null)"
out=\$(systemd-analyze verify stackid.service stackid-push.service stackid-module.service 2>&1)
[ -z "\$out" ]
check \$? "systemd-analyze verify stackid.service stackid-push.service stackid-module.service\${out:+: \$out}"
[ "\$(systemctl is-enabled stackid.service 2>&1)" = disabled ] &&
	[ "\$(systemctl is-enabled stackid-push.service 2>&1)" = disabled ]
check \$? "both services installed disabled (off by default)"
grep -q '^STACKID_FREQ=' /etc/default/stackid &&
	grep -q '^STACKID_URL=\$' /etc/default/stackid
check \$? "/etc/default/stackid: frequency, retention, backend URL (empty)"
[ \$built = 0 ] && apt-get remove -y -q stackid-dkms >>\$log 2>&1 &&
	! dkms status stackid 2>/dev/null | grep -q installed &&
	[ ! -e /lib/modules/\$kver/updates/dkms/stackid.ko ] &&
	[ ! -e /lib/modules/\$kver/updates/dkms/stackid_anchor.ko ]
check \$? "apt remove stackid-dkms: DKMS removes the modules"
EOF_INSIDE
chmod +x "$root.in/inside.sh"

# The chroot sees the packages and the script at /tmp/in (a copy).
"$top/test/chroot.sh" copy "$release" "$root" >/dev/null || {
	echo "not ok 1 - test/chroot.sh $release"
	echo "0 passed, 1 failed"
	exit 1
}
mkdir -p "$root/tmp/in"
cp "$root.in"/* "$root/tmp/in/"
out=$("$top/test/chroot.sh" run "$root" -- /tmp/in/inside.sh 2>&1)
echo "$out"
pass=$(echo "$out" | grep -c '^ok ')
fail=$(echo "$out" | grep -c '^not ok ')
[ "$pass" -gt 0 ] || fail=$((fail + 1))
echo "# deb-check: $(($(date +%s) - t0)) s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
