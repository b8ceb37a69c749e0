# SPDX-License-Identifier: GPL-2.0
# Shared helpers for stackid's shell scripts (sourced, not run).
: "${STACKID_CACHE:=$top/.cache}"
export STACKID_CACHE

# The kernel lines, from test/kernels.conf, without comments.
kernel_lines() {
	grep -v '^[[:space:]]*\(#\|$\)' "$top/test/kernels.conf"
}

# resolve_meta PKG PREFIX: the kernel version a meta-package points at,
# e.g. linux-headers-amd64 -> 6.1.0-57-amd64.
resolve_meta() {
	apt-cache depends "$1" | awk -v p="$2" '
		$1 == "Depends:" && index($2, p) == 1 {
			print substr($2, length(p) + 1); exit
		}'
}

# The resolved kernel versions, "NAME KVER" per line.
kernel_versions() {
	local name hdr img
	kernel_lines | while read -r name hdr img; do
		echo "$name $(resolve_meta "$hdr" linux-headers-)"
	done
}
