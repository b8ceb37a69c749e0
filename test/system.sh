#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test/system.sh DEBDIR: stackid as a user installs and lives with it, on
# a real Debian 12 system booted under QEMU with systemd as init.
#
# The system is a disk image made from the cached bookworm chroot
# (test/chroot.sh): systemd, Debian's 6.1 kernel (the 6.1 line of
# test/kernels.conf) installed as a package with its headers, and the
# packages of the 6.12 line's kernel in its cloud flavour waiting in
# /root/kernel2 (a third of the generic flavour's 107 MB of modules,
# which under TCG took most of boot 2 to unpack, depmod twice and pack
# an initramfs from; the VM lines run the generic one). It is made
# once and cached as $STACKID_CACHE/system/KEY.img; each run boots a
# sparse copy. The harness plays the boot loader: it boots the kernel
# and initrd that the image's /vmlinuz and /initrd.img point to, as
# GRUB's default entry would, and boots again when the guest reboots.
#
# Inside, test/guest/system-stage.sh (from a second disk with the .deb
# files of DEBDIR and the test's own ingest server) runs at each boot:
#   boot 1 (6.1): apt install both packages (DKMS builds the module in
#     the guest), enable the service through /etc/default/stackid,
#     record, rotate, push to the ingest server on loopback; reboot;
#   boot 2 (6.1): the module and the service are back by themselves;
#     install the second kernel: DKMS autoinstall builds for it; a
#     kernel stackid cannot support is skipped; reboot;
#   boot 3 (6.12, cloud): the service works there; stopping it leaves
#     the last capture complete; systemd-analyze security; apt purge
#     leaves nothing behind.
# TAP on stdout (each boot's lines, numbered here), then
# "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib.sh"

# Bump when a change below alters what the image contains.
recipe=1
# What the image has besides the chroot's base (make, dkms, kmod, ...):
# systemd as init, the first kernel and its headers, the libraries the
# stackid package links (its shlibs: the guest installs offline).
pkgs="systemd-sysv udev procps initramfs-tools libcurl4 libdebuginfod1"

die() { echo "system: $*" >&2; exit 1; }

k1=$(kernel_of 6.1)
k2=$(kernel_of 6.12)
[ -n "$k1" ] && [ -n "$k2" ] || die "no 6.1 or 6.12 line resolved (run test/setup.sh)"
k2=${k2%-amd64}-cloud-amd64

key=$(echo "$recipe $pkgs $k1 $k2 $(sed -n '/^# IMAGE-BEGIN/,/^# IMAGE-END/p' "$0")" |
	sha256sum | cut -c1-12)
sysdir=$STACKID_CACHE/system
img=$sysdir/bookworm-$key.img

# IMAGE-BEGIN (the recipe: part of the cache key)
make_image() {
	local root=$sysdir/bookworm-$key.root
	echo "system: making the Debian 12 image (once; a few minutes)" >&2
	"$top/test/chroot.sh" copy bookworm "$root" >/dev/null ||
		die "test/chroot.sh copy bookworm"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	in_root() {
		"$top/test/chroot.sh" run "$root" -- env DEBIAN_FRONTEND=noninteractive "$@"
	}
	{
		in_root apt-get -q update &&
		in_root apt-get -q -y -o APT::Install-Recommends=false install \
			$pkgs "linux-image-$k1" "linux-headers-$k1" &&
		mkdir -p "$root/root/kernel2" &&
		in_root sh -c "cd /root/kernel2 && apt-get -q download \
			linux-image-$k2 linux-headers-$k2 \
			\$(apt-cache depends linux-headers-$k2 | sed -n 's/^ *Depends: \(linux-\(headers\|kbuild\)-.*\)/\1/p')" &&
		in_root apt-get clean
	} >"$root.log" 2>&1 || { tail -n 20 "$root.log" >&2; die "installing in the image failed (log: $root.log)"; }
	# A system, not a chroot: daemons may start; no apt timers or
	# network waits in the test's boots.
	rm -f "$root/usr/sbin/policy-rc.d" "$root/etc/resolv.conf"
	echo sidtest >"$root/etc/hostname"
	# The guest's later initramfs (the second kernel's): only the modules
	# this machine boots with (virtio disk, ext4), as initramfs.conf(5)
	# offers, instead of most of the kernel's: under TCG, packing most
	# of 6.12's compressed modules took longer than DKMS's build.
	echo MODULES=dep >"$root/etc/initramfs-tools/conf.d/sidtest"
	printf '/dev/vda / ext4 defaults 0 1\n' >"$root/etc/fstab"
	in_root passwd -d root >/dev/null
	in_root systemctl mask apt-daily.timer apt-daily-upgrade.timer \
		e2scrub_all.timer fstrim.timer systemd-networkd-wait-online.service \
		>/dev/null 2>&1 || true
	# The test's driver: at each boot, the stage script of the second
	# disk, its TAP to the second serial port.
	cat >"$root/etc/systemd/system/sidtest-driver.service" <<-'EOF'
	[Unit]
	Description=test/system.sh's driver
	After=multi-user.target
	[Service]
	Type=oneshot
	ExecStart=/bin/sh -c 'mkdir -p /e2e && mount -o ro /dev/vdb /e2e && exec /e2e/system-stage.sh'
	StandardOutput=file:/dev/ttyS1
	StandardError=inherit
	TimeoutStartSec=infinity
	[Install]
	WantedBy=multi-user.target
	EOF
	# A heartbeat on the third serial port from early in each boot, a
	# dot every 5 s (test/hang-watch.sh; the stage adds where the
	# kernel's int3 path lies).
	cat >"$root/etc/systemd/system/sidtest-beat.service" <<-'EOF'
	[Unit]
	Description=test/system.sh's heartbeat
	DefaultDependencies=no
	[Service]
	ExecStart=/bin/sh -c 'while :; do echo .; sleep 5; done'
	StandardOutput=file:/dev/ttyS2
	Restart=always
	[Install]
	WantedBy=sysinit.target
	EOF
	in_root systemctl enable sidtest-driver.service sidtest-beat.service \
		>/dev/null 2>&1 || die "cannot enable the driver in the image"
	ls "$root/boot/vmlinuz-$k1" "$root/boot/initrd.img-$k1" >/dev/null ||
		die "no kernel or initrd in the image"
	rm -f "$img.tmp"
	truncate -s 6G "$img.tmp"
	mkfs.ext4 -q -F -L root -d "$root" "$img.tmp" ||
		die "mkfs.ext4 -d failed"
	mv "$img.tmp" "$img"
	rm -rf "$root"
	# images of earlier recipes
	find "$sysdir" -maxdepth 1 -name 'bookworm-*' ! -name "${img##*/}" \
		! -name "${img##*/}.root.log" -exec rm -rf {} +
}
# IMAGE-END

