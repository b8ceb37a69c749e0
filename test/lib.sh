# SPDX-License-Identifier: GPL-2.0
# Shared helpers for stackid's shell scripts (sourced, not run; $top set).
#
# Where things live:
#   $STACKID_CACHE/kernels/KVER/   each tested kernel's Debian packages,
#                                  unpacked with dpkg -x (image, headers,
#                                  kbuild): never installed on the host
#   $STACKID_CACHE/kernels.resolved  what setup resolved: NAME KVER per line
#   $STACKID_CACHE/debug-kernel/   the debug kernel (test/debug-kernel.sh)
#   $STACKID_CACHE/apt/RELEASE/    a private apt configuration, state and
#                                  package lists per Debian release
#                                  (release_apt): never the host's
#   $STACKID_CACHE/chroot/         Debian chroots of other releases, to
#                                  build with their compilers
#                                  (test/chroot.sh)
#   $STACKID_CACHE/headers/KVER/   headers of the build-only matrix
#                                  (test/matrix.sh)
#   $top/build/dkms/               the DKMS trees the tests use (not the
#                                  host's /var/lib/dkms, /usr/src or
#                                  /lib/modules): see dkms_install
: "${STACKID_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/stackid}"
export STACKID_CACHE

# The kernel lines, from test/kernels.conf, without comments:
# NAME RELEASE HEADERS-META IMAGE-META per line.
kernel_lines() {
	grep -v '^[[:space:]]*\(#\|$\)' "$top/test/kernels.conf"
}

# The Debian release the host runs: its kernels are built with the
# host's own compiler and DKMS, every other release's in a chroot.
HOST_RELEASE=bookworm

# release_apt RELEASE apt-get|apt-cache ARGS...: apt for RELEASE's main
# archive (with its -updates and -security suites, except sid) from
# deb.debian.org, with a private sources list, state, lists and cache
# under $STACKID_CACHE/apt/RELEASE: the host's apt configuration and
# package lists are neither read nor changed. amd64 only.
release_apt() {
	local rel=$1 tool=$2 d s
	shift 2
	d=$STACKID_CACHE/apt/$rel
	if [ ! -f "$d/sources.list" ]; then
		mkdir -p "$d/state/lists/partial" "$d/cache/archives/partial" \
			"$d/empty"
		: >"$d/state/status"
		for s in $rel $(case $rel in sid) ;; *) echo "$rel-updates" ;; esac); do
			echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $s main"
		done >"$d/sources.list.tmp"
		case $rel in
		sid) ;;
		*) echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security $rel-security main" \
			>>"$d/sources.list.tmp" ;;
		esac
		mv "$d/sources.list.tmp" "$d/sources.list"
	fi
	"$tool" -o Dir::Etc::sourcelist="$d/sources.list" \
		-o Dir::Etc::sourceparts=- -o Dir::State="$d/state" \
		-o Dir::State::status="$d/state/status" -o Dir::Cache="$d/cache" \
		-o Dir::Etc::preferences=/dev/null \
		-o Dir::Etc::preferencesparts="$d/empty" \
		-o APT::Architecture=amd64 -o APT::Architectures::=amd64 \
		-o Acquire::Languages=none -o APT::Sandbox::User=root \
		-o Acquire::Check-Valid-Until=false "$@"
}

# resolve_meta RELEASE PKG PREFIX: the kernel version a meta-package of
# RELEASE points at, e.g. linux-headers-amd64 -> 6.1.0-57-amd64.
resolve_meta() {
	release_apt "$1" apt-cache depends "$2" 2>/dev/null | awk -v p="$3" '
		$1 == "Depends:" && index($2, p) == 1 {
			print substr($2, length(p) + 1); exit
		}'
}

