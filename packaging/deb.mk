# SPDX-License-Identifier: GPL-2.0
#
# Debian packages, from debian/: included by the top Makefile (optional
# there: the copy DKMS builds from has no packaging/). Uses B, VERSION.
#
#   make deb         stackid-dkms_VERSION_all.deb and
#                    stackid_VERSION_amd64.deb in $(B)/deb, built by
#                    dpkg-buildpackage from a copy of the tree, then
#                    lintian (failing on any warning or error)
#   make deb-check   the packages in a clean Debian 12 chroot
#                    (test/deb-check.sh): apt installs both, DKMS builds
#                    the module for a Debian kernel, the units verify

DEB := $(B)/deb
DEB_TREE := $(DEB)/stackid-$(VERSION)
# The changelog's one entry says the version dkms.conf has; dated by the
# last commit, so that a rebuild of the same tree is the same package.
DEB_DATE = $(shell date -R -u -d @$$(git log -1 --format=%ct 2>/dev/null || date +%s))

.PHONY: deb deb-check
deb:
	rm -rf $(DEB)
	mkdir -p $(DEB_TREE)
	tar -c --exclude=./build --exclude=./.git . | tar -x -C $(DEB_TREE)
	printf 'stackid (%s) unstable; urgency=medium\n\n  * stackid %s.\n\n -- %s  %s\n' \
		'$(VERSION)' '$(VERSION)' \
		"$$(sed -n 's/^Maintainer: //p' debian/control)" \
		'$(DEB_DATE)' >$(DEB_TREE)/debian/changelog
	cd $(DEB_TREE) && dpkg-buildpackage -b -us -uc >../build.log 2>&1 || \
		{ tail -n 30 ../build.log; exit 1; }
	lintian --fail-on warning,error --info $(DEB)/*.changes
	@ls -l $(DEB)/*.deb

deb-check: deb
	test/deb-check.sh $(DEB)