debdir=$(cd "${1:?usage: test/system.sh DEBDIR}" && pwd)
mkdir -p "$sysdir"
t_all=$(date +%s)
exec 9>"$sysdir/image.lock"
flock 9
[ -f "$img" ] || make_image
flock -u 9
echo "# system: image $img ($(($(date +%s) - t_all)) s)"

work=$top/build/system
rm -rf "$work"
mkdir -p "$work/data/debs" "$work/data/bin"
cp "$debdir"/stackid-dkms_*_all.deb "$debdir"/stackid_*_amd64.deb \
	"$work/data/debs/" || die "no packages in $debdir (make deb)"
cp "$top/build/guest/ingest" "$top/build/guest/sidcheck" \
	"$top/build/guest/nofp_qsort" "$work/data/bin/" ||
	die "guest programs missing (make guest)"
cp "$top/test/guest/system-stage.sh" "$top/test/guest/int3-path.sh" "$work/data/" ||
	die "test/guest/system-stage.sh, int3-path.sh"
printf 'K1=%s\nK2=%s\n' "$k1" "$k2" >"$work/data/env"
truncate -s 64M "$work/data.img"
mkfs.ext4 -q -F -d "$work/data" "$work/data.img" || die "mkfs.ext4 (data disk)"
# The disk this run changes: a sparse copy of the cached image.
cp --sparse=always "$img" "$work/disk.img"

n=0 passed=0 failed=0
tap() {	# LINE...: number and count the guest's TAP lines
	local l
	while IFS= read -r l; do
		case $l in
		"ok - "*) n=$((n + 1)); passed=$((passed + 1)); echo "ok $n - ${l#ok - }" ;;
		"not ok - "*) n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - ${l#not ok - }" ;;
		"#"*) echo "$l" ;;
		esac
	done
}
nok() { tap <<<"not ok - $*"; }