# kernel_deps RELEASE PKG KVER: the kernel-specific packages PKG needs
# to be used unpacked: for headers the common headers and kbuild (and
# sid's base files), for an image its binary, modules and base files
# where the image is split (sid). Never an image for headers, nor gcc.
kernel_deps() {
	release_apt "$1" apt-cache depends "$2" 2>/dev/null |
		awk -v k="$3" -v pkg="$2" '
		$1 != "Depends:" { next }
		pkg ~ /^linux-headers-/ && $2 ~ /^linux-(headers|kbuild)-/ { print $2; next }
		$2 ~ /^linux-image-/ { next }
		$2 ~ /^linux-(base|binary|modules)-/ && index($2, k) { print $2 }'
}

# debian_headers_fixup ROOT MAKEFILE: a Debian flavour headers Makefile
# names its trees by absolute /usr/src paths ("include /usr/src/...",
# and from 7.x "KBUILD_OUTPUT=/usr/src/..."), the only paths outside the
# tree: point them at the copy unpacked under ROOT. Idempotent.
debian_headers_fixup() {
	sed -i "s|\([ =]\)/usr/src/|\1$1/usr/src/|g" "$2"
}

# kernel_cc KDIR: the compiler a Debian kernel's headers ask for, from
# the CC line of their .kernelvariables (e.g. gcc-12); empty if none.
kernel_cc() {
	sed -n 's/^CC *=.*\(gcc-[0-9][0-9]*\).*/\1/p' "$1/.kernelvariables" 2>/dev/null |
		head -n 1
}

# kernel_env KVER: where kernel KVER's module is built, as setup wrote
# it: "RELEASE CC", e.g. "bookworm gcc-12" (the host) or "sid gcc-16"
# (in sid's chroot, test/chroot.sh). Empty for a kernel setup did not
# unpack (the debug kernel: built on the host).
kernel_env() {
	cat "$(kernel_root "$1")/.stackid-env" 2>/dev/null
}

# tree_files_hash DIR: the sha256sum lines of every file under DIR, by
# path in a fixed order: what a copy of the sources is, for cache keys
# (test/matrix.sh, test/vm.sh).
tree_files_hash() {
	(cd "$1" && find . -type f | LC_ALL=C sort | xargs sha256sum)
}

# in_build_env RELEASE DIR... -- CMD...: run CMD on the host if RELEASE
# is the host's, else in RELEASE's chroot with each DIR mounted at its
# own path (read-only when given as ro:DIR).
in_build_env() {
	local rel=$1 binds=()
	shift
	while [ "$1" != -- ]; do
		case $1 in
		ro:*) binds+=(--ro "${1#ro:}") ;;
		*) binds+=(--bind "$1") ;;
		esac
		shift
	done
	shift
	if [ -z "$rel" ] || [ "$rel" = "$HOST_RELEASE" ]; then
		"$@"
	else
		"$top/test/chroot.sh" run "${binds[@]}" "$rel" -- "$@"
	fi
}

# The kernel versions setup resolved and unpacked, "NAME KVER" per line,
# in test/kernels.conf order. Resolved once, at setup time, so that a
# package-list update between setup and a run cannot ask for a kernel
# that is not in the cache.
kernel_versions() {
	cat "$STACKID_CACHE/kernels.resolved" 2>/dev/null
}

# kernel_of NAME: the kernel version of line NAME (test/kernels.conf)
# that setup resolved; empty if none.
kernel_of() {
	kernel_versions | awk -v n="$1" '$1 == n {print $2}'
}

