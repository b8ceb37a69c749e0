# SPDX-License-Identifier: GPL-2.0
#
# stackid: kernel module (Kbuild) and user-space tools.
#
#   make                 module against /lib/modules/$(uname -r)/build,
#                        plus the user-space tools
#   make KVER=<version>  module against another installed kernel
#   make demo            boot a VM with the module, profile a demo workload
#   make check           host unit tests + the VM suite on every kernel line
#   make unit            host unit tests only
#   make bench           benchmark figures (in the VM)
#   make deb             Debian packages stackid-dkms and stackid, lintian
#   make deb-check       ... installed in a clean Debian 12 chroot
#   make clean           back to the tree as cloned
#
# The version is PACKAGE_VERSION in dkms.conf, nowhere else.

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

CC ?= gcc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror
UCFLAGS := $(CFLAGS) $(WARN) -Iinclude -Isrc -DSTACKID_VERSION='"$(VERSION)"'
B := build

.PHONY: all module module-test user guest unit check bench soak demo clean \
	module-clean dkms-src

all: module user

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# What the stackid-dkms package installs in /usr/src/stackid-VERSION,
# and the only files every DKMS, matrix and test build of the module is
# given: one list, so that the package and the tests cannot drift apart
# (test/unit/test_dkms_src.sh checks it against Kbuild and the #includes).
# Every kernel-side source is in it by its directory; src/testhook.c is
# for test builds only.
DKMS_SRC := Makefile Kbuild dkms.conf include/stackid.h src/tool/tool.mk \
	$(sort $(filter-out src/testhook.c,$(wildcard src/*.c src/*.h))) \
	$(sort $(wildcard src/probes/*.c)) src/probes/run.sh
# make dkms-src DESTDIR=DIR: those files, and nothing else, into DIR.
dkms-src:
	@test -n "$(DESTDIR)" || { echo "make dkms-src: set DESTDIR" >&2; exit 2; }
	@for f in $(DKMS_SRC); do \
		m=0644; case $$f in *.sh) m=0755 ;; esac; \
		install -D -m $$m $$f "$(DESTDIR)/$$f" || exit 1; \
	done

# The test build (src/testhook.c: NMI hook, fault injection), never DKMS
# and never shipped, in a copy of the tree at TESTMOD_DIR so that it
# cannot mix with the real build: make module-test KDIR=... TESTMOD_DIR=...
TESTMOD_DIR ?= $(B)/testmod
module-test:
	rm -rf $(TESTMOD_DIR)
	$(MAKE) -s dkms-src DESTDIR=$(abspath $(TESTMOD_DIR))
	install -m 0644 src/testhook.c $(TESTMOD_DIR)/src/
	$(MAKE) -C $(KDIR) M=$(abspath $(TESTMOD_DIR)) STACKID_TEST=1 modules

# kbuild's own clean where the kernel tree exists; the same by hand where
# it does not (e.g. headers of the running kernel not installed).
module-clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	rm -f src/*.o src/.*.cmd .*.cmd *.ko *.mod *.mod.c *.o .*.o \
		Module.symvers modules.order stackid-probes.h

# User-space tools and host tests are added as they come.
USER_BINS := $(B)/stackid
UNIT_BINS := $(B)/test_elfnote $(B)/test_abi $(B)/test_bidcache $(B)/test_uwtab \
	$(B)/test_ring $(B)/test_ring_tsan $(B)/test_ring_broken_tsan

user: $(USER_BINS)

# Test programs for the guest: frame pointers everywhere, no inlining or
# tail calls, so the call chains are exactly as written. GCC 12 drops the
# frame setup of leaf functions without -mno-omit-leaf-frame-pointer, and
# at -O1 and above even with it when the leaf needs no stack, hence -O0.
G := $(B)/guest
FP := -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-optimize-sibling-calls -fno-inline -Wall -Wextra -Werror
GP := test/guest/progs
# Issue 20's programs, built as Debian builds its packages (dpkg-buildflags:
# -O2, no frame pointers, .eh_frame only, no -g; stack protector, relro,
# now), so that a walk through them needs unwind tables: the known chain
# and the bench's 11-function chain (noinline, work after each call: the
# chains stay exactly as written), 64- and 32-bit; a qsort callback and a
# C++ std::sort lambda plus throw/catch, 64-bit.
NOFP := -O2 -fomit-frame-pointer -fasynchronous-unwind-tables \
	-fstack-protector-strong -Wall -Wextra -Werror
NOFP_LD := -Wl,-z,relro -Wl,-z,now
NOFP_BINS := $(foreach m,64 32,$(G)/nofp_chain$(m) $(G)/libnofp_chain$(m).so \
	$(G)/nofp_bench$(m) $(G)/libnofp_bench$(m).so) \
	$(G)/nofp_qsort $(G)/nofp_sort
GUEST_BINS := $(G)/sidcheck $(G)/perfsame $(G)/chain64 $(G)/chain32 $(G)/garbage \
	$(G)/libchain64.so $(G)/libchain32.so \
	$(G)/bid8 $(G)/bid16 $(G)/bid20 $(G)/bidfar $(G)/deep \
	$(G)/libdemo.so $(G)/demo_app $(G)/fp_qsort $(G)/vhostkick $(G)/libtrunc.so \
	$(G)/truncwrite $(G)/manylibs $(G)/many/.built $(G)/bench_work \
	$(G)/libbench.so $(G)/sysloop $(G)/ingest $(G)/bpfstack $(NOFP_BINS)
guest: $(GUEST_BINS) $(G)/expect $(B)/elfdeps

$(G):
	mkdir -p $@

SIDCHECK_SRCS := test/guest/sidcheck.c src/record.c src/tool/bidtab.c \
	src/tool/util.c src/tool/deltas.c
$(G)/sidcheck: $(SIDCHECK_SRCS) src/record.h src/abi1.h src/tool/bidtab.h \
		src/tool/deltas.h src/delta.h src/packed.h include/stackid.h | $(G)
	$(CC) $(UCFLAGS) -Isrc/tool -o $@ $(SIDCHECK_SRCS)

# stackid's unwinder on perf --call-graph dwarf's own samples (unwind.sh)
PERFSAME_SRCS := test/guest/perfsame.c src/tool/cfi.c src/elfnote.c
$(G)/perfsame: $(PERFSAME_SRCS) src/uwtab.h src/tool/cfi.h src/elfnote.h \
		include/stackid.h | $(G)
	$(CC) $(UCFLAGS) -Isrc/tool -o $@ $(PERFSAME_SRCS)

# Issue 20's programs (NOFP above).
$(G)/libnofp_chain%.so: $(GP)/chain_lib.c | $(G)
	$(CC) -m$* $(NOFP) -fPIC -shared -Wl,--build-id=md5 $(NOFP_LD) -o $@ $<
$(G)/nofp_chain%: $(GP)/chain_main.c $(G)/libnofp_chain%.so
	$(CC) -m$* $(NOFP) -fPIE -pie -Wl,--build-id=sha1 -Wl,-rpath,/stackid \
		$(NOFP_LD) -o $@ $< -L$(G) -lnofp_chain$*
$(G)/libnofp_bench%.so: $(GP)/bench_lib.c | $(G)
	$(CC) -m$* $(NOFP) -fPIC -shared $(NOFP_LD) -o $@ $<
$(G)/nofp_bench%: $(GP)/bench_work.c $(G)/libnofp_bench%.so
	$(CC) -m$* $(NOFP) -fPIE -pie -pthread -Wl,-rpath,/stackid $(NOFP_LD) \
		-o $@ $< -L$(G) -lnofp_bench$*
$(G)/nofp_qsort: $(GP)/qsort_cb.c | $(G)
	$(CC) $(NOFP) -fPIE -pie $(NOFP_LD) -o $@ $<
# The qsort callback with frame pointers, in Debian's libc without them
# (as the demo's): preload.sh.
$(G)/fp_qsort: $(GP)/qsort_cb.c | $(G)
	$(CC) $(FP) -fPIE -pie -o $@ $<
$(G)/nofp_sort: $(GP)/sort_throw.cc | $(G)
	$(CXX) $(NOFP) -fPIE -pie $(NOFP_LD) -o $@ $<

# The known chain: executable (sha1 build-id) + library (md5, 16 bytes).
$(G)/libchain%.so: $(GP)/chain_lib.c | $(G)
	$(CC) -m$* $(FP) -fPIC -shared -Wl,--build-id=md5 -o $@ $<
$(G)/chain%: $(GP)/chain_main.c $(G)/libchain%.so
	$(CC) -m$* $(FP) -fPIE -pie -Wl,--build-id=sha1 -Wl,-rpath,/stackid \
		-o $@ $< -L$(G) -lchain$*
# The demo workload (make demo): an executable and a shared library.
$(G)/libdemo.so: $(GP)/demo_lib.c | $(G)
	$(CC) $(FP) -fPIC -shared -o $@ $<
$(G)/demo_app: $(GP)/demo_app.c $(G)/libdemo.so
	$(CC) $(FP) -fPIE -pie -Wl,-rpath,/stackid -o $@ $< -L$(G) -ldemo
# Hostile and special programs of the correctness tests.
# test/system.sh's ingest endpoint in the Debian guest.
$(G)/ingest: $(GP)/ingest.c | $(G)
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<
# make bench's BPF build-id stack sampler.
$(G)/bpfstack: $(GP)/bpfstack.c | $(G)
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<
$(G)/sysloop: $(GP)/sysloop.c | $(G)
	$(CC) $(FP) -o $@ $<
$(G)/vhostkick: $(GP)/vhostkick.c | $(G)
	$(CC) $(FP) -pthread -o $@ $<
$(G)/libtrunc.so: $(GP)/trunc_lib.c | $(G)
	$(CC) $(FP) -fPIC -shared -Wl,--build-id=sha1 -o $@ $<
$(G)/truncwrite: $(GP)/truncwrite.c $(G)/libtrunc.so
	$(CC) $(FP) -pthread -Wl,-rpath,/stackid -o $@ $< -L$(G) -ltrunc
# A stack through MANY_LIBS shared libraries (the build-id cache's
# hundreds of files): one library, copied with the first 4 bytes of its
# build-id replaced by the copy's number, so each is a file of its own.
MANY_LIBS := 300
$(G)/manylibs: $(GP)/manylibs.c | $(G)
	$(CC) $(FP) -DMANY_LIBS=$(MANY_LIBS) -rdynamic -o $@ $< -ldl
$(G)/many/.built: $(GP)/many_lib.c | $(G)
	rm -rf $(G)/many
	mkdir -p $(G)/many
	$(CC) $(FP) -fPIC -shared -DMANY_LIBS=$(MANY_LIBS) \
		-Wl,--build-id=sha1 -o $(G)/many/template.so $<
	off=$$((0x$$(readelf -SW $(G)/many/template.so | \
		awk '/\.note\.gnu\.build-id/ { print $$5 }') + 16)); \
	for n in $$(seq 0 $$(($(MANY_LIBS) - 1))); do \
		f=$(G)/many/libmany$$n.so; cp $(G)/many/template.so $$f; \
		printf "$$(printf '\\%03o\\%03o\\%03o\\%03o' \
			$$((n & 255)) $$((n >> 8)) 90 90)" | \
		dd of=$$f bs=1 seek=$$off conv=notrunc status=none || exit 1; \
	done
	rm $(G)/many/template.so
	touch $@
# The bench's workloads (test/guest/bench/bench.sh).
$(G)/libbench.so: $(GP)/bench_lib.c | $(G)
	$(CC) $(FP) -fPIC -shared -o $@ $<
$(G)/bench_work: $(GP)/bench_work.c $(G)/libbench.so
	$(CC) $(FP) -pthread -Wl,-rpath,/stackid -o $@ $< -L$(G) -lbench
$(G)/deep: $(GP)/deep.c | $(G)
	$(CC) $(FP) -o $@ $<
$(G)/garbage: $(GP)/garbage.c | $(G)
	$(CC) $(FP) -o $@ $<
$(G)/bid8: $(GP)/spin.c | $(G)
	$(CC) $(FP) -Wl,--build-id=0x0123456789abcdef -o $@ $<
$(G)/bid16: $(GP)/spin.c | $(G)
	$(CC) $(FP) -Wl,--build-id=md5 -o $@ $<
$(G)/bid20: $(GP)/spin.c | $(G)
	$(CC) $(FP) -Wl,--build-id=sha1 -o $@ $<
# The build-id note moved behind .rodata, far beyond the first page.
$(G)/far.ld: | $(G)
	ld --verbose | sed -n '/^=====/,/^=====/p' | sed '1d;$$d' | \
		sed '/\.note\.gnu\.build-id/d' | \
		sed 's/^\(  \.rodata  *:.*\)$$/\1\n  .note.gnu.build-id : { *(.note.gnu.build-id) }/' >$@
$(G)/bidfar: $(GP)/spin.c $(G)/far.ld
	$(CC) $(FP) -no-pie -Wl,--build-id=sha1 -Wl,-T,$(G)/far.ld -o $@ $<

# What the guest tests expect, from the files' own notes and symbols.
# main's callers in libc (-m$$m's, the file the guest gets): one in a
# function without a symbol, then __libc_start_main.
LIBC_START = echo "libc @libc.so.6 0 ffffffffffffffff" && \
	test/guest/expect.sh $$($(CC) -m$$m -print-file-name=libc.so.6) \
	__libc_start_main
$(G)/expect: $(GUEST_BINS) test/guest/expect.sh
	mkdir -p $@
	for m in 64 32; do test/guest/expect.sh \
		$(G)/libchain$$m.so lib_spin $(G)/libchain$$m.so lib_b2 \
		$(G)/libchain$$m.so lib_b1 $(G)/chain$$m app_a3 \
		$(G)/chain$$m app_a2 $(G)/chain$$m app_a1 \
		$(G)/chain$$m main >$@/chain$$m || exit 1; done
	for b in bid8 bid16 bid20 bidfar; do readelf -n $(G)/$$b | \
		awk '/Build ID:/ {print $$3}' >$@/$$b; done
	# issue 20 (test/guest/tests/unwind.sh; sidcheck unwind): the whole
	# stacks, innermost first, down to _start; "@libc.so.6 0 ffff...":
	# any offset in the file the capture's paths name libc.so.6
	for m in 64 32; do { test/guest/expect.sh \
		$(G)/libnofp_chain$$m.so lib_spin $(G)/libnofp_chain$$m.so lib_b2 \
		$(G)/libnofp_chain$$m.so lib_b1 $(G)/nofp_chain$$m app_a3 \
		$(G)/nofp_chain$$m app_a2 $(G)/nofp_chain$$m app_a1 \
		$(G)/nofp_chain$$m main && $(LIBC_START) && \
		test/guest/expect.sh $(G)/nofp_chain$$m _start; } \
		>$@/nofp_chain$$m || exit 1; \
		{ for f in 6 5 4 3 2 1; do echo $(G)/libnofp_bench$$m.so blib_f$$f; \
		done; for f in 5 4 3 2 1; do echo $(G)/nofp_bench$$m app_w$$f; \
		done; echo $(G)/nofp_bench$$m main; } | xargs test/guest/expect.sh \
		>$@/nofp_bench$$m && { $(LIBC_START) && test/guest/expect.sh \
		$(G)/nofp_bench$$m _start; } >>$@/nofp_bench$$m || exit 1; done
	{ test/guest/expect.sh $(G)/nofp_qsort cmp && \
		echo "libc @libc.so.6 0 ffffffffffffffff" && \
		test/guest/expect.sh $(G)/nofp_qsort run $(G)/nofp_qsort main; } \
		>$@/nofp_qsort
	# preload.sh: the same with frame pointers, sampled in libc
	{ echo "libc @libc.so.6 0 ffffffffffffffff" && \
		test/guest/expect.sh $(G)/fp_qsort run $(G)/fp_qsort main && \
		m=64 && $(LIBC_START) && \
		test/guest/expect.sh $(G)/fp_qsort _start; } >$@/fp_qsort
	test/guest/expect.sh $(G)/nofp_sort _ZZ3runvENKUljjE_clEjj \
		$(G)/nofp_sort main >$@/nofp_sort.lambda
	{ echo "libgcc_s @libgcc_s.so.1 0 ffffffffffffffff" && \
		test/guest/expect.sh $(G)/nofp_sort main; } >$@/nofp_sort.throw

$(B):
	mkdir -p $@

# The UAPI header's promises; undefined behaviour is a failure here.
STACKID_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/stackid
KDOC := $(STACKID_CACHE)/kernel-doc
$(B)/test_abi: test/unit/test_abi.c include/stackid.h | $(B)
	$(CC) $(UCFLAGS) -Itest/unit -fsanitize=undefined \
		-fno-sanitize-recover=all -o $@ $<

# The per-CPU build-id cache, pure code, under hostile keys.
# The module's unwind table lookup and steps, with a stack of known words.
$(B)/test_uwtab: test/unit/test_uwtab.c src/uwtab.h include/stackid.h \
		src/pure.h | $(B)
	$(CC) $(UCFLAGS) -Itest/unit -fsanitize=undefined \
		-fno-sanitize-recover=all -o $@ test/unit/test_uwtab.c

$(B)/test_bidcache: test/unit/test_bidcache.c src/bidcache.c src/bidcache.h \
		src/pure.h | $(B)
	$(CC) $(UCFLAGS) -Itest/unit -o $@ test/unit/test_bidcache.c \
		src/bidcache.c

# The ring protocol under a producer and a consumer thread: as built, and
# under ThreadSanitizer (whose report is the failure), also with the
# publish made relaxed on purpose, which it must catch.
RING_T := test/unit/test_ring.c src/ring.c src/ring.h src/pure.h
$(B)/test_ring: $(RING_T) | $(B)
	$(CC) $(UCFLAGS) -Itest/unit -pthread -o $@ test/unit/test_ring.c \
		src/ring.c
$(B)/test_ring_tsan: $(RING_T) | $(B)
	$(CC) $(UCFLAGS) -Itest/unit -pthread -fsanitize=thread -O1 -g \
		-o $@ test/unit/test_ring.c src/ring.c
$(B)/test_ring_broken_tsan: $(RING_T) | $(B)
	$(CC) $(UCFLAGS) -Itest/unit -pthread -fsanitize=thread -O1 -g \
		-DRING_BROKEN -o $@ test/unit/test_ring.c src/ring.c

# What a guest program needs at run time, from its ELF headers alone.
$(B)/elfdeps: test/tools/elfdeps.c | $(B)
	$(CC) $(UCFLAGS) -o $@ $< -lelf

$(B)/test_elfnote: test/unit/test_elfnote.c src/elfnote.c src/elfnote.h | $(B)
	$(CC) $(UCFLAGS) -Itest/unit -o $@ test/unit/test_elfnote.c src/elfnote.c

# Each entry is one command whose TAP output is counted.
UNIT_RUNS := "sh test/unit/elfnote-fixtures.sh $(B)/elfnote-fixtures | \
	xargs $(B)/test_elfnote" test/checkpatch.sh \
	"bash test/unit/test_elfdeps.sh" "bash test/unit/test_dkms_conf.sh" \
	"bash test/unit/test_int3.sh" "bash test/unit/test_hang.sh" \
	"bash test/unit/test_qemu_db.sh" \
	"bash test/unit/test_dkms_src.sh" "bash test/unit/test_probes.sh" \
	"$(B)/test_abi $(KDOC)/ioctl-number.rst" $(B)/test_bidcache \
	$(B)/test_uwtab \
	"test/unit/test_ring.sh $(B)"

include src/tool/tool.mk
-include packaging/deb.mk

unit: $(UNIT_BINS) guest
	@test/run-unit.sh $(UNIT_RUNS)

check:
	@test/check.sh

# Boot a VM with the DKMS-built module, profile a demo workload, print the
# hottest symbolized stacks.
demo:
	@test/demo.sh

# Figures, not tests: per-sample cost, cache hit rate, valid-frame rate
# (in the VM), and the reader's records per second.
bench:
	@test/bench.sh

# Not a test of `make check`: an hour per line of everything at once
# (test/soak.sh; SOAK_SECONDS, SOAK_KERNELS).
soak:
	@test/soak.sh

clean: module-clean
	rm -rf $(B)