# boot_file PATH OUT: the file the image's symbolic link PATH points to
# (the boot loader's view: /vmlinuz, /initrd.img), copied out to OUT.
boot_file() {
	local dest
	dest=$(debugfs -R "stat $1" "$work/disk.img" 2>/dev/null |
		sed -n 's/^Fast link dest: "\(.*\)"$/\1/p')
	[ -n "$dest" ] || return 1
	case $dest in /*) ;; *) dest=/$dest ;; esac
	debugfs -R "dump $dest $2" "$work/disk.img" >/dev/null 2>&1 &&
		[ -s "$2" ] && basename "$dest"
}

# One system guest at a time on this machine. Not test/vm.sh's lock:
# test/check.sh runs this beside the kernel lines' guests, niced (none
# of the checks here is timed; its boots only take longer).
exec 8>/run/lock/stackid-qemu-system.lock
flock 8
next=reboot
for boot in 1 2 3 4; do
	[ "$next" = reboot ] || break
	t0=$(date +%s)
	kernel=$(boot_file /vmlinuz "$work/vmlinuz") &&
		boot_file /initrd.img "$work/initrd.img" >/dev/null || {
		nok "boot $boot: no /vmlinuz or /initrd.img in the image"
		break
	}
	echo "# boot $boot: $kernel"
	# The disk as this boot finds it: a boot whose kernel took an int3
	# oops of its own (int3_not_ours, test/lib.sh: TCG's, not
	# stackid's), or hung in its own int3 path (hang_not_ours: a guest
	# with no heartbeat for 300 s is ended by test/hang-watch.sh), is
	# run once more from it, and said so.
	cp --sparse=always "$work/disk.img" "$work/disk.before.img" ||
		die "cannot copy the disk image"
	for try in 1 2; do
		# one boot, up to its power-off or reboot (-no-reboot: QEMU
		# exits, and this loop is the boot loader); the second boot
		# takes 7 to 15 minutes alone, longer beside the kernel lines
		# and the matrix's first builds (make check)
		watch_prepare "$work"
		timeout 3000 qemu-system-x86_64 -machine q35 -cpu max -m 2048 -smp 2 \
			-display none -no-reboot -net none \
			-kernel "$work/vmlinuz" -initrd "$work/initrd.img" \
			-append "root=/dev/vda rw console=ttyS0 panic=-1 tsc=reliable" \
			-drive "file=$work/disk.img,format=raw,if=virtio,cache=unsafe" \
			-drive "file=$work/data.img,format=raw,if=virtio,readonly=on" \
			-chardev "pipe,id=mon0,path=$work/mon" -mon chardev=mon0,mode=readline \
			-serial "file:$work/console-$boot.log" \
			-serial "file:$work/results-$boot.log" \
			-serial "file:$work/beat.log" </dev/null &
		qpid=$!
		watch_start "$work" $qpid 300
		wait $qpid
		rc=$?
		watch_end
		if [ -f "$work/hang.txt" ]; then
			echo "# boot $boot: the guest hung (test/hang-watch.sh):"
			hang_show "$work/hang.txt"
		fi
		[ $try = 2 ] && break
		if int3_not_ours "$work/console-$boot.log"; then
			echo "# boot $boot: the guest kernel took an int3 in its own text patching (TCG), nothing of stackid's in it, after $(($(date +%s) - t0)) s; booting it again from the disk as it was:"
			int3_show "$work/console-$boot.log"
		elif [ -f "$work/hang.txt" ] &&
			hang_not_ours "$work/hang.txt" "$work/console-$boot.log"; then
			echo "# boot $boot: that hang is in the kernel's own int3 path (TCG), nothing of stackid's in it, after $(($(date +%s) - t0)) s; booting it again from the disk as it was"
			mv "$work/hang.txt" "$work/hang-$boot.try1.txt"
		else
			break
		fi
		mv "$work/console-$boot.log" "$work/console-$boot.try1.log"
		mv "$work/results-$boot.log" "$work/results-$boot.try1.log"
		cp --sparse=always "$work/disk.before.img" "$work/disk.img" ||
			die "cannot restore the disk image"
	done
	rm -f "$work/disk.before.img"
	tap < <(tr -d '\r' <"$work/results-$boot.log")
	# the kernel's own log, as test/vm.sh judges it
	# (less the stage's own command output, "sidtest: " lines)
	# (and less QEMU 7.2's #DB, said: qemu_db_strip, test/lib.sh)
	: >"$work/qemu-db-$boot.txt"
	splat=$(tr -d '\r' <"$work/console-$boot.log" | grep -v '\] sidtest: ' |
		qemu_db_judge qemu-system-x86_64 "$work/qemu-db-$boot.txt" |
		grep -E "$SPLAT_RE" | head -n 5)
	[ -s "$work/qemu-db-$boot.txt" ] &&
		echo "# boot $boot: a $QEMU_DB_SAID: $(head -n 1 "$work/qemu-db-$boot.txt")"
	tap <<<"$([ -z "$splat" ] && echo ok || echo not ok) - boot $boot: no kernel splat on the console${splat:+: $splat}"
	next=$(tr -d '\r' <"$work/results-$boot.log" | sed -n 's/^# next: //p' | tail -n 1)
	echo "# boot $boot: QEMU exit $rc after $(($(date +%s) - t0)) s"
	[ -f "$work/hang.txt" ] &&
		nok "boot $boot: the guest hung: $(head -n 1 "$work/hang.txt"), ended (test/hang-watch.sh)"
	if [ -z "$next" ]; then
		nok "boot $boot ended before its stage finished (QEMU exit $rc; console: $work/console-$boot.log)"
		tail -n 20 "$work/console-$boot.log" | sed 's/^/#   /'
	fi
done
flock -u 8
[ "$next" = done ] || [ -z "$next" ] || nok "the stages did not finish within 4 boots"
echo "# system: $(($(date +%s) - t_all)) s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