# vm_debug KDIR: test/vm.sh on the debug kernel built in KDIR
# (test/debug-kernel.sh --print-dir). no5lvl: see test/DEBUG-KERNEL.md,
# "Early-boot KASAN report". Its guest is given 1,800 s, not 900: KASAN
# and lockdep make it slower than the other lines' guests, up to 2.5
# times beside a parallel build (2026-12-06: 625 guest seconds of tests
# before unwind.sh, where the others took about 250), and there it used
# up 900 s in unwind.sh, the last test, with no fault. For the same
# reason its guest is taken for hung after 600 s without a heartbeat,
# not 240.
vm_debug() {
	STACKID_KDIR=$1 STACKID_APPEND=no5lvl \
		STACKID_VM_HANG=${STACKID_VM_HANG:-600} \
		STACKID_VM_TIMEOUT=${STACKID_VM_TIMEOUT:-1800} "$top/test/vm.sh" \
		"$(cat "$1/kernelrelease")" "$1/arch/x86/boot/bzImage"
}

# Where setup unpacked kernel KVER, and its headers tree (KDIR).
kernel_root() {
	echo "$STACKID_CACHE/kernels/$1"
}
kernel_kdir() {
	echo "$STACKID_CACHE/kernels/$1/usr/src/linux-headers-$1"
}

# Kernel KVER's image and its modules directory in what setup unpacked:
# /boot and /lib/modules, or /usr/lib/modules/KVER/vmlinuz and
# /usr/lib/modules where the packages ship merged-/usr paths (sid).
kernel_image() {
	local r
	r=$(kernel_root "$1")
	if [ -f "$r/boot/vmlinuz-$1" ]; then
		echo "$r/boot/vmlinuz-$1"
	else
		echo "$r/usr/lib/modules/$1/vmlinuz"
	fi
}
kernel_moddir() {
	local r
	r=$(kernel_root "$1")
	if [ -d "$r/lib/modules/$1" ]; then
		echo "$r/lib/modules/$1"
	else
		echo "$r/usr/lib/modules/$1"
	fi
}

# stackid's one version number, from dkms.conf.
stackid_version() {
	sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf"
}

# stage NAME T0: print how long a stage took since T0 (date +%s).
stage() {
	echo "stage $1: $(($(date +%s) - $2))s"
}

# Guest tests to run, in order (file names under test/guest/tests);
# STACKID_GUEST_TESTS="a.sh b.sh" runs only those.
guest_tests() {
	if [ -n "${STACKID_GUEST_TESTS:-}" ]; then
		printf '%s\n' $STACKID_GUEST_TESTS
	else
		(cd "$top/test/guest/tests" && ls *.sh)
	fi
}

# int3_not_ours LOG: LOG (a guest's console) has an int3 oops that names
# nothing of stackid's. Under QEMU's TCG a vCPU can run the int3 of
# another vCPU's rewrite of a static branch after the rewrite is done:
# 6.12 took one in __schedule() 16 s into correct.sh (2026-12-02), its
# cloud flavour one in sched_clock_cpu() 2.3 s into boot, no module
# loaded (2026-12-05); test/tcg-race.sh makes it happen with nothing but
# busybox in the guest. The harnesses boot such a guest once more and
# say so. The oops's first line: "Oops: int3: 0000 [#1] ..." on 6.12
# and 7.2, "int3: 0000 [#1] ..." on 6.1 and 5.10.
INT3_RE='int3: [0-9a-f]{4} \[#'
int3_not_ours() {
	local o
	o=$(tr -d '\r' <"$1" | sed -n -E "/$INT3_RE/,/end trace/p" |
		grep -v 'Modules linked in:')
	[ -n "$o" ] && ! grep -q stackid <<<"$o"
}

# int3_show LOG: the int3 oops's first line and its RIP, indented as a
# comment, for the harness that boots again to say what it saw.
int3_show() {
	tr -d '\r' <"$1" | grep -E "$INT3_RE|RIP:" | head -n 2 | sed 's/^/#   /'
}

# watch_prepare WORK: before a guest's boot, its monitor's pipe
# (WORK/mon.in, WORK/mon.out; QEMU: -chardev pipe,path=WORK/mon), what
# the monitor answers copied to WORK/mon.log by a background cat, an
# empty heartbeat log (WORK/beat.log: its third serial port) and no hang
# report (WORK/hang.txt).
watch_prepare() {
	rm -f "$1/mon.in" "$1/mon.out" "$1/hang.txt"
	mkfifo "$1/mon.in" "$1/mon.out"
	: >"$1/beat.log"
	cat "$1/mon.out" >"$1/mon.log" &
	watch_cat=$!
}

