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

.PHONY: all module user guest unit check bench demo clean module-clean

all: module user

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# kbuild's own clean where the kernel tree exists; the same by hand where
# it does not (e.g. headers of the running kernel not installed).
module-clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	rm -f src/*.o src/.*.cmd .*.cmd *.ko *.mod *.mod.c *.o .*.o \
		Module.symvers modules.order

# User-space tools and host tests are added as they come.
USER_BINS := $(B)/stackid
UNIT_BINS := $(B)/test_elfnote

user: $(USER_BINS)

# Test programs for the guest: frame pointers everywhere, no inlining or
# tail calls, so the call chains are exactly as written. GCC 12 drops the
# frame setup of leaf functions without -mno-omit-leaf-frame-pointer, and
# at -O1 and above even with it when the leaf needs no stack, hence -O0.
G := $(B)/guest
FP := -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-optimize-sibling-calls -fno-inline -Wall -Wextra -Werror
GP := test/guest/progs
GUEST_BINS := $(G)/sidcheck $(G)/chain64 $(G)/chain32 $(G)/garbage \
	$(G)/libchain64.so $(G)/libchain32.so \
	$(G)/bid8 $(G)/bid16 $(G)/bid20 $(G)/bidfar $(G)/deep \
	$(G)/libdemo.so $(G)/demo_app
guest: $(GUEST_BINS) $(G)/expect $(B)/elfdeps

$(G):
	mkdir -p $@

$(G)/sidcheck: test/guest/sidcheck.c src/record.c src/record.h include/stackid.h | $(G)
	$(CC) $(UCFLAGS) -o $@ test/guest/sidcheck.c src/record.c

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
$(G)/expect: $(GUEST_BINS) test/guest/expect.sh
	mkdir -p $@
	for m in 64 32; do test/guest/expect.sh \
		$(G)/libchain$$m.so lib_spin $(G)/libchain$$m.so lib_b2 \
		$(G)/libchain$$m.so lib_b1 $(G)/chain$$m app_a3 \
		$(G)/chain$$m app_a2 $(G)/chain$$m app_a1 \
		$(G)/chain$$m main >$@/chain$$m || exit 1; done
	for b in bid8 bid16 bid20 bidfar; do readelf -n $(G)/$$b | \
		awk '/Build ID:/ {print $$3}' >$@/$$b; done

$(B):
	mkdir -p $@

# What a guest program needs at run time, from its ELF headers alone.
$(B)/elfdeps: test/tools/elfdeps.c | $(B)
	$(CC) $(UCFLAGS) -o $@ $< -lelf

$(B)/test_elfnote: test/unit/test_elfnote.c src/elfnote.c src/elfnote.h | $(B)
	$(CC) $(UCFLAGS) -Itest/unit -o $@ test/unit/test_elfnote.c src/elfnote.c

# Each entry is one command whose TAP output is counted.
UNIT_RUNS := "sh test/unit/elfnote-fixtures.sh $(B)/elfnote-fixtures | \
	xargs $(B)/test_elfnote" test/checkpatch.sh \
	"bash test/unit/test_elfdeps.sh" "bash test/unit/test_dkms_conf.sh"

include src/tool/tool.mk

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
bench: bench-report
	@test/bench.sh

clean: module-clean
	rm -rf $(B)
