# SPDX-License-Identifier: GPL-2.0
#
# stackid: kernel module (Kbuild) and user-space tools.
#
#   make                 module against /lib/modules/$(uname -r)/build,
#                        plus the user-space tools
#   make KVER=<version>  module against another installed kernel
#   make check           host unit tests + the VM suite on every kernel line
#   make unit            host unit tests only
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

.PHONY: all module user guest unit check clean module-clean

all: module user

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

module-clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || \
		rm -f src/*.o src/.*.cmd .*.cmd *.ko *.mod *.mod.c *.o \
		Module.symvers modules.order

# User-space tools and host tests are added as they come.
USER_BINS :=
UNIT_TESTS :=

user: $(USER_BINS)

# Test programs for the guest (frame pointers everywhere).
GUEST_BINS :=
guest: $(GUEST_BINS)

$(B):
	mkdir -p $@

unit: $(UNIT_TESTS)
	@test/run-unit.sh $(UNIT_TESTS)

check:
	@test/check.sh

clean: module-clean
	rm -rf $(B)