# watch_start WORK QEMU-PID SECONDS: test/hang-watch.sh on that guest
# (2 vCPUs), in the background; watch_end, once QEMU has exited, waits
# for it and ends the copy of the monitor's answers.
watch_start() {
	"$top/test/hang-watch.sh" "$1" "$2" "$3" 2 >"$1/hang-watch.log" 2>&1 &
	watch_pid=$!
}
watch_end() {
	wait "$watch_pid"
	kill "$watch_cat" 2>/dev/null
	wait "$watch_cat" 2>/dev/null
}

# hang_not_ours HANG CONSOLE: HANG (test/hang-watch.sh's report of a
# guest with no heartbeat) shows the hang QEMU's TCG causes on kernels
# whose int3 handler, finding no int3 left in memory where one was hit,
# backs the vCPU up to run the instruction again (6.1 and 5.10; later
# kernels oops instead, int3_not_ours): the vCPU runs the int3 of its
# stale translation again, for ever (tcg-race.sh's 6.1 boots,
# 2026-12-07: a vCPU at try_to_wake_up+0x9e or __schedule+0x1bc, memory
# there the finished NOP or jump, its other samples in the int3 entry).
# True if the monitor answered for every vCPU (4 samples or more each),
# every sample is in the core kernel's text, one vCPU was seen in an int3
# handler (asm_exc_int3, exc_int3, do_int3, kprobe_int3_handler,
# poke_int3_handler, by the addresses the guest printed) and otherwise
# only in the int3 path or at one place, twice or more, whose memory
# holds what a static branch or call is rewritten to (a 5-byte NOP, a
# 2-byte NOP, a jump, a call), and no trace in the kernel log has a frame
# of stackid's (a missing log counts as one that has).
hang_not_ours() {
	awk '$1 == "vcpus" { nv = $2 }
		$1 == "cpu" { c[n] = $2; r[n++] = $4; per[$2]++ }
		$1 == "bytes" { by[substr($2, 1, 16)] = $3 " " $4 " " $5 " " $6 " " $7 }
		$1 == "int3-path" { a[np] = $2; b[np] = $3
			h[np++] = $4 ~ /^(asm_exc_int3|exc_int3|do_int3|kprobe_int3_handler|poke_int3_handler)$/ }
		END {	if (nv < 1 || n == 0)
				exit 1
			for (v = 0; v < nv; v++)
				if (per[v] < 4)
					exit 1
			for (k = 0; k < n; k++) {
				if (r[k] < "ffffffff81000000" || r[k] >= "ffffffffc0000000")
					exit 1
				p = -1
				for (i = 0; i < np; i++)
					if (r[k] >= a[i] && r[k] < b[i])
						p = i
				v = c[k]
				if (p >= 0 && h[p])
					inh[v] = 1
				if (p >= 0)
					continue
				# outside the int3 path: one place per vCPU
				if (!(v in at))
					at[v] = r[k]
				else if (at[v] != r[k])
					many[v] = 1
				seen[v]++
			}
			for (v = 0; v < nv; v++) {
				if (!inh[v] || many[v] || seen[v] < 2)
					continue
				x = by[at[v]]
				if (x ~ /^0x0f 0x1f 0x44 0x00 0x00/ || x ~ /^0x66 0x90/ ||
					x ~ /^0x(e9|eb|e8) /)
					exit 0
			}
			exit 1 }' "$1" || return 1
	# a frame of stackid's in any trace: "name+0x1f/0x80 [stackid]" (a
	# file, not a pipe: grep -q's early exit would fail the pipe)
	grep -s -q -E '\[stackid(_anchor)?\]|stackid[a-z_]*\+0x' "$2"
	[ $? = 1 ]
}

# hang_show HANG: where each vCPU of a hung guest was, indented as a
# comment: its samples' distinct addresses, each named by the int3-path
# function it is in, or by the bytes memory holds there.
hang_show() {
	awk '$1 == "int3-path" { a[np] = $2; b[np] = $3; nm[np] = $4; np++ }
		$1 == "bytes" { by[substr($2, 1, 16)] = substr($0, index($0, ": ") + 2) }
		$1 == "cpu" { k = $2 " " $4; if (!(k in seen)) { seen[k] = 1; o[no++] = k } }
		NR == 1 { print "#   " $0 }
		END { for (j = 0; j < no; j++) {
			split(o[j], f, " "); w = ""
			for (i = 0; i < np; i++)
				if (f[2] >= a[i] && f[2] < b[i]) w = "in " nm[i]
			if (w == "" && (f[2] in by)) w = "memory there: " by[f[2]]
			print "#   vCPU " f[1] " at " f[2] (w == "" ? "" : " (" w ")") } }' "$1"
}

# Kernel log lines that fail a run: warnings, oopses, and every report of
# the debug options (lockdep, KASAN, UBSAN, DEBUG_OBJECTS, kmemleak,
# lockup and hung-task detectors, sleeping in atomic context).
SPLAT_RE='WARNING:|\bBUG\b|Oops|general protection|unable to handle'
SPLAT_RE+='|sleeping function called from invalid context'
SPLAT_RE+='|possible circular locking|inconsistent lock state'
SPLAT_RE+='|possible recursive locking|lock held when returning'
SPLAT_RE+='|suspicious RCU usage|KASAN|UBSAN|KFENCE|refcount_t'
SPLAT_RE+='|list_add corruption|list_del corruption|stack-protector'
SPLAT_RE+='|ODEBUG|soft lockup|hard LOCKUP|blocked for more than'
SPLAT_RE+='|rcu_.*detected stall|Call Trace:|Kernel panic'
SPLAT_RE+='|suspected memory leak|Uhhuh. NMI received'

# qemu_of NAME: the command that runs QEMU NAME: host, the host's
# qemu-system-x86_64 (Debian 12's 7.2, what `make check` boots), or
# trixie, Debian 13's 10.0 (test/qemu-trixie.sh).
qemu_of() {
	case $1 in
	host) echo qemu-system-x86_64 ;;
	trixie) echo "$top/test/qemu-trixie.sh" ;;
	*) return 1 ;;
	esac
}

# qemu_cc_bug QEMU: whether QEMU (a command) is a release before 8.0,
# whose TCG computes cmpxchg16b's flags from stale state (qemu_db_strip;
# Debian 12's 7.2 is; Debian 13's 10.0, test/qemu-trixie.sh, is not).
qemu_cc_bug() {
	local v
	v=$("$1" --version 2>/dev/null |
		sed -n 's/^QEMU emulator version \([0-9]*\)\..*/\1/p')
	[ -n "$v" ] && [ "$v" -lt 8 ]
}

# The RFLAGS bits no x86 CPU can hold set (reserved): in a trapped frame,
# they are the emulator's (qemu_db_strip, test/tcg-flags.sh).
RFLAGS_IMPOSSIBLE_BITS="3 5 15 $(seq -s ' ' 22 31)"

# What the harnesses say of a warning qemu_db_strip took out.
QEMU_DB_SAID="single-step #DB warning with flags no CPU can hold, nothing of stackid's in it: QEMU 7.2's cmpxchg16b (README, \"A guest kernel's single-step #DB\"; test/tcg-flags.sh)"

# qemu_db_judge QEMU QFILE: the kernel log on stdin to stdout as a run
# under QEMU (a command) judges it: through qemu_db_strip QFILE under a
# QEMU with that fault (qemu_cc_bug), whole under any other.
qemu_db_judge() {
	if qemu_cc_bug "$1"; then
		qemu_db_strip "$2"
	else
		cat
	fi
}

# qemu_db_strip QFILE: the kernel log on stdin to stdout, less each
# single-step #DB warning that QEMU 7.2's TCG made (README, "A guest
# kernel's single-step #DB"; test/tcg-flags.sh): a WARNING in
# exc_debug_kernel() whose trapped frame (the registers between "<#DB>"
# and "</#DB>") has a flags bit no x86 CPU can hold
# (RFLAGS_IMPOSSIBLE_BITS: a pointer's, from a cmpxchg16b helper that
# computed the flags from stale state), with nothing of stackid's in it
# and no other report from the WARNING to its end trace. Each such
# WARNING line is appended to QFILE. Everything else, a #DB with flags a
# CPU can hold included, passes through, to be judged as it is.
qemu_db_strip() {
	# SPLAT_RE for awk (mawk has no \b)
	SRE=${SPLAT_RE//\\b/} awk -v q="$1" -v rbits="$RFLAGS_IMPOSSIBLE_BITS" '
	function hex(s, i, n) {
		n = 0
		s = tolower(s)
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	}
	function bit(n, b) { return int(n / 2 ^ b) % 2 }
	function impossible(n, i, k, b) {
		k = split(rbits, b, " ")
		for (i = 1; i <= k; i++)
			if (bit(n, b[i]))
				return 1
		return 0
	}
	function flush(i) {
		for (i = 1; i <= nb; i++)
			print buf[i]
		nb = 0
		w = ""
	}
	# a block that another report interrupts (any line of SPLAT_RE but
	# its own first call trace) is not one
	w != "" && (/cut here/ || $0 ~ ENVIRON["SRE"]) && !(/Call Trace:/ && !ct++) {
		flush()
	}
	/WARNING: .* exc_debug_kernel\+/ {
		flush()
		w = $0
		db = indb = 0
		bad = -1
		ours = 0
		ct = 0
	}
	w == "" { print; next }
	{ buf[++nb] = $0 }
	/<#DB>/ { db = indb = 1 }
	/<\/#DB>/ { indb = 0 }	# the trapped frame is printed inside
	indb && bad < 0 && match($0, /EFLAGS: [0-9a-f]+/) {
		bad = impossible(hex(substr($0, RSTART + 8, RLENGTH - 8)))
	}
	/stackid/ && !/Modules linked in:/ { ours = 1 }
	/end trace/ {
		if (db && bad == 1 && !ours) {
			print w >>q
			nb = 0
			w = ""
		} else {
			flush()
		}
	}
	END { flush() }'
}

# The line the guest writes to its kernel log just before the first
# test loads the module: splats before it are the kernel's own.
GUEST_MARK='stackid-guest: kernel booted; tests start now'

# dkms_private DIR [KDIR] -- DKMS-ARGS...: run `dkms DKMS-ARGS` with its
# trees under DIR (DIR/tree, DIR/src, DIR/install: --dkmstree,
# --sourcetree, --installtree), so that the host's own DKMS (which runs
# on every kernel package install), /var/lib/dkms, /usr/src and
# /lib/modules never see it. DKMS reads its signing settings only from
# /etc/dkms/framework.conf, so it runs in a private mount namespace where
# a framework.conf of ours stands there (sign-file from KDIR, the key in
# DIR) and /var/lib/dkms is an empty directory of ours, so that not even
# a default it falls back to reaches the host's tree. depmod is left to
# the caller (--no-depmod on install), which runs it on its own tree.
# With DKMS_RELEASE set to another Debian release than the host's, that
# release's own DKMS runs, in its chroot (test/chroot.sh), with the same
# mounts there, DIR at its own path and KDIR's kernel tree read-only at
# its own.
dkms_private() {
	local d=$1 sign= kroot=/nonexistent rel=${DKMS_RELEASE:-}
	shift
	if [ "$1" != -- ]; then
		sign=$(ls "$1"/scripts/sign-file 2>/dev/null || true)
		kroot=$(cd "$1/../../.." && pwd -P)
		shift
	fi
	shift
	mkdir -p "$d/tree" "$d/src" "$d/install" "$d/etc" "$d/varlib"
	cat >"$d/etc/framework.conf" <<-EOF
	dkms_tree="$d/tree"
	source_tree="$d/src"
	install_tree="$d/install"
	sign_file="${sign:-/nonexistent}"
	mok_signing_key="$d/mok.key"
	mok_certificate="$d/mok.pub"
	EOF
	if [ -n "$rel" ] && [ "$rel" != "$HOST_RELEASE" ]; then
		local binds=(--bind "$d" --bind "$d/etc:/etc/dkms"
			--bind "$d/varlib:/var/lib/dkms")
		[ -d "$kroot" ] && binds+=(--ro "$kroot")
		"$top/test/chroot.sh" run "${binds[@]}" "$rel" -- \
			dkms "$@" --dkmstree "$d/tree" --sourcetree "$d/src" \
			--installtree "$d/install"
		return
	fi
	D=$d unshare --mount --propagation private sh -ec '
		mount --bind "$D/etc" /etc/dkms
		if [ -d /var/lib/dkms ]; then
			mount --bind "$D/varlib" /var/lib/dkms
		fi
		exec dkms "$@" --dkmstree "$D/tree" --sourcetree "$D/src" \
			--installtree "$D/install"
	' sh "$@"
}

# dkms_install KVER KDIR: build and install stackid with DKMS for KVER,
# against the kernel tree KDIR, from the files the stackid-dkms package
# ships (make dkms-src), as a user's
# `dkms add/build/install` would, into build/dkms/ (dkms_private), with
# the DKMS and compiler of the kernel's release (kernel_env).
dkms_install() {
	local kver=$1 kdir=$2 ver d
	ver=$(stackid_version)
	d=$top/build/dkms
	mkdir -p "$d"
	(
		flock 9
		export DKMS_RELEASE
		DKMS_RELEASE=$(kernel_env "$kver" | cut -d' ' -f1)
		rm -rf "$d/tree" "$d/src" "$d/install/$kver"
		mkdir -p "$d/install/$kver"
		# Exactly what the stackid-dkms package installs.
		make -s -C "$top" dkms-src DESTDIR="$d/src/stackid-$ver" ||
			exit 1
		dkms_private "$d" "$kdir" -- add "stackid/$ver" &&
		dkms_private "$d" "$kdir" -- build "stackid/$ver" -k "$kver" \
			--kernelsourcedir "$kdir" --no-prepare-kernel \
			--no-clean-kernel &&
		dkms_private "$d" "$kdir" -- install "stackid/$ver" -k "$kver" \
			--kernelsourcedir "$kdir" --no-depmod --force
	) 9>"$d/lock"
}

# copy_libs ROOT BINARY...: copy what the binaries need at run time (ELF
# interpreters, shared libraries, transitively) into ROOT at the paths
# the loader looks for them, and write ROOT's ld.so.cache. Everything is
# read from ELF headers (build/elfdeps): no guest program, and no ELF
# interpreter, is ever executed on the host.
copy_libs() {
	local root=$1 f dirs
	shift
	"$top/build/elfdeps" --root "$root" "$@" >"$root.deps" || return 1
	while read -r f; do
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f" || return 1
	done <"$root.deps"
	dirs=$(sed 's|/[^/]*$||' "$root.deps" | sort -u)
	mkdir -p "$root/etc"
	printf '%s\n' $dirs >"$root/etc/ld.so.conf"
	ldconfig -r "$root" 2>/dev/null
	rm -f "$root.deps"
}
